// The frame: the header with the room bar, the servers beside the room,
// the command palette (Ctrl+K) and the dialog for what servers ask. The
// rooms themselves live in rooms.tsx.
import { Suspense, useEffect, useMemo, useState, type KeyboardEvent } from "react";
import { Moon, Search, Settings, Sun } from "lucide-react";
import { IconButton, Pane, PaneHandle, Panes, Skeleton, setThemeChoice, useTheme, useToast } from "../design";
import { AskDialog } from "../asks/AskDialog";
import type { Backend } from "../ipc";
import { CommandPalette, type Command } from "../components/CommandPalette";
import { ROOMS, room } from "./rooms";
import { useRoute, type RoomId } from "./route";
import { FirstStart } from "./FirstStart";
import { openPlace } from "./places";
import { Sidebar } from "./Sidebar";
import { useTraffic, useWorkbench } from "./workbench";

/** The rooms as a tablist: one tab in the Tab order (the open room's),
 * the arrow keys, Home and End move between them and open the one moved to. */
export function RoomBar({ active, go }: { active: RoomId; go: (room: RoomId) => void }) {
  const wb = useWorkbench();
  const traffic = useTraffic();
  const tabs = ROOMS.filter((r) => r.nav);
  const focusable = tabs.some((r) => r.id === active) ? active : tabs[0]?.id;
  const onKeyDown = (e: KeyboardEvent<HTMLElement>) => {
    const at = tabs.findIndex((r) => r.id === (e.target as HTMLElement).dataset.room);
    if (at < 0) return;
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    if (!next) return;
    go(next.id);
    e.currentTarget.querySelector<HTMLElement>(`[data-room="${next.id}"]`)?.focus();
  };
  return (
    <nav className="room-bar" role="tablist" aria-label="Views" onKeyDown={onKeyDown}>
      {tabs.map((r) => {
        const count = r.count?.(wb, traffic);
        return (
          <button
            key={r.id}
            type="button"
            role="tab"
            data-room={r.id}
            aria-selected={active === r.id}
            tabIndex={r.id === focusable ? 0 : -1}
            className="room-tab"
            title={r.label}
            onClick={() => go(r.id)}
          >
            <r.icon aria-hidden size={15} />
            <span className="room-label">{r.label}</span>
            {count !== undefined && (
              <>
                {" "}
                <span className="room-count">({count.toLocaleString()})</span>
              </>
            )}
          </button>
        );
      })}
    </nav>
  );
}

