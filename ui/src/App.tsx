import { useEffect, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { Backend } from "./backend";
import type { ServerStatus_Serialize as ServerStatus } from "./bindings";
import { ServerList } from "./components/ServerList";
import { ErrorBanner } from "./components/ErrorBanner";

export function App({ backend }: { backend: Backend }) {
  const queryClient = useQueryClient();
  const servers = useQuery({ queryKey: ["servers"], queryFn: () => backend.listServers() });
  const statuses = useQuery({ queryKey: ["statuses"], queryFn: () => backend.serverStatuses() });
  // Set when mcp.json changed on disk into something that cannot be used.
  const [configError, setConfigError] = useState<string | null>(null);
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
        queryClient.setQueryData<ServerStatus[]>(["statuses"], (old = []) => {
          const rest = old.filter((s) => s.name !== status.name);
          return [...rest, status];
        });
      })
      .then(keep);
    void backend
      .onConfigChanged((change) => {
        setConfigError(change.error ?? null);
        void queryClient.invalidateQueries({ queryKey: ["servers"] });
        void queryClient.invalidateQueries({ queryKey: ["statuses"] });
      })
      .then(keep);
    return () => {
      cancelled = true;
      unlisteners.forEach((u) => u());
    };
  }, [backend, queryClient]);
  return (
    <div className="app">
      <header className="app-header">
        <h1>MCP Workbench</h1>
        {servers.data && (
          <span className="config-path" title="The mcp.json this window shows">
            {servers.data.config_path}
          </span>
        )}
      </header>
      <div className="app-body">
        <aside className="sidebar" aria-label="Servers">
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
          {servers.data && <ServerList list={servers.data} statuses={statuses.data ?? []} />}
        </aside>
        <main className="main-pane">
          <div className="empty-state">
            <h2>Pick a server</h2>
            <p>
              Servers come from your mcp.json. Tools, resources, prompts and traffic appear here
              once a server is connected.
            </p>
          </div>
        </main>
      </div>
    </div>
  );
}
