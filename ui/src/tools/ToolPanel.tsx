// One tool: what it is, a form from its input schema (or raw JSON), Run
// (Ctrl+Enter) with progress, Cancel and elapsed time, the result, and the
// calls made so far.
import { useEffect, useRef, useState } from "react";
import { BackendError, type Backend, type CallProgress, type ToolCallResult, type ToolRow } from "../backend";
import { SchemaForm } from "../schema/SchemaForm";
import { initialValue, type Json, type Schema } from "../schema/model";
import { ResultView } from "./ResultView";
import { LatencyChart } from "./LatencyChart";

type Run = { args: Json | undefined; outcome?: ToolCallResult; error?: string; at: number };

const ANNOTATIONS: [string, string][] = [
  ["readOnlyHint", "read-only"],
  ["destructiveHint", "destructive"],
  ["idempotentHint", "idempotent"],
  ["openWorldHint", "open-world"],
];

const storageKey = (row: ToolRow) => `mcpwb.args.${row.qualified}`;

function remembered(row: ToolRow, schema: Schema): Json | undefined {
  try {
    const saved = localStorage.getItem(storageKey(row));
    if (saved) return JSON.parse(saved) as Json;
  } catch {
    // A corrupt entry is ignored.
  }
  return initialValue(schema, schema);
}

/** The `mcpwb` command line that makes the same call. */
export function asCommand(row: ToolRow, args: Json | undefined): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const name = String((row.tool as { name?: string }).name ?? "");
  return `mcpwb call ${quote(row.server)} ${quote(name)} --args ${quote(JSON.stringify(args ?? {}))}`;
}

