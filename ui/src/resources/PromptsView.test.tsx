import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { Backend, PromptRow } from "../ipc";
import { PromptsView } from "./PromptsView";
import { pick } from "../test/select";

const rows: PromptRow[] = [
  { server: "demo", stale: false, prompt: { name: "greet", title: "Greet someone", arguments: [{ name: "name" }] } },
  {
    server: "demo",
    stale: false,
    prompt: { name: "review_code", title: "Review code", description: "Asks for a review", arguments: [{ name: "language" }, { name: "code" }] },
  },
];

describe("prompts", () => {
  it("are searched, and completions get the values already chosen", async () => {
    const asked: { argument: string; context?: Record<string, string> }[] = [];
    const backend = {
      complete: (_server: string, _ref: unknown, argument: string, _value: string, context?: Record<string, string>) => {
        asked.push({ argument, context });
        return Promise.resolve(argument === "code" && context?.language === "rust" ? ["fn main() {}"] : []);
      },
    } as unknown as Backend;
    render(<PromptsView backend={backend} rows={rows} />);
    fireEvent.change(screen.getByLabelText("Search prompts"), { target: { value: "review" } });
    expect(screen.queryByText("Greet someone")).toBeNull();
    fireEvent.click(screen.getByText("Review code"));
    fireEvent.change(screen.getByLabelText("language"), { target: { value: "rust" } });
    fireEvent.change(screen.getByLabelText("code"), { target: { value: "f" } });
    await waitFor(() => expect(screen.getByRole("button", { name: "fn main() {}" })).toBeTruthy(), { timeout: 2000 });
    expect(asked.some((a) => a.argument === "code" && a.context?.language === "rust")).toBe(true);
  });

  it("are filtered by server, as tools are", () => {
    const two: PromptRow[] = [...rows, { server: "other", stale: false, prompt: { name: "summarise", title: "Summarise" } }];
    render(<PromptsView backend={{} as Backend} rows={two} />);
    expect(screen.getByText("Summarise")).toBeTruthy();
    pick(screen.getByLabelText("Server"), "demo");
    expect(screen.queryByText("Summarise")).toBeNull();
    expect(screen.getByText("Greet someone")).toBeTruthy();
  });

  it("say how fresh each server's list is, by its cache hints, for the chosen server", () => {
    const two: PromptRow[] = [...rows, { server: "other", stale: false, prompt: { name: "summarise", title: "Summarise" } }];
    const hint = (server: string, ttl_ms: number | null) => ({
      server,
      list: "prompts",
      hint: { ttl_ms, scope: ttl_ms === null ? null : "public", read_at_ms: Date.now(), pages: 1, pages_without: ttl_ms === null ? 1 : 0, problems: [] },
    });
    const hints = [hint("demo", 60_000), hint("other", null)];
    render(<PromptsView backend={{} as Backend} rows={two} hints={hints as never} />);
    const said = screen.getByRole("list", { name: "Cache hints" });
    expect(said.textContent).toBe("demo: fresh for 60 s, public");
    expect(said.querySelector("li")?.getAttribute("title")).toBe("prompts/list: fresh for 60 s, public");
    pick(screen.getByLabelText("Server"), "other");
    expect(screen.queryByRole("list", { name: "Cache hints" })).toBeNull();
  });

  it("show a message's resource and image as a tool's result shows them, and Enter gets them", async () => {
    const asked: Record<string, string>[] = [];
    const backend = {
      complete: () => Promise.resolve([]),
      getPrompt: (_s: string, _n: string, args: Record<string, string>) => {
        asked.push(args);
        return Promise.resolve({
          messages: [
            { role: "user", content: { type: "resource", resource: { uri: "demo://doc/1", mimeType: "text/plain", text: "the document" } } },
            { role: "user", content: { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" } },
          ],
        });
      },
    } as unknown as Backend;
    render(<PromptsView backend={backend} rows={rows} />);
    fireEvent.click(screen.getByText("Greet someone"));
    fireEvent.change(screen.getByLabelText("name"), { target: { value: "Ada" } });
    fireEvent.submit(screen.getByLabelText("name"));
    expect(await screen.findByText("the document")).toBeTruthy();
    expect(asked).toEqual([{ name: "Ada" }]);
    // Not the block's JSON: its URI above its text, the image as an image.
    expect(screen.getByText("demo://doc/1")).toBeTruthy();
    expect(screen.queryByText(/"type": "resource"/)).toBeNull();
    expect(screen.getByRole("img").getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
  });

  it("an empty list says which servers could not start", () => {
    render(<PromptsView backend={{} as Backend} rows={[]} statuses={[{ name: "np", state: "failed" } as never]} />);
    expect(screen.getByText("1 server could not start: its page says why.")).toBeTruthy();
  });

  it("are reached with Tab and walked with the arrow keys, each opening as it is reached", () => {
    render(<PromptsView backend={{} as Backend} rows={rows} />);
    const options = () => screen.getAllByRole("option");
    // Nothing open: the first row is the one Tab reaches.
    expect(options().map((o) => o.tabIndex)).toEqual([0, -1]);
    options()[0]?.focus();
    fireEvent.keyDown(options()[0] as HTMLElement, { key: "ArrowDown" });
    expect(options()[1]?.getAttribute("aria-selected")).toBe("true");
    expect(document.activeElement).toBe(options()[1]);
    expect(screen.getByRole("heading", { name: /Review code/ })).toBeTruthy();
    fireEvent.keyDown(options()[1] as HTMLElement, { key: "Home" });
    expect(options()[0]?.getAttribute("aria-selected")).toBe("true");
    expect(options().map((o) => o.tabIndex)).toEqual([0, -1]);
  });
});
