// The Sessions room as a person reads it: each host's session with its
// server and protocol, its messages in order with their direction, the
// server's text as text, and how to start one when there is none.
import { pick } from "../test/select";
import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { HostFile, SessionsBackend, TapMessage, TapRow } from "../ipc/sessions";
import { ToastProvider } from "../design";
import { SessionsRoom } from "./SessionsRoom";

const row = (over: Partial<TapRow>): TapRow => ({
  id: 1,
  started_at: 1_700_000_000_000,
  ended_at: 1_700_000_005_000,
  server: "weather",
  command: "node build/index.js",
  host: "claude-ai",
  host_version: "0.1.0",
  protocol: "2025-11-25",
  messages: 3,
  dropped: 0,
  imported_from: null,
  ...over,
});

const msg = (seq: number, direction: string, text: string): TapMessage => ({ seq, at_ms: 1_700_000_000_000 + seq * 250, direction, size: text.length, text, cut: false });

/** A backend with every call answered plainly; `over` replaces some. */
function fake(over: Partial<SessionsBackend>): SessionsBackend {
  return {
    listSessions: async () => [],
    sessionMessages: async () => [],
    sessionFingerprint: async () => ({
      host: "h",
      version: "1",
      protocolVersions: ["2025-06-18"],
      extensions: [],
      methods: ["initialize"],
      capabilities: "{}",
      readAppResource: false,
      listedAgain: [],
    }),
    compareSessions: async () => [],
    exportSession: async () => null,
    importSession: async () => null,
    sessionToSuite: async () => ({ path: "/s/x.json", server: "demo", cases: 1, leftOut: 0, review: review("/s/x.json") }),
    sessionServer: async () => null,
    deleteSession: async () => undefined,
    hostFiles: async () => [],
    tapHostEntry: async () => "done",
    ...over,
  };
}

function review(path: string) {
  return { path, fingerprint: "sha256:0", calls: ["demo/echo"], env: [], models: [], eval_servers: [], trusted: false, own: false, made_from: "session 2 (cursor 1.8)" };
}

function mount(over: Partial<SessionsBackend>) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ToastProvider>
        <SessionsRoom backend={fake(over)} active={true} servers={["demo", "other"]} />
      </ToastProvider>
    </QueryClientProvider>,
  );
}