export function ToolPanel({ backend, row }: { backend: Backend; row: ToolRow }) {
  const tool = row.tool as Record<string, unknown>;
  const schema = (tool.inputSchema ?? { type: "object" }) as Schema;
  const [args, setArgs] = useState<Json | undefined>(() => remembered(row, schema));
  const [raw, setRaw] = useState(false);
  const [rawText, setRawText] = useState("");
  const [rawError, setRawError] = useState<string | null>(null);
  const [running, setRunning] = useState<{ cancel: () => Promise<void>; started: number } | null>(null);
  const [progress, setProgress] = useState<CallProgress | null>(null);
  const [elapsed, setElapsed] = useState(0);
  const [history, setHistory] = useState<Run[]>([]);
  const [copied, setCopied] = useState<string | null>(null);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => setElapsed(Date.now() - running.started), 100);
    return () => clearInterval(t);
  }, [running]);

  const run = (withArgs: Json | undefined = args) => {
    if (running) return;
    try {
      localStorage.setItem(storageKey(row), JSON.stringify(withArgs ?? {}));
    } catch {
      // Storage full or off: the call still runs.
    }
    setProgress(null);
    setElapsed(0);
    const call = backend.callTool(row.server, String(tool.name ?? ""), withArgs ?? {}, (p) => setProgress(p));
    setRunning({ cancel: call.cancel, started: Date.now() });
    const at = Date.now();
    call.result.then(
      (outcome) => mounted.current && setHistory((h) => [{ args: withArgs, outcome, at }, ...h].slice(0, 50)),
      (e: unknown) => {
        const message = e instanceof BackendError || e instanceof Error ? e.message : String(e);
        if (mounted.current) setHistory((h) => [{ args: withArgs, error: message, at }, ...h].slice(0, 50));
      },
    ).finally(() => mounted.current && setRunning(null));
  };

  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      run();
    }
  };

  const latest = history[0];
  const annotations = (tool.annotations ?? {}) as Record<string, unknown>;
  const title = typeof tool.title === "string" ? tool.title : typeof annotations.title === "string" ? annotations.title : null;
  const copy = async (label: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(label);
    } catch {
      setCopied(`${label}: copy failed; select the text below`);
    }
  };
  return (
    <div className="tool-panel" onKeyDown={onKey}>
      <header>
        <h2>
          {title ?? String(tool.name ?? "")} <code className="qualified">{row.qualified}</code>
        </h2>
        <div className="badges">
          {ANNOTATIONS.filter(([k]) => annotations[k] === true).map(([, label]) => (
            <span key={label} className={`badge badge-${label}`}>
              {label}
            </span>
          ))}
          {row.stale && <span className="badge">server away: last known</span>}
        </div>
        {typeof tool.description === "string" && <p className="tool-description">{tool.description}</p>}
      </header>
      <div className="tool-args">
        <div className="toolbar">
          <button type="button" aria-pressed={!raw} onClick={() => setRaw(false)}>
            Form
          </button>
          <button
            type="button"
            aria-pressed={raw}
            onClick={() => {
              setRawText(JSON.stringify(args ?? {}, null, 2));
              setRawError(null);
              setRaw(true);
            }}
          >
            JSON
          </button>
          <details className="schemas">
            <summary>Schemas</summary>
            <pre className="json">{JSON.stringify({ inputSchema: tool.inputSchema, outputSchema: tool.outputSchema }, null, 2)}</pre>
          </details>
        </div>
        {raw ? (
          <>
            <textarea
              aria-label="arguments as JSON"
              className="json-field raw-args"
              spellCheck={false}
              value={rawText}
              onChange={(e) => {
                setRawText(e.target.value);
                try {
                  setArgs(JSON.parse(e.target.value) as Json);
                  setRawError(null);
                } catch (err) {
                  setRawError(err instanceof Error ? err.message : String(err));
                }
              }}
            />
            {rawError && <p className="field-error">Not JSON (the form keeps the last valid value): {rawError}</p>}
          </>
        ) : (
          <SchemaForm schema={schema} value={args} onChange={setArgs} />
        )}
      </div>
      <div className="run-bar">
        <button type="button" className="primary" disabled={!!running || !!rawError} onClick={() => run()} title="Ctrl+Enter">
          Run
        </button>
        {running && (
          <button type="button" onClick={() => void running.cancel()}>
            Cancel
          </button>
        )}
        {running && (
          <span className="elapsed" role="status">
            running… {(elapsed / 1000).toFixed(1)} s
          </span>
        )}
        {running && progress && (
          <span className="progress">
            <progress
              value={progress.total ? (progress.progress ?? 0) : undefined}
              max={progress.total ?? undefined}
              aria-label="progress"
            />
            {progress.message && <span>{progress.message}</span>}
          </span>
        )}
        <button type="button" onClick={() => void copy("mcpwb command", asCommand(row, args))}>
          Copy as mcpwb
        </button>
        <button
          type="button"
          onClick={() =>
            void copy(
              "JSON-RPC request",
              JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool.name, arguments: args ?? {} } }, null, 2),
            )
          }
        >
          Copy as JSON-RPC
        </button>
        {copied && <span className="muted">copied {copied}</span>}
      </div>
      {latest?.error && (
        <div className="error-banner" role="alert">
          <p className="error-message">{latest.error}</p>
        </div>
      )}
      {latest?.outcome && (
        <ResultView
          result={latest.outcome.result as Record<string, unknown>}
          durationMs={latest.outcome.duration_ms}
          violations={latest.outcome.schema_violations}
        />
      )}
      {history.some((h) => h.outcome) && (
        <LatencyChart durations={history.filter((h) => h.outcome).map((h) => h.outcome?.duration_ms ?? 0).reverse()} />
      )}
      {history.length > 1 && (
        <details className="history">
          <summary>History ({history.length})</summary>
          <ol>
            {history.map((h, i) => (
              <li key={h.at + i}>
                <code>{JSON.stringify(h.args ?? {})}</code> {h.error ? `failed: ${h.error}` : `${h.outcome?.duration_ms?.toFixed(0) ?? "?"} ms`}{" "}
                <button
                  type="button"
                  onClick={() => {
                    setArgs(h.args);
                    run(h.args);
                  }}
                >
                  Run again
                </button>
              </li>
            ))}
          </ol>
        </details>
      )}
    </div>
  );
}