export function Shell({ backend }: { backend: Backend }) {
  const wb = useWorkbench();
  const [route, go] = useRoute();
  const theme = useTheme();
  // Rooms of the bar stay mounted once visited.
  const [visited, setVisited] = useState<Set<RoomId>>(() => new Set([route.room]));
  if (!visited.has(route.room)) setVisited(new Set([...visited, route.room]));
  const current = room(route.room);
  const toast = useToast();
  // A bundle dropped anywhere on the window opens in the Registry room,
  // ready to install (nothing is written until the person installs it).
  useEffect(() => {
    let stop: (() => void) | null = null;
    let gone = false;
    backend
      .onFilesDropped((paths) => {
        const bundle = paths.find((p) => p.toLowerCase().endsWith(".mcpb"));
        if (bundle) go("registry", bundle);
        else toast("Not a bundle", { description: "Drop an MCP bundle (.mcpb) to install it." });
      })
      .then(
        (unlisten) => (gone ? unlisten() : (stop = unlisten)),
        () => undefined,
      );
    return () => {
      gone = true;
      stop?.();
    };
  }, [backend, go, toast]);
  // No server yet: the rooms that show what servers offer give their place
  // to the welcome and its one action, where the eye is.
  const list = wb.servers.data;
  const welcome = list && list.servers.length === 0 && list.problems.length === 0;
  const needsServers = (id: RoomId) => ["tools", "resources", "prompts", "skills", "traffic"].includes(id);
  const commands = useMemo<Command[]>(
    () => [
      ...ROOMS.filter((r) => r.nav).map((r) => ({ id: `view-${r.id}`, label: r.label, hint: "view", run: () => go(r.id) })),
      { id: "new-chat", label: "New chat", hint: "action", run: () => go("chat", "new") },
      { id: "add-server", label: "Add server", hint: "action", run: () => go("add") },
      { id: "edit-config", label: "Edit mcp.json", hint: "action", run: () => go("config") },
      { id: "registry", label: "MCP Registry: find a server and add it", hint: "action", run: () => go("registry") },
      { id: "import", label: "Import from other clients", hint: "action", run: () => go("import") },
      { id: "settings", label: "Settings: providers, approvals, appearance", hint: "action", run: () => go("settings") },
      { id: "bridge", label: "Bridge: serve every tool to other clients", hint: "action", run: () => go("bridge") },
      { id: "theme", label: `Switch to ${theme === "dark" ? "light" : "dark"} theme`, hint: "action", run: () => setThemeChoice(theme === "dark" ? "light" : "dark") },
      { id: "hosts", label: "Hosts: tap a host's server (Claude, Cursor, VS Code…)", hint: "sessions", run: () => (go("sessions"), openPlace("hosts")) },
      { id: "run-evals", label: "Run evals: a suite's prompt cases with its models", hint: "suites", run: () => go("suites") },
      { id: "compare-calls", label: "Compare two calls", hint: "history", run: () => go("history") },
      { id: "export-traffic", label: "Export traffic", hint: "traffic", run: () => go("traffic") },
      { id: "export-session", label: "Export a host's session (JSON Lines, HAR)", hint: "sessions", run: () => go("sessions") },
      ...(wb.servers.data?.servers ?? []).flatMap((s) => {
        const state = wb.statuses.find((st) => st.name === s.name)?.state;
        return [
          { id: `server-${s.name}`, label: s.name, hint: "server", run: () => go("server", s.name) },
          { id: `doctor-${s.name}`, label: `Doctor: ${s.name}`, hint: "what is wrong with it", run: () => (go("server", s.name), openPlace("doctor", s.name)) },
          ...(state === "untrusted" ? [{ id: `trust-${s.name}`, label: `Trust: ${s.name}`, hint: "read what it runs, then trust it", run: () => go("server", s.name) }] : []),
          ...(s.transport !== "stdio" ? [{ id: `sign-in-${s.name}`, label: `Sign in: ${s.name}`, hint: "its sign-in", run: () => go("server", s.name) }] : []),
        ];
      }),
      ...(wb.tools.data ?? []).map((t) => ({
        id: `tool-${t.qualified}`,
        label: t.qualified,
        hint: `tool · ${String((t.tool as { title?: string }).title ?? "")}`,
        run: () => go("tools", t.qualified),
      })),
      ...(wb.tools.data ?? []).map((t) => ({
        id: `load-${t.qualified}`,
        label: `Load: ${t.qualified}`,
        hint: "many calls at once",
        run: () => (go("tools", t.qualified), openPlace("load", `${t.server}/${String((t.tool as { name?: string }).name ?? "")}`)),
      })),
    ],
    [go, theme, wb.servers.data, wb.statuses, wb.tools.data],
  );
  return (
    <div className="app">
      <header className="app-header">
        <div className="brand">
          <span className="brand-mark" aria-hidden>
            ◆
          </span>
          <h1>MCP Workbench</h1>
        </div>
        <RoomBar active={current.nav ? current.id : route.room} go={(r) => go(r)} />
        <div className="header-tools">
          {wb.servers.data && (
            <span className="config-path truncate" title={`The mcp.json this window shows${wb.servers.data.project_path ? `, with ${wb.servers.data.project_path}` : ""}`}>
              {wb.servers.data.config_path}
              {wb.servers.data.project_path && <span className="project-path"> + {wb.servers.data.project_path}</span>}
            </span>
          )}
          <IconButton
            label="Command palette"
            shortcut="Ctrl+K"
            icon={Search}
            onClick={() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "k", ctrlKey: true }))}
          />
          <IconButton label={theme === "dark" ? "Light theme" : "Dark theme"} icon={theme === "dark" ? Sun : Moon} onClick={() => setThemeChoice(theme === "dark" ? "light" : "dark")} />
          <IconButton label="Settings" icon={Settings} onClick={() => go("settings")} aria-pressed={route.room === "settings"} />
        </div>
      </header>
      <div className="app-body">
        <Panes id="shell">
          <Pane id="sidebar" defaultSize={270} minSize={190} maxSize="45" collapsible className="sidebar-pane">
            <Sidebar wb={wb} backend={backend} route={route} go={go} />
          </Pane>
          <PaneHandle label="Resize the servers pane" />
          <Pane id="room" minSize={360} className="room-pane">
            <main className="main-pane" aria-label={current.label}>
              {ROOMS.filter((r) => r.nav && visited.has(r.id)).map((r) => (
                <div key={r.id} className="room" hidden={route.room !== r.id}>
                  {welcome && needsServers(r.id) ? (
                    <div className="room-scroll first-start">
                      <FirstStart backend={backend} configPath={list.config_path} exists={list.exists} go={go} />
                    </div>
                  ) : (
                    <Suspense fallback={<Skeleton lines={6} label={`Opening ${r.label}`} />}>
                      {r.render({ wb, backend, active: route.room === r.id, param: route.room === r.id ? route.param : undefined, go })}
                    </Suspense>
                  )}
                </div>
              ))}
              {!current.nav && (
                <div className="room">
                  <Suspense fallback={<Skeleton lines={6} label={`Opening ${current.label}`} />}>{current.render({ wb, backend, active: true, param: route.param, go })}</Suspense>
                </div>
              )}
            </main>
          </Pane>
        </Panes>
      </div>
      <CommandPalette commands={commands} />
      <AskDialog backend={backend} />
    </div>
  );
}
