import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { BridgeRoom } from "./BridgeRoom";

const off = { on: false, port: 8767, url: null, token: null, callers: [], pending: [], snippets: [] };
const on = {
  on: true,
  port: 8767,
  url: "http://127.0.0.1:8767/mcp",
  token: "s3cr3t-token-value",
  callers: [{ id: 1, name: "claude-code", version: "2.1", transport: "http", protocol: "2025-11-25", since_ms: Date.now() - 5000, calls: 3 }],
  pending: [
    {
      id: 7,
      session: "bridge",
      batch: 7,
      call_id: "claude-code:7",
      server: "github",
      tool: "delete_repo",
      qualified: "github__delete_repo",
      arguments: { repo: "x" },
      definition: {},
      changed: null,
    },
  ],
  snippets: [
    { client: "Claude Code", kind: "http", text: '{ "mcpServers": { "workbench": { "type": "http" } } }', notes: [] },
    { client: "Claude Code", kind: "stdio", text: '{ "mcpServers": { "workbench": { "command": "mcpwb" } } }', notes: [] },
    { client: "Cursor", kind: "http", text: '{ "cursor": true }', notes: ["Cursor has no headers for stdio"] },
  ],
};

describe("the bridge panel", () => {
  it("turns the bridge on, shows who is connected, lets a waiting call through, and gives each client its entry", async () => {
    const calls: [string, unknown][] = [];
    let state: typeof off | typeof on = off;
    mockIPC(
      (cmd, args) => {
        calls.push([cmd, args]);
        if (cmd === "bridge_status") return state;
        if (cmd === "bridge_set") {
          state = (args as { on: boolean }).on ? on : off;
          return state;
        }
        if (cmd === "decide_call") return null;
        if (cmd === "copy_text") return null;
        throw new Error(`unexpected ${cmd}`);
      },
      { shouldMockEvents: true },
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <BridgeRoom backend={tauriBackend} />
      </QueryClientProvider>,
    );
    const port = await screen.findByLabelText("Port");
    fireEvent.change(port, { target: { value: "99999" } });
    expect(screen.getByText("a port from 1 to 65535")).toBeTruthy();
    fireEvent.change(port, { target: { value: "8767" } });
    fireEvent.click(screen.getByRole("switch"));
    await waitFor(() => expect(calls.find(([c]) => c === "bridge_set")?.[1]).toEqual({ on: true, port: 8767 }));
    expect(await screen.findByText("http://127.0.0.1:8767/mcp")).toBeTruthy();
    // The token is not shown whole; Copy token copies all of it.
    expect(screen.queryByText("s3cr3t-token-value")).toBeNull();
    fireEvent.click(screen.getByText("Copy token"));
    await waitFor(() => expect(calls.find(([c]) => c === "copy_text")?.[1]).toEqual({ text: "s3cr3t-token-value" }));
    expect(screen.getByText("claude-code")).toBeTruthy();
    expect(screen.getByText("github__delete_repo")).toBeTruthy();
    fireEvent.click(screen.getByText("Allow once"));
    await waitFor(() =>
      expect(calls.find(([c]) => c === "decide_call")?.[1]).toMatchObject({ approval: 7, decision: { approve: true } }),
    );
    expect(screen.getByText("This bridge (HTTP, with the token)")).toBeTruthy();
    expect(screen.getByText("mcpwb serve (stdio: starts the servers itself)")).toBeTruthy();
    fireEvent.click(screen.getByRole("radio", { name: "Cursor" }));
    expect(await screen.findByText("Cursor has no headers for stdio")).toBeTruthy();
  });
});
