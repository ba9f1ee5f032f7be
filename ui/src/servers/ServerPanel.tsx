// One server: state and why, what it said about itself, what it offers,
// actions (restart, stop, edit, duplicate, rename, enable/disable, remove),
// its logging level, its roots, its log messages and its stderr.
import { useEffect, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Copy, Pencil, Play, Power, RotateCw, Square, Trash2 } from "lucide-react";
import type { TrafficEntry } from "../ipc";
import type { ServerStatus_Serialize as ServerStatus, ServerSummary } from "../bindings";
import { StateBadge, StateDetail } from "../components/StateBadge";
import { Button, Disclosure, Select, Textarea, useToast, plural } from "../design";
import { Markdown } from "../content/Markdown";
import type { LogLine } from "../shell/workbench";
import { entryToForm, type EntryForm } from "./entryForm";
import { ServerForm } from "./ServerForm";
import { TrustCard } from "./TrustCard";
import { AuthPanel } from "./AuthPanel";
import { DoctorSection, SurfaceChangeSection } from "./DoctorView";
import { TasksSection } from "./TasksSection";
import { PublishSection } from "./PublishSection";
import type { SurfaceChange } from "../ipc/doctor";
import { keys } from "../queries";
import type { AuthBackend, ConfigBackend, DoctorBackend, ServersBackend, TasksBackend, TrafficBackend, WindowBackend } from "../ipc";

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Roots as typed, one per line: an absolute path (made a file:// URI) or a
 * URI as is; what is neither is said, not sent as a URI no server can read. */
export function rootsFrom(text: string): { roots: { uri: string; name: string }[]; wrong: string[] } {
  const roots: { uri: string; name: string }[] = [];
  const wrong: string[] = [];
  for (const line of text.split("\n").map((l) => l.trim()).filter(Boolean)) {
    const path = line.replace(/\/+$/, "") || "/";
    const name = path.split("/").filter(Boolean).pop() ?? path;
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(line)) roots.push({ uri: line, name: decodeURIComponent(name) });
    else if (line.startsWith("/")) roots.push({ uri: `file://${encodeURI(path)}`, name });
    else wrong.push(line);
  }
  return { roots, wrong };
}

function Roots({ backend, server }: { backend: ServersBackend; server: string }) {
  const [text, setText] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    backend.getRoots(server).then(
      (roots) => setText(roots.map((r) => String((r as { uri?: string }).uri ?? "")).join("\n")),
      () => undefined,
    );
  }, [backend, server]);
  const save = () => {
    const { roots, wrong } = rootsFrom(text);
    if (wrong.length > 0) {
      setSaved(`Not a folder's absolute path or a URI: ${wrong.join(", ")}`);
      return;
    }
    backend.setRoots(server, roots).then(
      () => setSaved(`Offered ${plural(roots.length, "root")}; the server was told they changed.`),
      (e: unknown) => setSaved(e instanceof Error ? e.message : String(e)),
    );
  };
  return (
    <Disclosure title="Roots" defaultOpen={false} className="panel-section">
      <p className="muted">Folders the server may work in (roots/list): one absolute path or file:// URI per line. Kept while the window is open.</p>
      <Textarea aria-label="Roots" className="json-field" value={text} onChange={(e) => setText(e.target.value)} />
      <div className="toolbar">
        <Button size="sm" onClick={save}>
          Offer these roots
        </Button>
        {saved && <span className="muted"> {saved}</span>}
      </div>
    </Disclosure>
  );
}

