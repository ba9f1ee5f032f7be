import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
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
        updated={{}}
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
    // Bytes as bytes: their size, a preview, and Save as….
    expect(screen.getByText("application/octet-stream, 4 bytes")).toBeTruthy();
    expect(screen.getByRole("button", { name: "Save as…" })).toBeTruthy();
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

describe("reading a resource as its user would", () => {
  const ready = (name: string, subscribe: boolean) =>
    ({ name, state: "ready", info: { name, version: "1", protocol_version: "2025-11-25", capabilities: { resources: { subscribe } }, transport: "stdio" } }) as never;

  it("a template is read with Enter once its path is filled, and not before", async () => {
    const reads: string[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "complete") return [];
      if (cmd === "read_resource") {
        reads.push((args as { uri: string }).uri);
        return { contents: [{ uri: (args as { uri: string }).uri, mimeType: "application/json", text: '{"a":1}' }] };
      }
      throw new Error(`unexpected ${cmd}`);
    });
    render(<ResourcesView backend={tauriBackend} updated={{}} rows={[{ server: "demo", template: true, stale: false, resource: { uriTemplate: "demo://notes/{topic}{?lang}", name: "note" } }]} />);
    fireEvent.click(screen.getByText("note"));
    const read = screen.getByRole("button", { name: "Read" }) as HTMLButtonElement;
    expect(read.disabled).toBe(true);
    expect(read.title).toBe("Fill topic first");
    fireEvent.submit(screen.getByLabelText("topic"));
    expect(reads).toEqual([]);
    fireEvent.change(screen.getByLabelText("topic"), { target: { value: "rust" } });
    // Enter in a field submits its form: the read.
    fireEvent.submit(screen.getByLabelText("topic"));
    expect(await screen.findByText(/"a": 1/)).toBeTruthy();
    expect(reads).toEqual(["demo://notes/rust"]);
  });

  it("a subscribed resource that is open is read again when the server says it changed", async () => {
    let value = 0;
    mockIPC((cmd) => {
      if (cmd === "subscribe_resource") return null;
      if (cmd === "read_resource") return { contents: [{ uri: "demo://counter", mimeType: "text/plain", text: `count ${value}` }] };
      throw new Error(`unexpected ${cmd}`);
    });
    const rows = [
      { server: "demo", template: false, stale: false, resource: { uri: "demo://counter", name: "counter" } },
      { server: "demo", template: false, stale: false, resource: { uri: "demo://other", name: "other" } },
    ];
    const statuses = [ready("demo", true)];
    const view = (updated: Record<string, number>) => <ResourcesView backend={tauriBackend} updated={updated} rows={rows} statuses={statuses} />;
    const { rerender } = render(view({}));
    fireEvent.click(screen.getByText("counter"));
    fireEvent.click(screen.getByRole("button", { name: "Read" }));
    expect(await screen.findByText("count 0")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Subscribe" }));
    await screen.findByText("subscribed");
    value = 1;
    rerender(view({ "demo demo://counter": 1 }));
    // What is shown is what it holds now, and says why it was read again.
    expect(await screen.findByText("count 1")).toBeTruthy();
    expect(screen.getByRole("status").textContent).toMatch(/^Read again at .*: the server said it changed\.$/);
    expect(screen.queryByText("updated")).toBeNull();
    // Another is open when it changes again: its row says so until it is read.
    fireEvent.click(screen.getByText("other"));
    rerender(view({ "demo demo://counter": 2 }));
    expect(screen.getByText("updated")).toBeTruthy();
    fireEvent.click(screen.getByText("counter"));
    fireEvent.click(screen.getByRole("button", { name: "Read" }));
    await waitFor(() => expect(screen.queryByText("updated")).toBeNull());
  });

  it("a server that does not offer subscriptions says so instead of failing", () => {
    render(<ResourcesView backend={tauriBackend} updated={{}} rows={[{ server: "plain", template: false, stale: false, resource: { uri: "x://a", name: "a" } }]} statuses={[ready("plain", false)]} />);
    fireEvent.click(screen.getByText("a"));
    expect((screen.getByRole("button", { name: "Subscribe" }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText("plain does not offer subscriptions (its capabilities do not say resources.subscribe).")).toBeTruthy();
  });

  it("an empty list says which servers wait for trust or failed", () => {
    render(<ResourcesView backend={tauriBackend} updated={{}} rows={[]} statuses={[{ name: "team", state: "untrusted" } as never]} />);
    expect(screen.getByText("1 server waits for your trust: open it in the list to read what it runs.")).toBeTruthy();
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
