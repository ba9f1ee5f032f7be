// The App through the real Tauri bindings, with the IPC answered by
// @tauri-apps/api/mocks: checks the command name, the shapes of the data and
// of errors as the Rust side sends them.
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { App } from "./App";
import { tauriBackend } from "./ipc";
import type { ServerList, ServerStatus_Serialize as ServerStatus } from "./bindings";

/** The IPC, answered by `handler`; tools and traffic are empty unless it says otherwise. */
function ipc(handler: (cmd: string, args: unknown) => unknown) {
  mockIPC(
    (cmd, args) => {
      if (["list_tools", "pending_asks", "list_resources", "list_prompts", "list_skills", "cache_hints", "needed_inputs", "doctor_counts"].includes(cmd)) return [];
      if (cmd === "traffic_page") return { total: 0, offset: 0, entries: [], last_seq: 0 };
      return handler(cmd, args);
    },
    { shouldMockEvents: true },
  );
}

function renderApp() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={client}>
      <App backend={tauriBackend} />
    </QueryClientProvider>,
  );
}

const demo = { name: "demo-stdio", transport: "stdio", target: "./mcp-demo-server", disabled: false, description: null, scope: "user", protocol: "auto" } as const;
const twoServers: ServerList = {
  config_path: "/home/me/mcp.json",
  project_path: null,
  exists: true,
  servers: [
    demo,
    { name: "remote", transport: "streamable_http", target: "http://127.0.0.1:1/mcp", disabled: true, description: null, scope: "user", protocol: "auto" },
  ],
  problems: [{ pointer: "/mcpServers/broken/url", message: "\"ftp://x\" is not an http:// or https:// URL", scope: "user" }],
};