export function ServerPanel({
  backend,
  summary,
  status,
  counts,
  names,
  logs,
  trafficVersion,
  onGone,
  hasProject = false,
  change,
}: {
  /** What changed in its surface when it last came back. */
  change?: SurfaceChange;
  backend: ConfigBackend & ServersBackend & TrafficBackend & AuthBackend & WindowBackend & DoctorBackend & TasksBackend;
  summary: ServerSummary;
  /** A project folder is open (entries come from two files). */
  hasProject?: boolean;
  status: ServerStatus | undefined;
  counts: { tools: number; resources: number; templates?: number; prompts: number };
  names: string[];
  logs: LogLine[];
  /** Changes when the traffic log grows (its newest sequence number). */
  trafficVersion: number;
  onGone: (renamedTo: string | null) => void;
}) {
  const name = summary.name;
  const [editing, setEditing] = useState<{ form: EntryForm; duplicate: boolean } | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const toast = useToast();
  // The last 200 stderr lines, fetched again when the log grows.
  const [stderr, setStderr] = useState<{ lines: TrafficEntry[]; total: number }>({ lines: [], total: 0 });
  // The workbench's own notes about it (refusals, fallbacks), apart from its stderr.
  const [notes, setNotes] = useState<TrafficEntry[]>([]);
  // Open while the server is not ready and said something on stderr (its
  // reason is there), until the person opens or closes it themselves: the
  // lines arrive after the first render, so a default would miss them.
  const [stderrOpen, setStderrOpen] = useState<boolean | null>(null);
  useEffect(() => {
    let cancelled = false;
    backend.trafficPage({ server: name, direction: "stderr", limit: 200, from_end: true }).then(
      (page) => !cancelled && setStderr({ lines: page.entries, total: page.total }),
      () => undefined,
    );
    backend.trafficPage({ server: name, direction: "note", limit: 50, from_end: true }).then(
      (page) => !cancelled && setNotes(page.entries),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [backend, name, trafficVersion]);
  const act = (label: string, p: Promise<void>, done?: string) => {
    setMessage(`${label}…`);
    p.then(
      () => {
        setMessage(null);
        if (done) toast(done);
      },
      (e: unknown) => setMessage(`${label} failed: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  const openForm = (duplicate: boolean) => {
    backend.serverEntry(name).then(
      (entry) => {
        const form = entryToForm(name, entry);
        setEditing({ form: duplicate ? { ...form, name: `${name}-copy` } : form, duplicate });
      },
      (e: unknown) => setMessage(e instanceof Error ? e.message : String(e)),
    );
  };
  if (editing) {
    return (
      <ServerForm
        backend={backend}
        initial={editing.duplicate ? undefined : editing.form}
        existingNames={names}
        hasProject={hasProject}
        defaultScope={summary.scope}
        onDone={(saved) => {
          setEditing(null);
          if (saved && saved !== name) onGone(saved);
        }}
        seed={editing.duplicate ? editing.form : undefined}
      />
    );
  }
  const info = status?.info;
  const stopped = status?.state === "stopped" || status?.state === "disabled";
  const untrusted = status?.state === "untrusted";
  return (
    <div className="server-panel">
      <header className="room-header">
        <h2>
          {name} <StateBadge status={status} disabled={summary.disabled} />
        </h2>
        <StateDetail status={status} onItsPage />
        <p className="muted target-line">
          <code className="truncate" title={summary.target}>
            {summary.target}
          </code>
          {hasProject && <span className="entry-scope"> · from {summary.scope === "project" ? "the project's .mcp.json" : "your user file"}</span>}
        </p>
        {summary.description && <p>{summary.description}</p>}
      </header>
      {status?.state === "untrusted" && <TrustCard backend={backend} name={name} />}
      <div className="run-bar" role="toolbar" aria-label="Server actions">
        {summary.disabled ? (
          <Button
            variant="primary"
            icon={Power}
            onClick={() => act("Enable", backend.editServer({ kind: "set_disabled", name, disabled: false }), `${name} enabled`)}
          >
            Enable
          </Button>
        ) : (
          <>
            <Button icon={stopped ? Play : RotateCw} disabled={untrusted} onClick={() => act(stopped ? "Start" : "Restart", backend.restartServer(name), `${name} ${stopped ? "started" : "restarted"}`)}>
              {stopped ? "Start" : "Restart"}
            </Button>
            <Button icon={Square} disabled={stopped || untrusted} onClick={() => act("Stop", backend.stopServer(name), `${name} stopped`)}>
              Stop
            </Button>
          </>
        )}
        <Button icon={Pencil} onClick={() => openForm(false)}>
          Edit
        </Button>
        <Button icon={Copy} onClick={() => openForm(true)}>
          Duplicate
        </Button>
        {!summary.disabled && (
          <Button
            variant="ghost"
            icon={Power}
            onClick={() => act("Disable", backend.editServer({ kind: "set_disabled", name, disabled: true }), `${name} disabled`)}
          >
            Disable
          </Button>
        )}
        {confirmRemove ? (
          <>
            <span role="alert">Remove {name} from mcp.json?</span>
            <Button
              variant="danger"
              onClick={() => {
                setConfirmRemove(false);
                backend.editServer({ kind: "remove", name }).then(
                  () => {
                    toast(`${name} removed from mcp.json`);
                    onGone(null);
                  },
                  (e: unknown) => setMessage(e instanceof Error ? e.message : String(e)),
                );
              }}
            >
              Yes, remove
            </Button>
            <Button onClick={() => setConfirmRemove(false)}>Keep it</Button>
          </>
        ) : (
          <Button variant="ghost" icon={Trash2} onClick={() => setConfirmRemove(true)}>
            Remove…
          </Button>
        )}
        {message && <span role="status">{message}</span>}
      </div>
      {summary.transport !== "stdio" && !untrusted && <AuthPanel backend={backend} name={name} answers={status?.state === "ready"} />}
      {info && (
        <section className="panel-section facts">
          <dl className="facts-grid">
            <dt>Server</dt>
            <dd>
              {info.title ?? info.name} {info.version}
            </dd>
            <dt>Protocol</dt>
            <dd>
              {info.protocol_version} · {info.transport}
              {summary.protocol !== "auto" && <span className="badge tone-info pinned">pinned in mcp.json</span>}
            </dd>
            <dt>Offers</dt>
            <dd>
              {plural(counts.tools, "tool")} · {plural(counts.resources, "resource")}
              {counts.templates ? ` · ${plural(counts.templates, "template")}` : ""} · {plural(counts.prompts, "prompt")}
            </dd>
          </dl>
          {info.instructions && (
            <Disclosure title="Instructions">
              <div className="instructions">
                <Markdown text={info.instructions} />
              </div>
            </Disclosure>
          )}
          <Disclosure title="Capabilities" defaultOpen={false}>
            <pre className="json" tabIndex={0}>{JSON.stringify(info.capabilities, null, 2)}</pre>
          </Disclosure>
          <label className="field">
            <span className="field-label">Logging level</span>
            <Select aria-label="Logging level" defaultValue="" onChange={(v) => v && act("Set level", backend.setLogLevel(name, v))}>
              <option value="">(server default)</option>
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </Select>
          </label>
        </section>
      )}
      {change && <SurfaceChangeSection change={change} />}
      <DoctorSection backend={backend} name={name} ready={status?.state === "ready"} />
      <PublishSection backend={backend} name={name} />
      <TasksSection backend={backend} name={name} ready={status?.state === "ready"} />
      <Roots backend={backend} server={name} />
      <Life backend={backend} name={name} status={status} />
      <Disclosure title="Log messages" count={logs.length} defaultOpen={logs.length > 0} className="panel-section">
        {logs.length === 0 ? (
          <p className="muted">None yet. Messages the server sends (notifications/message) appear here, with their time and level.</p>
        ) : (
          <ol className="console" aria-label="Log messages">
            {logs.slice(-200).map((l, i) => (
              <li key={i} className={`log-line log-${l.level}`}>
                <time className="log-time">{new Date(l.at).toLocaleTimeString(undefined, { hour12: false })}</time>
                <span className={`log-level log-${l.level}`}>{l.level}</span>
                <span className="log-data">{l.data}</span>
              </li>
            ))}
          </ol>
        )}
      </Disclosure>
      {notes.length > 0 && (
        <Disclosure title="Notes from the workbench" count={notes.length} defaultOpen={false} className="panel-section">
          <ol className="console" aria-label="Notes from the workbench">
            {notes.map((n) => (
              <li key={n.seq}>
                <time className="log-time">{new Date(n.time_ms ?? 0).toLocaleTimeString(undefined, { hour12: false })}</time> <span className="log-data">{n.body}</span>
              </li>
            ))}
          </ol>
        </Disclosure>
      )}
      <Disclosure title="stderr" count={stderr.total.toLocaleString()} open={stderrOpen ?? (stderr.total > 0 && status?.state !== "ready")} onOpenChange={setStderrOpen} className="panel-section">
        {stderr.total === 0 ? <p className="muted">Nothing on stderr.</p> : <pre className="console">{stderr.lines.map((e) => e.body).join("\n")}</pre>}
      </Disclosure>
    </div>
  );
}

/** Each change of the server's state, so a crash leaves a trace once it is back. */
function Life({ backend, name, status }: { backend: ServersBackend; name: string; status?: ServerStatus }) {
  // Asked again whenever the state changes.
  const life = useQuery({ queryKey: keys.serverLife(name, status?.state, status && "attempt" in status ? status.attempt : 0), queryFn: () => backend.serverLife(name) });
  const events = [...(life.data ?? [])].reverse();
  const trouble = events.filter((e) => e.state === "failed").length;
  return (
    <Disclosure title="Events" count={events.length} defaultOpen={false} className="panel-section">
      {trouble > 0 && <p className="muted">{trouble === 1 ? "1 failure" : `${trouble} failures`} since the workbench started it.</p>}
      <ol className="console server-life" aria-label="Server events">
        {events.map((e, i) => (
          <li key={i} className={`life-${e.state}`}>
            <time className="log-time">{new Date(e.at_ms ?? 0).toLocaleTimeString(undefined, { hour12: false })}</time>
            <span className="log-level">{e.state === "restarting" && e.attempt ? `restart ${e.attempt}` : e.state}</span>
            {e.code && <code>{e.code}</code>}
            {e.reason && <span className="log-data">{e.reason}</span>}
          </li>
        ))}
      </ol>
    </Disclosure>
  );
}
