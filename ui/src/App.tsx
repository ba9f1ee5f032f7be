import { useEffect, useRef, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Backend } from "./backend";
import { ToolsView } from "./tools/ToolsView";
import { TrafficView } from "./traffic/TrafficView";
import { AskDialog } from "./asks/AskDialog";
import { ResourcesView } from "./resources/ResourcesView";
import { PromptsView } from "./resources/PromptsView";
import { ServerPanel, type LogLine } from "./servers/ServerPanel";
import { ServerForm } from "./servers/ServerForm";
import { RawEditor } from "./servers/RawEditor";
import { ImportView } from "./servers/ImportView";
import { InputsBanner } from "./servers/InputsBanner";
import { CommandPalette, type Command } from "./components/CommandPalette";
import type { ServerStatus_Serialize as ServerStatus } from "./bindings";
import { ServerList } from "./components/ServerList";
import { ErrorBanner } from "./components/ErrorBanner";

type Tab = "tools" | "resources" | "prompts" | "traffic" | "server" | "add" | "config" | "import";

/** Entries the window keeps (the core keeps its own bounded log per server). */

export function App({ backend }: { backend: Backend }) {
  const queryClient = useQueryClient();
  const servers = useQuery({ queryKey: ["servers"], queryFn: () => backend.listServers() });
  // When each server's last status event came: a fetched snapshot older
  // than that must not overwrite it (events and fetches race).
  const statusEventAt = useRef(new Map<string, number>());
  const statuses = useQuery({
    queryKey: ["statuses"],
    queryFn: async () => {
      const asked = performance.now();
      const fetched = await backend.serverStatuses();
      const current = queryClient.getQueryData<ServerStatus[]>(["statuses"]) ?? [];
      return fetched.map((s) => {
        const newer = (statusEventAt.current.get(s.name) ?? -1) > asked;
        return newer ? (current.find((c) => c.name === s.name) ?? s) : s;
      });
    },
  });
  const tools = useQuery({ queryKey: ["tools"], queryFn: () => backend.listTools() });
  const [tab, setTabState] = useState<Tab>(() => {
    const saved = localStorage.getItem("mcpwb.tab");
    return saved === "resources" || saved === "prompts" || saved === "traffic" ? saved : "tools";
  });
  const setTab = (t: Tab) => {
    setTabState(t);
    // The views worth coming back to are remembered (not forms).
    if (t === "tools" || t === "resources" || t === "prompts" || t === "traffic") localStorage.setItem("mcpwb.tab", t);
  };
  const [selectedServer, setSelectedServer] = useState<string | null>(null);
  const [selectedTool, setSelectedTool] = useState<string | null>(null);
  const [logs, setLogs] = useState<LogLine[]>([]);
  const resources = useQuery({ queryKey: ["resources"], queryFn: () => backend.listResources() });
  const prompts = useQuery({ queryKey: ["prompts"], queryFn: () => backend.listPrompts() });
  // Resources whose subscription said they changed: "server uri".
  const [updated, setUpdated] = useState<string[]>([]);
  // The traffic log stays in the core; the window knows its size and its
  // newest entry, and views fetch the page they show when these change.
  const [traffic, setTraffic] = useState({ total: 0, lastSeq: 0 });
  useEffect(() => {
    let cancelled = false;
    let unlisten: (() => void) | undefined;
    void backend
      .onTrafficGrew((total, lastSeq) => setTraffic({ total, lastSeq }))
      .then((u) => {
        if (cancelled) u();
        else unlisten = u;
      });
    void backend
      .trafficPage({ limit: 0 })
      .then((page) => !cancelled && setTraffic((t) => (t.lastSeq >= page.last_seq ? t : { total: page.total, lastSeq: page.last_seq })))
      .catch(() => undefined);
    return () => {
      cancelled = true;
      unlisten?.();
    };
  }, [backend]);
  // Set when mcp.json changed on disk into something that cannot be used.
  const [configError, setConfigError] = useState<string | null>(null);
  // What the last change on disk did to the servers.
  const [configNotice, setConfigNotice] = useState<string | null>(null);
  // Bumped on every change of the file on disk (the raw editor watches it).
  const [diskVersion, setDiskVersion] = useState(0);
  // Live state: each event replaces that server's entry; a config change
  // refetches the list.
  useEffect(() => {
    const unlisteners: (() => void)[] = [];
    let cancelled = false;
    const keep = (u: () => void) => {
      if (cancelled) u();
      else unlisteners.push(u);
    };
    void backend
      .onServerStatus((status) => {
        statusEventAt.current.set(status.name, performance.now());
        queryClient.setQueryData<ServerStatus[]>(["statuses"], (old = []) => {
          const rest = old.filter((s) => s.name !== status.name);
          return [...rest, status];
        });
      })
      .then(keep);
    void backend
      .onCatalogChanged(() => {
        for (const key of ["tools", "resources", "prompts"]) void queryClient.invalidateQueries({ queryKey: [key] });
      })
      .then(keep);
    void backend
      .onServerLog((server, level, data) => setLogs((old) => [...old.slice(-1999), { server, level, data }]))
      .then(keep);
    void backend
      .onResourceUpdated((server, uri) => setUpdated((old) => (old.includes(`${server} ${uri}`) ? old : [...old, `${server} ${uri}`])))
      .then(keep);
    void backend
      .onConfigChanged((change) => {
        setConfigError(change.error ?? null);
        setDiskVersion((v) => v + 1);
        const parts = [
          change.added.length ? `started ${change.added.join(", ")}` : "",
          change.changed.length ? `restarted ${change.changed.join(", ")}` : "",
          change.removed.length ? `stopped ${change.removed.join(", ")}` : "",
        ].filter(Boolean);
        setConfigNotice(change.error || parts.length === 0 ? null : `mcp.json changed on disk: ${parts.join("; ")}.`);
        void queryClient.invalidateQueries({ queryKey: ["servers"] });
        void queryClient.invalidateQueries({ queryKey: ["statuses"] });
        void queryClient.invalidateQueries({ queryKey: ["tools"] });
        void queryClient.invalidateQueries({ queryKey: ["inputs"] });
      })
      .then(keep);
    return () => {
      cancelled = true;
      unlisteners.forEach((u) => u());
    };
  }, [backend, queryClient]);
  const commands: Command[] = [
    { id: "view-tools", label: "Tools", hint: "view", run: () => setTab("tools") },
    { id: "view-resources", label: "Resources", hint: "view", run: () => setTab("resources") },
    { id: "view-prompts", label: "Prompts", hint: "view", run: () => setTab("prompts") },
    { id: "view-traffic", label: "Traffic", hint: "view", run: () => setTab("traffic") },
    { id: "add-server", label: "Add server", hint: "action", run: () => setTab("add") },
    { id: "edit-config", label: "Edit mcp.json", hint: "action", run: () => setTab("config") },
    { id: "import", label: "Import from other clients", hint: "action", run: () => setTab("import") },
    ...(servers.data?.servers ?? []).map((s) => ({
      id: `server-${s.name}`,
      label: s.name,
      hint: "server",
      run: () => {
        setSelectedServer(s.name);
        setTab("server");
      },
    })),
    ...(tools.data ?? []).map((t) => ({
      id: `tool-${t.qualified}`,
      label: t.qualified,
      hint: `tool · ${String((t.tool as { title?: string }).title ?? "")}`,
      run: () => {
        setSelectedTool(t.qualified);
        setTab("tools");
      },
    })),
  ];
  return (
    <div className="app">
      <header className="app-header">
        <h1>MCP Workbench</h1>
        {servers.data && (
          <span className="config-path" title="The mcp.json this window shows">
            {servers.data.config_path}
          </span>
        )}
        {servers.data?.project_path && (
          <span className="config-path project-path" title="The project's .mcp.json, merged over the user's file">
            + {servers.data.project_path}
          </span>
        )}
      </header>
      <div className="app-body">
        <aside className="sidebar" aria-label="Servers">
          <InputsBanner backend={backend} />
          {configNotice && (
            <div role="status" className="notice">
              <p>{configNotice}</p>
              <button type="button" onClick={() => setConfigNotice(null)}>
                OK
              </button>
            </div>
          )}
          {configError && (
            <div role="status" className="error-banner" data-code="config_changed">
              <p className="error-message">mcp.json changed on disk but cannot be used: {configError}</p>
              <p className="error-hint">The servers keep running as they were. Fix the file and save it.</p>
            </div>
          )}
          {servers.isPending && <p className="muted">Reading mcp.json…</p>}
          {servers.isError && (
            <ErrorBanner error={servers.error} onRetry={() => void servers.refetch()} />
          )}
          <div className="sidebar-actions">
            <button type="button" onClick={() => setTab("add")}>
              Add server
            </button>
            <button type="button" onClick={() => setTab("config")}>
              Edit mcp.json
            </button>
            <button type="button" onClick={() => setTab("import")}>
              Import…
            </button>
          </div>
          {servers.data && (
            <ServerList
              list={servers.data}
              statuses={statuses.data ?? []}
              counts={(name) => {
                const n = <T extends { server: string }>(list: T[] | undefined) => (list ?? []).filter((x) => x.server === name).length;
                return { tools: n(tools.data), resources: n(resources.data), prompts: n(prompts.data) };
              }}
              selected={tab === "server" ? selectedServer : null}
              onSelect={(name) => {
                setSelectedServer(name);
                setTab("server");
              }}
            />
          )}
        </aside>
        <main className="main-pane">
          <nav className="tabs" role="tablist" aria-label="Views">
            <button type="button" role="tab" aria-selected={tab === "tools"} onClick={() => setTab("tools")}>
              Tools{tools.data ? ` (${tools.data.length})` : ""}
            </button>
            <button type="button" role="tab" aria-selected={tab === "resources"} onClick={() => setTab("resources")}>
              Resources{resources.data ? ` (${resources.data.length})` : ""}
            </button>
            <button type="button" role="tab" aria-selected={tab === "prompts"} onClick={() => setTab("prompts")}>
              Prompts{prompts.data ? ` (${prompts.data.length})` : ""}
            </button>
            <button type="button" role="tab" aria-selected={tab === "traffic"} onClick={() => setTab("traffic")}>
              Traffic ({traffic.total.toLocaleString()})
            </button>
          </nav>
          {tab === "tools" && (
            <>
              {tools.isError && <ErrorBanner error={tools.error} onRetry={() => void tools.refetch()} />}
              <ToolsView backend={backend} tools={tools.data ?? []} selected={selectedTool} onSelect={setSelectedTool} />
            </>
          )}
          {tab === "server" && selectedServer && (() => {
            const summary = servers.data?.servers.find((s) => s.name === selectedServer);
            if (!summary) return <p className="empty-state">{selectedServer} is no longer in mcp.json.</p>;
            const count = <T extends { server: string }>(list: T[] | undefined) => (list ?? []).filter((x) => x.server === selectedServer).length;
            return (
              <div className="tool-detail">
                <ServerPanel
                  key={selectedServer}
                  backend={backend}
                  summary={summary}
                  status={(statuses.data ?? []).find((s) => s.name === selectedServer)}
                  counts={{ tools: count(tools.data), resources: count(resources.data), prompts: count(prompts.data) }}
                  names={(servers.data?.servers ?? []).map((s) => s.name)}
                  logs={logs.filter((l) => l.server === selectedServer)}
                  trafficVersion={traffic.lastSeq}
                  hasProject={Boolean(servers.data?.project_path)}
                  onGone={(renamed) => {
                    setSelectedServer(renamed);
                    if (!renamed) setTab("tools");
                  }}
                />
              </div>
            );
          })()}
          {tab === "add" && (
            <div className="tool-detail">
              <ServerForm
                backend={backend}
                existingNames={(servers.data?.servers ?? []).map((s) => s.name)}
                hasProject={Boolean(servers.data?.project_path)}
                onDone={(name) => {
                  if (name) {
                    setSelectedServer(name);
                    setTab("server");
                  } else setTab("tools");
                }}
              />
            </div>
          )}
          {tab === "config" && <RawEditor backend={backend} onClose={() => setTab("tools")} diskVersion={diskVersion} hasProject={Boolean(servers.data?.project_path)} />}
          {tab === "import" && (
            <div className="tool-detail">
              <ImportView backend={backend} ours={(servers.data?.servers ?? []).map((s) => s.name)} onDone={() => setTab("tools")} />
            </div>
          )}
          {tab === "resources" && <ResourcesView backend={backend} rows={resources.data ?? []} updated={updated} />}
          {tab === "prompts" && <PromptsView backend={backend} rows={prompts.data ?? []} />}
          {tab === "traffic" && (
            <TrafficView backend={backend} version={traffic.lastSeq} logSize={traffic.total} servers={(servers.data?.servers ?? []).map((s) => s.name)} />
          )}
        </main>
      </div>
      <CommandPalette commands={commands} />
      <AskDialog backend={backend} />
    </div>
  );
}
