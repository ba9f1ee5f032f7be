// The servers: actions (add, edit the file, the MCP Registry, import), what the file's last
// change did or why it cannot be used, needed inputs, and the list.
import { Cable, FileCog, Import, Library, Plus } from "lucide-react";
import { Button, Skeleton } from "../design";
import { ErrorBanner } from "../components/ErrorBanner";
import { ServerList } from "../components/ServerList";
import { InputsBanner } from "../servers/InputsBanner";
import type { Route, RoomId } from "./route";
import type { Workbench } from "./workbench";
import { openDoctor } from "./doctorLink";
import type { ConfigBackend, ServersBackend } from "../ipc";

export function Sidebar({ wb, backend, route, go }: { wb: Workbench; backend: ConfigBackend & ServersBackend; route: Route; go: (room: RoomId, param?: string) => void }) {
  const { servers } = wb;
  return (
    <aside className="sidebar" aria-label="Servers">
      <div className="sidebar-head">
        <h2 className="sidebar-title">Servers</h2>
        <div className="sidebar-actions">
          <Button size="sm" icon={Plus} onClick={() => go("add")}>
            Add server
          </Button>
          <Button size="sm" variant="ghost" icon={FileCog} onClick={() => go("config")}>
            Edit mcp.json
          </Button>
          <Button size="sm" variant="ghost" icon={Library} onClick={() => go("registry")} aria-pressed={route.room === "registry"}>
            Registry
          </Button>
          <Button size="sm" variant="ghost" icon={Import} onClick={() => go("import")}>
            Import…
          </Button>
          <Button size="sm" variant="ghost" icon={Cable} onClick={() => go("bridge")} aria-pressed={route.room === "bridge"}>
            Bridge
          </Button>
        </div>
      </div>
      {/* data-settled: the list (or what stands for it) is on screen; the start report waits for it. */}
      <div className="sidebar-scroll" data-settled={servers.isPending ? undefined : "true"}>
        <InputsBanner backend={backend} />
        {wb.configNotice && (
          <div role="status" className="callout notice">
            <p>{wb.configNotice}</p>
            <Button size="sm" onClick={wb.dismissNotice}>
              OK
            </Button>
          </div>
        )}
        {wb.configError && (
          <div role="status" className="error-banner" data-code="config_changed">
            <p className="error-message">mcp.json changed on disk but cannot be used: {wb.configError}</p>
            <p className="error-hint">The servers keep running as they were. Fix the file and save it.</p>
          </div>
        )}
        {servers.isPending && <Skeleton lines={4} label="Reading mcp.json" />}
        {servers.isError && <ErrorBanner error={servers.error} onRetry={() => void servers.refetch()} />}
        {servers.data && servers.data.servers.length === 0 && servers.data.problems.length === 0 && (
          <p className="muted sidebar-empty">No servers yet. Add one here, or start with the example beside.</p>
        )}
        {servers.data && (
          <ServerList
            list={servers.data}
            statuses={wb.statuses}
            counts={wb.counts}
            doctor={wb.doctor}
            selected={route.room === "server" ? (route.param ?? null) : null}
            onSelect={(name) => go("server", name)}
            onDoctor={(name) => {
              openDoctor(name);
              go("server", name);
            }}
          />
        )}
      </div>
    </aside>
  );
}