describe("the Sessions room", () => {
  it("lists each host's session and shows the one open with its messages in order", async () => {
    const messages: Record<number, TapMessage[]> = {
      1: [
        msg(0, "host", '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'),
        msg(1, "server", '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}'),
        msg(2, "server", '<img src=x onerror="alert(1)"> not JSON'),
        // An SSE keep-alive kept empty by an older tap: no row.
        msg(3, "server", ""),
      ],
      2: [msg(0, "host", '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast"}}')],
    };
    mount({
      listSessions: async () => [
        row({ id: 2, host: "cursor", host_version: "1.7", ended_at: null, messages: 1 }),
        row({}),
        row({ id: 3, ended_at: null, imported_from: "/home/me/repro.jsonl" }),
      ],
      sessionMessages: async (id) => messages[id] ?? [],
    });
    const list = await screen.findByRole("navigation", { name: "Sessions" });
    const sessionRows = () => within(list).getAllByRole("button").filter((b) => b.classList.contains("session-row"));
    const hosts = sessionRows().map((b) => b.querySelector(".session-host")?.textContent);
    expect(hosts).toEqual(["cursor 1.7", "claude-ai 0.1.0", "claude-ai 0.1.0"]);
    expect(within(list).getAllByText("live")).toHaveLength(1);
    // Opened from a file: marked, beside the session it was exported from.
    expect(within(list).getAllByText("from a file")).toHaveLength(1);
    // The newest is open first; another opens on click.
    expect(await screen.findByText("tools/call forecast (id 7)")).toBeTruthy();
    const older = sessionRows()[1];
    if (!older) throw new Error("two sessions listed");
    fireEvent.click(older);
    const detail = await screen.findByRole("region", { name: "Session 1" });
    await within(detail).findByText("initialize (id 1)");
    const rows = within(within(detail).getByRole("region", { name: "Messages" })).getAllByRole("listitem");
    expect(rows.map((r) => r.querySelector(".session-dir")?.textContent)).toEqual(["host → server", "server → host", "server → host"]);
    expect(rows.map((r) => r.querySelector(".session-what")?.textContent)).toEqual(["initialize (id 1)", "result of 1", "(not JSON)"]);
    // A server's text is text: no element made of it.
    expect(detail.querySelector("img")).toBeNull();
    expect(within(detail).getByText(/onerror/)).toBeTruthy();
    expect(within(detail).getByText("2025-11-25")).toBeTruthy();
  });

  it("marks errors and slow answers, shows the tap's marks, and filters to them", async () => {
    const at = (seq: number, ms: number, direction: string, text: string): TapMessage => ({ ...msg(seq, direction, text), at_ms: 1_700_000_000_000 + ms });
    mount({
      listSessions: async () => [row({})],
      sessionMessages: async () => [
        at(0, 0, "host", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}'),
        at(1, 2500, "server", '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}'),
        at(2, 2600, "host", '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bad"}}'),
        at(3, 2700, "server", '{"jsonrpc":"2.0","id":2,"result":{"isError":true,"content":[]}}'),
        at(4, 2800, "tap", '{"restart":{"why":"its files changed","answeredWithError":1,"replayed":1}}'),
        at(5, 2900, "tap", '{"http":{"method":"POST","path":"/mcp","status":401}}'),
      ],
    });
    const messages = await screen.findByRole("region", { name: "Messages" });
    await within(messages).findByText("tool error of 2 (bad)");
    expect(within(messages).getByText("slow · 2.5 s")).toBeTruthy();
    // Each answer says how long the host waited for it.
    expect(within(messages).getByText("100 ms")).toBeTruthy();
    expect(within(messages).getAllByText("error")).toHaveLength(1);
    expect(within(messages).getByText(/the server restarted \(its files changed\); 1 call/)).toBeTruthy();
    expect(within(messages).getByText("POST /mcp → 401")).toBeTruthy();
    fireEvent.click(within(messages).getByRole("radio", { name: "Errors and slow 2" }));
    const shown = within(messages).getAllByRole("listitem").map((r) => r.querySelector(".session-what")?.textContent);
    expect(shown).toEqual(["result of 1 (slow)", "tool error of 2 (bad)"]);
    // Export HAR is offered for a session with HTTP exchanges.
    expect(screen.getByRole("button", { name: "Export HAR" })).toBeTruthy();
  });

  it("shows the host's fingerprint, compares it with another session's, and saves the session as a suite", async () => {
    const toSuite = vi.fn(async () => ({ path: "/p/.mcp-workbench/suites/mine.json", server: "demo", cases: 2, leftOut: 1, review: review("/p/.mcp-workbench/suites/mine.json") }));
    mount({
      listSessions: async () => [row({ id: 2, host: "cursor", host_version: "1.8" }), row({ id: 1, host: "cursor", host_version: "1.7" })],
      sessionFingerprint: async (id) => ({
        host: "cursor",
        version: id === 2 ? "1.8" : "1.7",
        protocolVersions: ["2025-11-25"],
        extensions: ["io.modelcontextprotocol/ui"],
        methods: ["initialize", "tools/list", "resources/read"],
        capabilities: "{}",
        readAppResource: true,
        listedAgain: [{ kind: "tools", again: false }],
      }),
      compareSessions: async (a, b) => (a === 1 && b === 2 ? ["now reads an App's ui:// resource"] : []),
      sessionToSuite: toSuite,
      // The entry the session was with: the picker's default.
      sessionServer: async () => "demo",
    });
    const card = await screen.findByRole("region", { name: "Session 2" });
    await within(card).findByText("initialize, tools/list, resources/read");
    expect(within(card).getByText("read an App's ui:// resource")).toBeTruthy();
    expect(within(card).getByText("tools: not listed again")).toBeTruthy();
    fireEvent.click(within(card).getByRole("button", { name: "Save as suite" }));
    const dialog = await screen.findByRole("dialog", { name: "Save as suite" });
    const name = within(dialog).getByRole("textbox", { name: "Suite name" });
    expect((name as HTMLInputElement).value).toBe("session-2");
    fireEvent.change(name, { target: { value: "mine" } });
    const server = within(dialog).getByRole("combobox", { name: "Server the cases call" });
    await waitFor(() => expect(server.textContent).toContain("demo"));
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(toSuite).toHaveBeenCalledWith(2, "mine", "demo"));
    // Said untrusted, with the way to its review.
    expect(await screen.findByText("2 cases of demo saved as a suite — not trusted yet")).toBeTruthy();
  });

  it("deletes a session once the person confirms", async () => {
    const gone = vi.fn(async () => undefined);
    mount({ listSessions: async () => [row({ id: 4 })], deleteSession: gone });
    const card = await screen.findByRole("region", { name: "Session 4" });
    fireEvent.click(within(card).getByRole("button", { name: "Delete…" }));
    expect(gone).not.toHaveBeenCalled();
    expect(within(card).getByRole("alert").textContent).toContain("Delete session 4");
    fireEvent.click(within(card).getByRole("button", { name: "Delete" }));
    await waitFor(() => expect(gone).toHaveBeenCalledWith(4));
    expect(await screen.findByText("Session 4 deleted")).toBeTruthy();
  });

  it("asks which server when the session's matches no entry", async () => {
    const toSuite = vi.fn(async () => ({ path: "/s/x.json", server: "other", cases: 1, leftOut: 0, review: review("/s/x.json") }));
    mount({ listSessions: async () => [row({ id: 3 })], sessionToSuite: toSuite, sessionServer: async () => null });
    const card = await screen.findByRole("region", { name: "Session 3" });
    fireEvent.click(within(card).getByRole("button", { name: "Save as suite" }));
    const dialog = await screen.findByRole("dialog", { name: "Save as suite" });
    const save = within(dialog).getByRole("button", { name: "Save" });
    expect((save as HTMLButtonElement).disabled).toBe(true);
    pick(within(dialog).getByRole("combobox", { name: "Server the cases call" }), "other");
    await waitFor(() => expect((save as HTMLButtonElement).disabled).toBe(false));
    fireEvent.click(save);
    await waitFor(() => expect(toSuite).toHaveBeenCalledWith(3, "session-3", "other"));
  });

  it("taps a host's server and puts it back", async () => {
    let tapped = false;
    const flip = vi.fn(async (_path: string, name: string, on: boolean) => {
      tapped = on;
      return on ? `${name} now runs through the tap` : `${name} is no longer in the file: it stays deleted`;    });
    const files = async (): Promise<HostFile[]> => [
      {
        dialect: "claude-desktop",
        path: "/home/me/.config/Claude/claude_desktop_config.json",
        error: null,
        writable: true,
        secrets: "plain_text",
        entries: [
          { name: "weather", target: "node build/index.js", tapped, untappable: tapped, remote: false },
          { name: "web", target: "https://x.example/mcp", tapped: false, untappable: false, remote: true },
        ],
      },
      { dialect: "zed", path: "/home/me/.config/zed/settings.json", error: "Tap is offered for the JSON configs", entries: [], writable: true, secrets: "plain_text" },
    ];
    mount({ listSessions: async () => [row({})], hostFiles: files, tapHostEntry: flip });
    fireEvent.click(await screen.findByRole("button", { name: "Hosts" }));
    const panel = await screen.findByRole("region", { name: "Hosts' configs" });
    expect(within(panel).getByText("remote: mcpwb tap --to URL")).toBeTruthy();
    expect(within(panel).getByText("Tap is offered for the JSON configs")).toBeTruthy();
    fireEvent.click(within(panel).getByRole("button", { name: "Tap weather" }));
    await waitFor(() => expect(flip).toHaveBeenCalledWith("/home/me/.config/Claude/claude_desktop_config.json", "weather", true));
    fireEvent.click(await within(panel).findByRole("button", { name: "Untap weather" }));
    await waitFor(() => expect(flip).toHaveBeenLastCalledWith("/home/me/.config/Claude/claude_desktop_config.json", "weather", false));
    // What Untap did is said as the backend said it (here: the entry was gone).
    expect(await screen.findByText("weather is no longer in the file: it stays deleted")).toBeTruthy();
    expect(await within(panel).findByRole("button", { name: "Tap weather" })).toBeTruthy();
  });

  it("says how to tap a host's server when there is no session", async () => {
    mount({ listSessions: async () => [], sessionMessages: async () => [] });
    expect(await screen.findByText("No sessions yet")).toBeTruthy();
    expect(screen.getByText(/"args": \["tap", "--"/)).toBeTruthy();
  });
});