describe("App", () => {
  it("the room bar is a tablist: every room named, arrow keys, Home and End move and open", async () => {
    ipc((cmd) => {
      if (cmd === "list_servers") return twoServers;
      if (cmd === "server_statuses") return [];
      return null;
    });
    renderApp();
    const bar = await screen.findByRole("tablist", { name: "Views" });
    const tabs = () => Array.from(bar.querySelectorAll<HTMLElement>("[role=tab]"));
    // Named for a newcomer, not only as a tooltip.
    expect(tabs().map((t) => t.querySelector(".room-label")?.textContent)).toEqual([
      "Chat", "Tools", "Resources", "Prompts", "Skills", "Traffic", "History", "Suites", "Sessions",
    ]);
    const selected = () => {
      const tab = tabs().find((t) => t.getAttribute("aria-selected") === "true");
      if (!tab) throw new Error("no tab is selected");
      return tab;
    };
    // One tab in the Tab order: the open room's.
    expect(tabs().filter((t) => t.tabIndex === 0)).toEqual([selected()]);
    const start = selected();
    start.focus();
    fireEvent.keyDown(start, { key: "ArrowRight" });
    await waitFor(() => expect(selected()).not.toBe(start));
    expect(document.activeElement).toBe(selected());
    fireEvent.keyDown(selected(), { key: "End" });
    await waitFor(() => expect(selected()?.dataset.room).toBe("sessions"));
    fireEvent.keyDown(selected(), { key: "ArrowRight" });
    await waitFor(() => expect(selected()?.dataset.room).toBe("chat"));
    fireEvent.keyDown(selected(), { key: "ArrowLeft" });
    await waitFor(() => expect(selected()?.dataset.room).toBe("sessions"));
    fireEvent.keyDown(selected(), { key: "Home" });
    await waitFor(() => expect(selected()?.dataset.room).toBe("chat"));
    // The room is remembered across starts: the next test starts where a first start does.
    localStorage.removeItem("mcpwb.tab");
  });

  it("Ctrl+K finds what is inside rooms: a server's Doctor and sign-in, a tool's Load, the Hosts", async () => {
    ipc((cmd) => {
      if (cmd === "list_servers") return twoServers;
      if (cmd === "server_statuses") return [{ name: "demo-stdio", state: "untrusted", info: null }];
      if (cmd.startsWith("list_") || cmd === "host_files") return [];
      return null;
    });
    renderApp();
    await screen.findByText("demo-stdio");
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    const palette = await screen.findByRole("dialog", { name: "Command palette" });
    const search = within(palette).getByRole("textbox");
    const found = (query: string) => {
      fireEvent.change(search, { target: { value: query } });
      return within(palette).queryAllByRole("option").map((o) => o.textContent ?? "");
    };
    expect(found("doctor").some((o) => o.includes("Doctor: demo-stdio"))).toBe(true);
    expect(found("trust").some((o) => o.includes("Trust: demo-stdio"))).toBe(true);
    expect(found("sign in").some((o) => o.includes("Sign in: remote"))).toBe(true);
    expect(found("sign in").some((o) => o.includes("Sign in: demo-stdio"))).toBe(false);
    expect(found("evals").some((o) => o.includes("Run evals"))).toBe(true);
    const hosts = found("hosts");
    expect(hosts.some((o) => o.includes("Hosts: tap a host's server"))).toBe(true);
    fireEvent.click(within(palette).getAllByRole("option").find((o) => o.textContent?.includes("Hosts:")) as HTMLElement);
    // The Sessions room opens on its Hosts.
    await waitFor(() => expect(screen.getByRole("button", { name: "Hosts" }).getAttribute("aria-pressed")).toBe("true"));
    localStorage.removeItem("mcpwb.tab");
  });

  it("lists the servers the backend returns, with transport and state", async () => {
    const calls: string[] = [];
    ipc(
      (cmd) => {
        calls.push(cmd);
        if (cmd === "list_servers") return twoServers;
        if (cmd === "server_statuses") return [];
        throw new Error(`unexpected command ${cmd}`);
      }
    );
    renderApp();
    expect(await screen.findByText("demo-stdio")).toBeTruthy();
    expect(screen.getByText("remote")).toBeTruthy();
    expect(screen.getByText("HTTP")).toBeTruthy();
    expect(screen.getByText("disabled")).toBeTruthy();
    expect(screen.getByText("/home/me/mcp.json")).toBeTruthy();
    expect(screen.getByText("/mcpServers/broken/url")).toBeTruthy();
    expect(calls.sort()).toEqual(["list_servers", "server_statuses"]);
  });

  it("with a project folder open, each server says which file it comes from", async () => {
    ipc((cmd) => {
      if (cmd === "list_servers")
        return {
          ...twoServers,
          project_path: "/src/app/.mcp.json",
          servers: [demo, { ...demo, name: "linter", scope: "project" }],
        };
      if (cmd === "server_statuses") return [];
      throw new Error(`unexpected command ${cmd}`);
    });
    renderApp();
    expect(await screen.findByText("linter")).toBeTruthy();
    const scopeOf = (name: string) =>
      screen.getByText(name).closest("li")?.querySelector("[class*=scope-]")?.textContent;
    expect(scopeOf("demo-stdio")).toBe("user");
    expect(scopeOf("linter")).toBe("project");
    expect(screen.getByText("+ /src/app/.mcp.json")).toBeTruthy();
  });

  it("without a project folder no file badges are shown", async () => {
    ipc((cmd) => {
      if (cmd === "list_servers") return twoServers;
      if (cmd === "server_statuses") return [];
      throw new Error(`unexpected command ${cmd}`);
    });
    renderApp();
    expect(await screen.findByText("demo-stdio")).toBeTruthy();
    expect(document.querySelector("[class*=scope-]")).toBeNull();
  });

  it("shows a broken config's error with its code and a hint", async () => {
    ipc(
      (cmd) => {
        if (cmd === "server_statuses") return [];
        // Tauri rejects with the serialised error value, as the Rust command returns it.
        return Promise.reject({ code: "config_syntax", message: "/x/mcp.json:3:5: Expected a comma" });
      }
    );
    renderApp();
    const alert = await screen.findByRole("alert");
    expect(alert.getAttribute("data-code")).toBe("config_syntax");
    expect(alert.textContent).toContain("/x/mcp.json:3:5");
    expect(alert.textContent).toContain("nothing was changed on disk");
  });

  it("on a first start, says where servers will be saved, offers an example server and what other apps use", async () => {
    const added: string[] = [];
    ipc((cmd) => {
      if (cmd === "server_statuses") return [];
      if (cmd === "discover_configs") return [{ dialect: "claude_desktop", path: "/home/me/.config/Claude/claude_desktop_config.json", servers: ["a", "b"], notes: [], error: null }];
      if (cmd === "add_example_server") {
        added.push(cmd);
        return "example";
      }
      return { config_path: "/new/mcp.json", exists: false, servers: [], problems: [] };
    });
    renderApp();
    expect(await screen.findByText("Welcome: no mcp.json yet")).toBeTruthy();
    expect(screen.getByText("/new/mcp.json", { selector: ".empty-state code" })).toBeTruthy();
    expect(await screen.findByText("claude_desktop: 2 servers")).toBeTruthy();
    fireEvent.click(screen.getByText("Add an example server"));
    await waitFor(() => expect(added).toEqual(["add_example_server"]));
  });

  it("renders server-supplied text as text, never as HTML", async () => {
    ipc(
      (cmd) =>
        cmd === "server_statuses"
          ? []
          : { ...twoServers, servers: [{ ...demo, name: "<img src=x onerror=alert(1)>" }] }
    );
    const { container } = renderApp();
    await screen.findByText("<img src=x onerror=alert(1)>");
    expect(container.querySelector("img")).toBeNull();
  });

  it("shows each server's live state and follows status events", async () => {
    const starting: ServerStatus = { name: "demo-stdio", state: "starting", slow: false, info: null };
    ipc(
      (cmd) => {
        if (cmd === "list_servers") return twoServers;
        if (cmd === "server_statuses") return [starting];
        throw new Error(`unexpected command ${cmd}`);
      }
    );
    renderApp();
    expect(await screen.findByText("starting")).toBeTruthy();
    const ready: ServerStatus = {
      name: "demo-stdio",
      state: "ready",
      info: {
        protocol_version: "2025-11-25",
        name: "demo",
        title: null,
        version: "1.2.3",
        instructions: null,
        capabilities: {},
        transport: "stdio",
      },
    };
    await emit("server-status-changed", { status: ready });
    expect(await screen.findByText("ready")).toBeTruthy();
    expect(screen.getByText("demo 1.2.3 · protocol 2025-11-25")).toBeTruthy();
    expect(document.querySelector(".server-counts")?.textContent).toBe("0 tools · 0 resources · 0 prompts");
    const failed: ServerStatus = {
      name: "demo-stdio",
      state: "restarting",
      code: "exited",
      attempt: 2,
      reason: "the server exited with status 3",
      stderr: ["boom"],
      next_try_in_ms: 2000,
      info: null,
    };
    await emit("server-status-changed", { status: failed });
    expect(await screen.findByText("retry 2")).toBeTruthy();
    expect(screen.getByText("the server exited with status 3 · next try in 2 s")).toBeTruthy();
  });

  it("refetches the list when mcp.json changes on disk and says when it cannot be used", async () => {
    let list = twoServers;
    ipc(
      (cmd) => {
        if (cmd === "list_servers") return list;
        if (cmd === "server_statuses") return [];
        throw new Error(`unexpected command ${cmd}`);
      }
    );
    renderApp();
    expect(await screen.findByText("demo-stdio")).toBeTruthy();
    list = { ...twoServers, servers: [{ ...demo, name: "added-elsewhere" }] };
    await emit("config-changed", { own: false, error: null, added: ["added-elsewhere"], changed: [], removed: [], untrusted: [], disabled: [] });
    expect(await screen.findByText("added-elsewhere")).toBeTruthy();
    expect(screen.getByText("mcp.json changed on disk: started added-elsewhere.")).toBeTruthy();
    // One added from elsewhere waits for the person's trust: not "started".
    await emit("config-changed", { own: false, error: null, added: ["cloned"], changed: [], removed: [], untrusted: ["cloned"], disabled: [] });
    expect(await screen.findByText("mcp.json changed on disk: cloned waits for your trust.")).toBeTruthy();
    await emit("config-changed", { own: false, error: "mcp.json:3:7: expected a value", added: [], changed: [], removed: [], untrusted: [], disabled: [] });
    expect(await screen.findByText(/changed on disk but cannot be used: mcp.json:3:7/)).toBeTruthy();
    // Fixed back: nothing changed, and the banner goes.
    await emit("config-changed", { own: false, error: null, added: [], changed: [], removed: [], untrusted: [], disabled: [] });
    await waitFor(() => expect(screen.queryByText(/cannot be used/)).toBeNull());
  });

  it("the app's own saves are not announced as changes on disk", async () => {
    let list = twoServers;
    ipc((cmd) => {
      if (cmd === "list_servers") return list;
      if (cmd === "server_statuses") return [];
      throw new Error(`unexpected command ${cmd}`);
    });
    renderApp();
    expect(await screen.findByText("demo-stdio")).toBeTruthy();
    list = { ...twoServers, servers: [...twoServers.servers, { ...demo, name: "added-here" }] };
    await emit("config-changed", { own: true, error: null, added: ["added-here"], changed: [], removed: [], untrusted: [], disabled: [] });
    expect(await screen.findByText("added-here")).toBeTruthy();
    expect(screen.queryByText(/changed on disk/)).toBeNull();
  });

  it("a status event newer than a slow status fetch wins", async () => {
    let release: (v: unknown) => void = () => undefined;
    let calls = 0;
    const starting: ServerStatus = { name: "demo-stdio", state: "starting", slow: false, info: null };
    ipc((cmd) => {
      if (cmd === "list_servers") return twoServers;
      if (cmd === "server_statuses") {
        calls += 1;
        // The first answer is quick; the refetch after a config change is slow.
        return calls === 1 ? [starting] : new Promise((r) => (release = r));
      }
      throw new Error(`unexpected command ${cmd}`);
    });
    renderApp();
    expect(await screen.findByText("starting")).toBeTruthy();
    await emit("config-changed", { own: false, error: null, added: [], changed: ["demo-stdio"], removed: [], untrusted: [], disabled: [] });
    await waitFor(() => expect(calls).toBe(2));
    const ready: ServerStatus = { name: "demo-stdio", state: "ready", info: null };
    await emit("server-status-changed", { status: ready });
    expect(await screen.findByText("ready")).toBeTruthy();
    release([starting]);
    await new Promise((r) => setTimeout(r, 50));
    expect(screen.getByText("ready")).toBeTruthy();
    expect(screen.queryByText("starting")).toBeNull();
  });
  it("asks for the lists once per burst of catalog changes, not once per change", async () => {
    let listed = 0;
    mockIPC(
      (cmd) => {
        if (cmd === "list_tools") {
          listed += 1;
          return [];
        }
        if (["pending_asks", "list_resources", "list_prompts", "needed_inputs", "doctor_counts"].includes(cmd)) return [];
        if (cmd === "traffic_page") return { total: 0, offset: 0, entries: [], last_seq: 0 };
        if (cmd === "list_servers") return twoServers;
        if (cmd === "server_statuses") return [];
        return null;
      },
      { shouldMockEvents: true },
    );
    renderApp();
    expect(await screen.findByText("demo-stdio")).toBeTruthy();
    await waitFor(() => expect(listed).toBeGreaterThan(0));
    const before = listed;
    // Fourteen servers coming up at once.
    for (let i = 0; i < 14; i++) await emit("catalog-changed", { server: `demo-${i}` });
    await waitFor(() => expect(listed).toBe(before + 1));
    await new Promise((r) => setTimeout(r, 300));
    expect(listed).toBe(before + 1);
    // A change after the burst is asked for again.
    await emit("catalog-changed", { server: "demo-0" });
    await waitFor(() => expect(listed).toBe(before + 2));
  });

  it("an open tool's recent calls follow the History as it is written, not as it was when the call came back", async () => {
    let kept = 0;
    mockIPC(
      (cmd) => {
        if (cmd === "list_tools") return [{ qualified: "demo-stdio__echo", server: "demo-stdio", tool: { name: "echo", inputSchema: { type: "object" } }, stale: false }];
        if (["pending_asks", "list_resources", "list_prompts", "list_skills", "cache_hints", "needed_inputs", "doctor_counts"].includes(cmd)) return [];
        if (cmd === "traffic_page") return { total: 0, offset: 0, entries: [], last_seq: 0 };
        if (cmd === "list_servers") return twoServers;
        if (cmd === "server_statuses") return [];
        // The writer keeps a call a moment after it ended: one more each time it is asked after that.
        if (cmd === "tool_history")
          return Array.from({ length: kept }, (_, i) => ({ id: i, server: "demo-stdio", tool: "echo", origin: "window", duration_ms: 5, arguments: {}, is_error: false, status: "ok", started_at: "2026-11-30T00:00:00Z" }));
        return null;
      },
      { shouldMockEvents: true },
    );
    renderApp();
    await screen.findByText("demo-stdio");
    // Opened from the palette (the list is virtual: nothing is drawn without a layout here).
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    const palette = await screen.findByRole("dialog", { name: "Command palette" });
    fireEvent.change(within(palette).getByRole("textbox"), { target: { value: "echo" } });
    const [tool] = await within(palette).findAllByRole("option", { name: /demo-stdio__echo/ });
    fireEvent.click(tool as HTMLElement);
    await screen.findByRole("button", { name: /^Run/ });
    kept = 1;
    await emit("history-grew", { written: 1 });
    await waitFor(() => expect(screen.getByText("1 call · median 5 ms · max 5 ms")).toBeTruthy());
  });
});
