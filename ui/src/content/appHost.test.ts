import { describe, expect, it } from "vitest";
import { AppHost, declarationFor, type HostDeps } from "./appHost";

function host(over: Partial<HostDeps> = {}) {
  const posted: Record<string, unknown>[] = [];
  const deps: HostDeps = {
    post: (m) => posted.push(m as Record<string, unknown>),
    allow: "",
    context: () => ({ theme: "light" }) as never,
    callTool: async () => ({ content: [] }),
    readResource: async () => ({ contents: [] }),
    openLink: async () => false,
    message: async () => true,
    modelContext: () => undefined,
    displayMode: (m) => m,
    size: () => undefined,
    changed: () => undefined,
    traffic: () => undefined,
    ...over,
  };
  return { h: new AppHost(deps), posted };
}

describe("the App's bridge", () => {
  it("answers a refused call with a numeric JSON-RPC error code (an App's SDK parses nothing else)", async () => {
    const { h, posted } = host({
      callTool: async () => {
        throw Object.assign(new Error("waits for your answer"), { code: "refused" });
      },
    });
    await h.receive({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
    await h.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    await h.receive({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "poll", arguments: {} } });
    const answer = posted.find((m) => m.id === 2) as { error?: { code: unknown; message: string } };
    expect(answer.error?.code).toBe(-32000);
    expect(answer.error?.message).toBe("waits for your answer");
  });

  it("keeps only the newest records of an App that talks, logs and breaks its CSP for ever", async () => {
    const { h } = host();
    for (let i = 0; i < 3000; i++) {
      await h.receive({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: i } });
      await h.receive({ jsonrpc: "2.0", method: "x-mcpwb/console", params: { level: "error", text: `e${i}` } });
      await h.receive({ jsonrpc: "2.0", method: "x-mcpwb/csp-violation", params: { directive: "img-src", blocked: `https://x${i}.example` } });
    }
    expect(h.log.length).toBe(AppHost.KEEP);
    expect(h.log[h.log.length - 1]?.n).toBe(3000);
    expect(h.appLog.length).toBe(AppHost.KEEP);
    expect(h.console.length).toBe(AppHost.KEEP);
    expect(h.console[h.console.length - 1]?.text).toBe("e2999");
    expect(h.violations.length).toBe(AppHost.KEEP);
  });

  it("sends nothing to the App before it says it is initialized, then input before result", async () => {
    const { h, posted } = host();
    h.setInput({ a: 1 });
    h.setResult({ content: [{ type: "text", text: "r" }] });
    expect(posted).toEqual([]);
    await h.receive({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
    expect(posted.map((m) => m.id)).toEqual([1]);
    expect((posted[0]?.result as { protocolVersion: string }).protocolVersion).toBe("2026-01-26");
    await h.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    expect(posted.slice(1).map((m) => m.method)).toEqual(["ui/notifications/tool-input", "ui/notifications/tool-result"]);
  });

  it("tells the App what changed between its initialize and its initialized, once it is initialized", async () => {
    const { h, posted } = host();
    h.contextChanged({ theme: "dark" }); // before the answer: the answer carries the context of then
    await h.receive({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
    h.contextChanged({ containerDimensions: { maxWidth: 640, maxHeight: 2000 } });
    h.contextChanged({ theme: "dark" });
    expect(posted.map((m) => m.method ?? m.id)).toEqual([1]);
    await h.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    const changed = posted.filter((m) => m.method === "ui/notifications/host-context-changed");
    expect(changed.map((m) => m.params)).toEqual([{ containerDimensions: { maxWidth: 640, maxHeight: 2000 }, theme: "dark" }]);
    h.contextChanged({ theme: "light" });
    expect(posted.at(-1)).toMatchObject({ method: "ui/notifications/host-context-changed", params: { theme: "light" } });
  });

  it("answers a refused link and an unknown method with JSON-RPC errors", async () => {
    const { h, posted } = host();
    await h.receive({ jsonrpc: "2.0", id: 7, method: "ui/open-link", params: { url: "https://example.com" } });
    await h.receive({ jsonrpc: "2.0", id: 8, method: "ui/open-link", params: { url: "javascript:alert(1)" } });
    await h.receive({ jsonrpc: "2.0", id: 9, method: "sampling/createMessage", params: {} });
    expect(posted.map((m) => (m.error as { code: number }).code)).toEqual([-32000, -32602, -32601]);
    expect(h.log.filter((l) => l.dir === "to-app").every((l) => l.tookMs !== undefined)).toBe(true);
  });

  it("keeps what the CSP blocked with what to declare", async () => {
    const { h } = host();
    await h.receive({ jsonrpc: "2.0", method: "x-mcpwb/csp-violation", params: { directive: "connect-src", blocked: "https://api.other.com/v1/x" } });
    expect(h.violations[0]?.declare).toBe('connectDomains: ["https://api.other.com"]');
    expect(declarationFor("img-src", "https://cdn.example.com/a.png")).toBe('resourceDomains: ["https://cdn.example.com"]');
    expect(declarationFor("connect-src", "ipc://localhost/x")).toBeNull();
    expect(declarationFor("connect-src", "http://ipc.localhost/x")).toBeNull();
    expect(h.log).toEqual([]);
  });
});

describe("arguments while the model writes them", () => {
  it("are recovered from unfinished JSON and sent as tool-input-partial until the input is whole", async () => {
    const { partialJson } = await import("./apps");
    expect(partialJson('{"note": "hel')).toEqual({ note: "hel" });
    expect(partialJson('{"a": 1, "b": [1, 2')).toEqual({ a: 1, b: [1, 2] });
    expect(partialJson('{"a": 1, "b":')).toEqual({ a: 1 });
    expect(partialJson('{"a": "x\\"y')).toEqual({ a: 'x"y' });
    expect(partialJson("")).toBeUndefined();
    const { h, posted } = host();
    h.setPartial({ note: "he" });
    expect(posted).toEqual([]);
    await h.receive({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
    h.setPartial({ note: "hel" });
    h.setInput({ note: "hello" });
    h.setPartial({ note: "late" });
    expect(posted.map((m) => m.method)).toEqual(["ui/notifications/tool-input-partial", "ui/notifications/tool-input"]);
  });
});
