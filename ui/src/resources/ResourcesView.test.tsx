import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { ResourcesView, fillTemplate, readCacheText, templateVariables } from "./ResourcesView";
import { PromptsView } from "./PromptsView";

describe("URI templates", () => {
  it("finds the variables and fills them", () => {
    expect(templateVariables("demo://users/{id}/posts{?limit,offset}")).toEqual(["id", "limit", "offset"]);
    expect(fillTemplate("demo://users/{id}/posts{?limit,offset}", { id: "a b", limit: "5" })).toBe("demo://users/a%20b/posts?limit=5");
    expect(fillTemplate("file:///{+path}", { path: "src/main.rs" })).toBe("file:///src/main.rs");
  });
});

describe("resources and prompts", () => {
  it("reads a resource from a filled template and previews text and binary", async () => {
    const reads: unknown[] = [];
    const asked: unknown[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "complete") {
        asked.push(args);
        return ["Ada", "Alan"].filter((v) => v.startsWith(String((args as { value: string }).value)));
      }
      if (cmd === "read_resource") {
        reads.push(args);
        return { contents: [{ uri: "demo://greeting/Ada", mimeType: "text/plain", text: "Hello, Ada!" }, { uri: "demo://x", mimeType: "application/octet-stream", blob: "AAAAAA==" }] };
      }
      throw new Error(`unexpected ${cmd}`);
    });
    render(
      <ResourcesView
        backend={tauriBackend}
        updated={[]}
        rows={[{ server: "demo", template: true, stale: false, resource: { uriTemplate: "demo://greeting/{name}", name: "greeting" } }]}
      />,
    );
    fireEvent.click(screen.getByText("greeting"));
    // A template's variables get the server's completions, to pick.
    fireEvent.change(screen.getByLabelText("name"), { target: { value: "A" } });
    fireEvent.click(await screen.findByRole("button", { name: "Ada" }));
    expect((asked[asked.length - 1] as { reference: unknown }).reference).toEqual({ type: "ref/resource", uri: "demo://greeting/{name}" });
    fireEvent.click(screen.getByText("Read"));
    expect(await screen.findByText("Hello, Ada!")).toBeTruthy();
    expect(reads).toEqual([{ server: "demo", uri: "demo://greeting/Ada" }]);
    expect(screen.getByText("binary application/octet-stream, 6 bytes")).toBeTruthy();
  });

  it("gets a prompt's messages, suggesting the server's completions", async () => {
    mockIPC((cmd, args) => {
      const a = args as Record<string, unknown>;
      if (cmd === "complete") return ["python", "pytorch"].filter((v) => v.startsWith(String(a.value)));
      if (cmd === "get_prompt") return { messages: [{ role: "user", content: { type: "text", text: `Review my ${String((a.args as Record<string, string>).language)} code` } }] };
      throw new Error(`unexpected ${cmd}`);
    });
    render(
      <PromptsView
        backend={tauriBackend}
        rows={[{ server: "demo", stale: false, prompt: { name: "review", arguments: [{ name: "language", required: true }] } }]}
      />,
    );
    fireEvent.click(screen.getByRole("option"));
    fireEvent.change(screen.getByRole("textbox", { name: /language/ }), { target: { value: "py" } });
    // The suggestions are options to pick (WebKit never opens a datalist).
    const pick = await screen.findByRole("button", { name: "python" });
    expect(screen.getByRole("button", { name: "pytorch" })).toBeTruthy();
    fireEvent.click(pick);
    expect((screen.getByRole("textbox", { name: /language/ }) as HTMLInputElement).value).toBe("python");
    fireEvent.click(screen.getByText("Get messages"));
    expect(await screen.findByText("Review my python code")).toBeTruthy();
  });
});

describe("a read's cache hints", () => {
  it("says what the answer said of its freshness, or nothing when it said nothing", () => {
    expect(readCacheText({ contents: [], ttlMs: 60000, cacheScope: "public" })).toBe("Cache hints: fresh for 60 s, public");
    expect(readCacheText({ contents: [], ttlMs: 0, cacheScope: "private" })).toBe("Cache hints: stale at once (ttlMs 0), private");
    expect(readCacheText({ contents: [], cacheScope: "private" })).toBe("Cache hints: no ttlMs, private");
    expect(readCacheText({ contents: [] })).toBeNull();
  });
});
