// The Sessions room: the connections real hosts (Claude, Cursor, VS Code,
// an SDK client) made with a server through `mcpwb tap`, followed while the
// tap's process writes them. Each session: the host as it named itself, the
// protocol, the server's command, and every message that passed, in order.
// Messages are the host's and the server's text: shown as text only.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { ArrowLeftRight } from "lucide-react";
import type { SessionsBackend, TapMessage, TapRow } from "../backendSessions";
import { Badge, EmptyState, Skeleton, plural } from "../design";
import { keys } from "../queries";
import "./sessions.css";

/** How often an open room reads the store again (a tap writes from another process). */
export const SESSIONS_REREAD_MS = 2000;

function when(ms: number) {
  return new Date(ms).toLocaleString();
}

/** What a message is, in a few words: its method, or what it answers. */
export function summary(m: TapMessage): string {
  if (m.cut) return "(kept cut)";
  try {
    const v = JSON.parse(m.text) as { method?: unknown; id?: unknown; error?: unknown };
    if (typeof v.method === "string") return v.id !== undefined ? `${v.method} (id ${JSON.stringify(v.id)})` : v.method;
    if (v.id !== undefined) return v.error !== undefined ? `error of ${JSON.stringify(v.id)}` : `result of ${JSON.stringify(v.id)}`;
    return "(not JSON-RPC)";
  } catch {
    return "(not JSON)";
  }
}

function pretty(m: TapMessage): string {
  try {
    return JSON.stringify(JSON.parse(m.text), null, 2);
  } catch {
    return m.text;
  }
}

function hostOf(s: TapRow) {
  return s.host ? `${s.host}${s.host_version ? ` ${s.host_version}` : ""}` : "(no handshake yet)";
}

export function SessionsRoom({ backend, active }: { backend: SessionsBackend; active: boolean }) {
  const [open, setOpen] = useState<number | null>(null);
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
  if (sessions.isPending) return <Skeleton label="Loading sessions" />;
  if (rows.length === 0) {
    return (
      <div className="room-scroll">
        <EmptyState icon={ArrowLeftRight} title="No sessions yet">
          <p>See what a real host does with your server: in the host&apos;s config (Claude Desktop, Cursor, VS Code, …), run the server through the workbench.</p>
          <pre className="sessions-example">{`"command": "mcpwb",\n"args": ["tap", "--", "node", "build/index.js"]`}</pre>
          <p>
            Every byte passes unchanged; each connection shows here as it happens. <code>mcpwb tap --server NAME</code> runs an entry of your
            mcp.json; <code>--watch GLOB</code> restarts it on change without the host losing its session.
          </p>
        </EmptyState>
      </div>
    );
  }
  const list = messages.data ?? [];
  const start = list[0]?.at_ms ?? selected?.started_at ?? 0;
  return (
    <div className="sessions-room">
      <nav className="sessions-list" aria-label="Sessions">
        <ol>
          {rows.map((s) => (
            <li key={s.id}>
              <button type="button" className="session-row" aria-current={s.id === selected?.id || undefined} onClick={() => setOpen(s.id)}>
                <span className="session-host">{hostOf(s)}</span>
                <span className="session-server">→ {s.server}</span>
                <span className="session-meta">
                  {s.protocol ?? "?"} · {plural(s.messages, "message")} · {when(s.started_at)}
                </span>
                {s.ended_at === null && <Badge tone="ok">live</Badge>}
              </button>
            </li>
          ))}
        </ol>
      </nav>
      {selected && (
        <section className="session-detail" aria-label={`Session ${selected.id}`}>
          <header className="session-card">
            <h2>{hostOf(selected)}</h2>
            <dl>
              <dt>Server</dt>
              <dd>
                {selected.server} <code>{selected.command}</code>
              </dd>
              <dt>Protocol</dt>
              <dd>{selected.protocol ?? "not negotiated"}</dd>
              <dt>When</dt>
              <dd>
                {when(selected.started_at)} – {selected.ended_at === null ? "still connected" : when(selected.ended_at)}
              </dd>
              {selected.dropped > 0 && (
                <>
                  <dt>Not kept</dt>
                  <dd>{plural(selected.dropped, "message")} passed but were not kept (the recorder fell behind)</dd>
                </>
              )}
            </dl>
            <p className="muted">
              Export it, serve it as a stand-in or make a suite of it: <code>mcpwb session export {selected.id}</code>,{" "}
              <code>mcpwb mock {selected.id}</code>, <code>mcpwb session to-suite {selected.id}</code>.
            </p>
          </header>
          <ol className="session-messages" aria-label="Messages">
            {list.map((m) => (
              <li key={m.seq} className={`session-message from-${m.direction}`}>
                <details>
                  <summary>
                    <span className="session-time">{((m.at_ms - start) / 1000).toFixed(3)} s</span>
                    <span className="session-dir">{m.direction === "host" ? "host → server" : "server → host"}</span>
                    <code className="session-what">{summary(m)}</code>
                    <span className="muted">{m.size.toLocaleString()} B</span>
                  </summary>
                  <pre>{pretty(m)}</pre>
                </details>
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  );
}
