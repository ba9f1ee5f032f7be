// The Sessions room as a person reads it: each host's session with its
// server and protocol, its messages in order with their direction, the
// server's text as text, and how to start one when there is none.
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { SessionsBackend, TapMessage, TapRow } from "../backendSessions";
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
  ...over,
});

const msg = (seq: number, direction: string, text: string): TapMessage => ({ seq, at_ms: 1_700_000_000_000 + seq * 250, direction, size: text.length, text, cut: false });

function mount(backend: SessionsBackend) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <SessionsRoom backend={backend} active={true} />
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
      ],
      2: [msg(0, "host", '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"forecast"}}')],
    };
    mount({
      listSessions: async () => [row({ id: 2, host: "cursor", host_version: "1.7", ended_at: null, messages: 1 }), row({})],
      sessionMessages: async (id) => messages[id] ?? [],
    });
    const list = await screen.findByRole("navigation", { name: "Sessions" });
    const hosts = within(list).getAllByRole("button").map((b) => b.querySelector(".session-host")?.textContent);
    expect(hosts).toEqual(["cursor 1.7", "claude-ai 0.1.0"]);
    expect(within(list).getAllByText("live")).toHaveLength(1);
    // The newest is open first; another opens on click.
    expect(await screen.findByText("tools/call (id 7)")).toBeTruthy();
    const older = within(list).getAllByRole("button")[1];
    if (!older) throw new Error("two sessions listed");
    fireEvent.click(older);
    const detail = await screen.findByRole("region", { name: "Session 1" });
    await within(detail).findByText("initialize (id 1)");
    const rows = within(detail).getAllByRole("listitem");
    expect(rows.map((r) => r.querySelector(".session-dir")?.textContent)).toEqual(["host → server", "server → host", "server → host"]);
    expect(rows.map((r) => r.querySelector(".session-what")?.textContent)).toEqual(["initialize (id 1)", "result of 1", "(not JSON)"]);
    // A server's text is text: no element made of it.
    expect(detail.querySelector("img")).toBeNull();
    expect(within(detail).getByText(/onerror/)).toBeTruthy();
    expect(within(detail).getByText("2025-11-25")).toBeTruthy();
  });

  it("says how to tap a host's server when there is no session", async () => {
    mount({ listSessions: async () => [], sessionMessages: async () => [] });
    expect(await screen.findByText("No sessions yet")).toBeTruthy();
    expect(screen.getByText(/"args": \["tap", "--"/)).toBeTruthy();
  });
});
