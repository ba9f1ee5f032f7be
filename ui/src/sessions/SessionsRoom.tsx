// The Sessions room: the connections real hosts (Claude, Cursor, VS Code,
// an SDK client) made with a server through `mcpwb tap`, followed while the
// tap's process writes them. Each session: the host's card (what it
// offered, declared and called), every message that passed in order, errors
// and slow answers marked. Open a session file; route a host's server
// through the tap (Hosts). Messages are the host's and the server's text:
// shown as text only.
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeftRight, Cable, FolderOpen } from "lucide-react";
import type { SessionsBackend } from "../ipc/sessions";
import { Badge, Button, EmptyState, Skeleton, plural, useToast } from "../design";
import { keys } from "../queries";
import { usePlace } from "../shell/places";
import type { RoomId } from "../shell/route";
import { HostsPanel } from "./HostsPanel";
import { SessionCard, hostOf } from "./SessionCard";
import { SessionMessages } from "./SessionMessages";
import "./sessions.css";

/** How often an open room reads the store again (a tap writes from another process). */
export const SESSIONS_REREAD_MS = 2000;

function when(ms: number) {
  return new Date(ms).toLocaleString();
}

export function SessionsRoom({
  backend,
  active,
  go,
  servers = [],
}: {
  backend: SessionsBackend;
  active: boolean;
  go?: (room: RoomId, param?: string) => void;
  /** The config's servers (a suite made of a session calls one). */
  servers?: string[];
}) {
  const [open, setOpen] = useState<number | null>(null);
  const [hosts, setHosts] = useState(false);
  // Opened from the command palette (Hosts).
  usePlace("hosts", "", () => setHosts(true));
  const toast = useToast();
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: keys.sessions(),
    queryFn: () => backend.listSessions(200),
    refetchInterval: active ? SESSIONS_REREAD_MS : false,
  });
  const rows = sessions.data ?? [];
  const selected = rows.find((s) => s.id === open) ?? rows[0];
  const running = selected ? selected.ended_at === null : false;
  const messages = useQuery({
    queryKey: keys.sessionMessages(selected?.id ?? null),
    queryFn: () => (selected ? backend.sessionMessages(selected.id) : Promise.resolve([])),
    enabled: Boolean(selected),
    refetchInterval: active && running ? SESSIONS_REREAD_MS : false,
  });
  const openFile = async () => {
    try {
      const id = await backend.importSession();
      if (id === null) return;
      await queryClient.invalidateQueries({ queryKey: keys.sessions() });
      setHosts(false);
      setOpen(id);
      toast(`Session ${id} opened`);
    } catch (e) {
      toast("The session file was not opened", { description: e instanceof Error ? e.message : String(e), tone: "danger" });
    }
  };
  const bar = (
    <div className="sessions-bar">
      <Button size="sm" icon={FolderOpen} onClick={() => void openFile()}>
        Open…
      </Button>
      <Button size="sm" icon={Cable} aria-pressed={hosts} onClick={() => setHosts((h) => !h)}>
        Hosts
      </Button>
    </div>
  );
  if (sessions.isPending) return <Skeleton label="Loading sessions" />;
  if (rows.length === 0 && !hosts) {
    return (
      <div className="room-scroll">
        {bar}
        <EmptyState icon={ArrowLeftRight} title="No sessions yet">
          <p>See what a real host does with your server: in the host&apos;s config (Claude Desktop, Cursor, VS Code, …), run the server through the workbench.</p>
          <pre className="sessions-example">{`"command": "mcpwb",\n"args": ["tap", "--", "node", "build/index.js"]`}</pre>
          <p>
            Every byte passes unchanged; each connection shows here as it happens. <strong>Hosts</strong> does it for you in the host&apos;s own file;{" "}
            <code>mcpwb tap --to URL</code> taps an HTTP server; <code>--watch GLOB</code> restarts it on change without the host losing its session.
          </p>
        </EmptyState>
      </div>
    );
  }
  return (
    <div className="sessions-room">
      <nav className="sessions-list" aria-label="Sessions">
        {bar}
        <ol>
          {rows.map((s) => (
            <li key={s.id}>
              <button
                type="button"
                className="session-row"
                aria-current={(!hosts && s.id === selected?.id) || undefined}
                onClick={() => {
                  setHosts(false);
                  setOpen(s.id);
                }}
              >
                <span className="session-host">{hostOf(s)}</span>
                <span className="session-server">→ {s.server}</span>
                <span className="session-meta">
                  {s.protocol ?? "?"} · {plural(s.messages, "message")} · {when(s.started_at)}
                </span>
                {s.imported_from !== null ? (
                  <Badge tone="info" title={s.imported_from}>
                    from a file
                  </Badge>
                ) : (
                  s.ended_at === null && <Badge tone="ok">live</Badge>
                )}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      {hosts ? (
        <div className="session-detail">
          <HostsPanel backend={backend} />
        </div>
      ) : (
        selected && (
          <section className="session-detail" aria-label={`Session ${selected.id}`}>
            <SessionCard
              backend={backend}
              session={selected}
              others={rows.filter((r) => r.id !== selected.id)}
              messages={messages.data ?? []}
              servers={servers}
              onDeleted={() => setOpen(null)}
              onReview={go ? () => go("suites") : undefined}
            />
            <SessionMessages messages={messages.data ?? []} />
          </section>
        )
      )}
    </div>
  );
}
