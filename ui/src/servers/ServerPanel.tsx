// One server: state and why, what it said about itself, what it offers,
// actions (restart, stop, edit, duplicate, rename, enable/disable, remove),
// its logging level, its roots, its log messages and its stderr.
import { useEffect, useState } from "react";
import type { Backend, TrafficEntry } from "../backend";
import type { ServerStatus_Serialize as ServerStatus, ServerSummary } from "../bindings";
import { StateBadge, StateDetail } from "../components/StateBadge";
import { entryToForm, type EntryForm } from "./entryForm";
import { ServerForm } from "./ServerForm";

export type LogLine = { server: string; level: string; data: string };

const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

function Roots({ backend, server }: { backend: Backend; server: string }) {
  const [text, setText] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    backend.getRoots(server).then(
      (roots) => setText(roots.map((r) => String((r as { uri?: string }).uri ?? "")).join("\n")),
      () => undefined,
    );
  }, [backend, server]);
  const save = () => {
    const roots = text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .map((uri) => ({ uri: uri.includes("://") ? uri : `file://${uri}`, name: uri.split("/").filter(Boolean).pop() ?? uri }));
    backend.setRoots(server, roots).then(
      () => setSaved(`offered ${roots.length} root(s)`),
      (e: unknown) => setSaved(e instanceof Error ? e.message : String(e)),
    );
  };
  return (
    <details className="panel-section">
      <summary>Roots</summary>
      <p className="muted">Folders the server may work in (roots/list), one path or file:// URI per line.</p>
      <textarea aria-label="Roots" className="json-field" value={text} onChange={(e) => setText(e.target.value)} />
      <button type="button" onClick={save}>
        Offer these roots
      </button>
      {saved && <span className="muted"> {saved}</span>}
    </details>
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
}: {
  backend: Backend;
  summary: ServerSummary;
  /** A project folder is open (entries come from two files). */
  hasProject?: boolean;
  status: ServerStatus | undefined;
  counts: { tools: number; resources: number; prompts: number };
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
  // The last 200 stderr lines, fetched again when the log grows.
  const [stderr, setStderr] = useState<{ lines: TrafficEntry[]; total: number }>({ lines: [], total: 0 });
  useEffect(() => {
    let cancelled = false;
    backend.trafficPage({ server: name, direction: "stderr", limit: 200, from_end: true }).then(
      (page) => !cancelled && setStderr({ lines: page.entries, total: page.total }),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [backend, name, trafficVersion]);
  const act = (label: string, p: Promise<void>) => {
    setMessage(`${label}…`);
    p.then(
      () => setMessage(null),
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
  return (
    <div className="server-panel">
      <header>
        <h2>
          {name} <StateBadge status={status} disabled={summary.disabled} />
        </h2>
        <StateDetail status={status} />
        <p className="muted">
          <code>{summary.target}</code>
          {hasProject && <span className="entry-scope"> · from {summary.scope === "project" ? "the project's .mcp.json" : "your user file"}</span>}
        </p>
        {summary.description && <p>{summary.description}</p>}
      </header>
      <div className="run-bar" role="toolbar" aria-label="Server actions">
        <button type="button" onClick={() => act("Restart", backend.restartServer(name))}>
          Restart
        </button>
        <button type="button" onClick={() => act("Stop", backend.stopServer(name))}>
          Stop
        </button>
        <button type="button" onClick={() => openForm(false)}>
          Edit
        </button>
        <button type="button" onClick={() => openForm(true)}>
          Duplicate
        </button>
        <button type="button" onClick={() => act(summary.disabled ? "Enable" : "Disable", backend.editServer({ kind: "set_disabled", name, disabled: !summary.disabled }))}>
          {summary.disabled ? "Enable" : "Disable"}
        </button>
        {confirmRemove ? (
          <>
            <span role="alert">Remove {name} from mcp.json?</span>
            <button
              type="button"
              className="danger"
              onClick={() => {
                setConfirmRemove(false);
                backend.editServer({ kind: "remove", name }).then(
                  () => onGone(null),
                  (e: unknown) => setMessage(e instanceof Error ? e.message : String(e)),
                );
              }}
            >
              Yes, remove
            </button>
            <button type="button" onClick={() => setConfirmRemove(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" onClick={() => setConfirmRemove(true)}>
            Remove…
          </button>
        )}
        {message && <span role="status">{message}</span>}
      </div>
      {info && (
        <section className="panel-section">
          <p>
            {info.title ?? info.name} {info.version} · protocol {info.protocol_version} · {info.transport}
          </p>
          <p>
            {counts.tools} tools · {counts.resources} resources · {counts.prompts} prompts
          </p>
          {info.instructions && (
            <details open>
              <summary>Instructions</summary>
              <pre>{info.instructions}</pre>
            </details>
          )}
          <details>
            <summary>Capabilities</summary>
            <pre className="json">{JSON.stringify(info.capabilities, null, 2)}</pre>
          </details>
          <label className="field">
            <span className="field-label">Logging level</span>
            <select aria-label="Logging level" defaultValue="" onChange={(e) => e.target.value && act("Set level", backend.setLogLevel(name, e.target.value))}>
              <option value="">(server default)</option>
              {LEVELS.map((l) => (
                <option key={l} value={l}>
                  {l}
                </option>
              ))}
            </select>
          </label>
        </section>
      )}
      <Roots backend={backend} server={name} />
      <details className="panel-section" open={logs.length > 0}>
        <summary>Log messages ({logs.length})</summary>
        <ol className="console">
          {logs.slice(-200).map((l, i) => (
            <li key={i} className={`log-${l.level}`}>
              [{l.level}] {l.data}
            </li>
          ))}
        </ol>
      </details>
      <details className="panel-section" open={stderr.total > 0 && status?.state !== "ready"}>
        <summary>stderr ({stderr.total.toLocaleString()})</summary>
        <pre className="console">{stderr.lines.map((e) => e.body).join("\n")}</pre>
      </details>
    </div>
  );
}
