// One tool: what it is, a form from its input schema (or raw JSON), Run
// (Ctrl+Enter) with progress, Cancel and elapsed time, the result (Save to
// suite), and this tool's recent calls from the history (anyone's).
import { useEffect, useRef, useState } from "react";
import { AppWindow, Braces, Play, RotateCcw, Save, Square, Terminal } from "lucide-react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { ToolPolicy } from "../bindings";
import { BackendError, type CallProgress, type ServerStatus, type ToolCallResult, type ToolRow } from "../ipc";
import { Badge, Button, Disclosure, Segmented, Switch, Textarea, useToast } from "../design";
import { sameResult, useRerunOnReload, useRerunSetting } from "./rerun";
import { RUN_NOW } from "../history/HistoryRoom";
import { annotationList } from "./annotations";
import { SchemaForm } from "../schema/SchemaForm";
import { initialValue, problems, type Json, type Schema } from "../schema/model";
import { ResultView } from "../content/ResultView";
import { AppFrame } from "../content/AppFrame";
import { appOnly, appUri } from "../content/apps";
import { LatencyChart } from "./LatencyChart";
import { TaskBadge, definitionText } from "./definition";
import { TaskStrip } from "./TaskStrip";
import { CallLimits, NO_LIMITS, asCallLimits, type Limits } from "./CallLimits";
import type { TaskState } from "../ipc/tasks";
import { SaveToSuite, type Saving } from "../history/SaveToSuite";
import { LoadSection } from "./LoadSection";
import { afterCall, keys } from "../queries";
import type { ComponentProps } from "react";
import type { AgentBackend, AppsBackend, DoctorBackend, HistoryBackend, ServersBackend, ToolsBackend, WindowBackend } from "../ipc";

type Run = { args: Json | undefined; outcome?: ToolCallResult; error?: string; cancelled?: boolean; at: number; afterReload?: "same" | "changed" | "first" };

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

/** The `mcpwb` command line that makes the same call, on the same files. */
export function asCommand(row: ToolRow, args: Json | undefined, files?: { config: string; project?: string | null }): string {
  const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const name = String((row.tool as { name?: string }).name ?? "");
  const where = files ? ` --config ${quote(files.config)}${files.project ? ` --project ${quote(files.project.replace(/\/\.mcp\.json$/, ""))}` : ""}` : "";
  return `mcpwb call${where} ${quote(row.server)} ${quote(name)} --args ${quote(JSON.stringify(args ?? {}))}`;
}

/** A description longer than this folds, with "Show more". */
const LONG_DESCRIPTION = 280;

// What each rule does, said when it is set: it holds for every call a
// person does not make by hand (the one rule the call path reads).
const POLICY_SAID: Record<ToolPolicy, string> = {
  ask: "No standing rule: calls not made by hand ask you first, or, where nobody can be asked (suites, load runs), run it only if it is read-only",
  allow: "Allowed: calls not made by hand (a chat, the bridge, an App, suites, load runs) run it without asking",
  deny: "Never: not offered to a chat's model, and refused for the bridge, an App, suites and load runs",
};

export function ToolPanel({
  backend,
  row,
  available = true,
  returning = false,
  focus = false,
  onFocused,
  onStartChat,
}: {
  onStartChat?: (text: string) => void;
  backend: AgentBackend & AppsBackend & DoctorBackend & HistoryBackend & ServersBackend & ToolsBackend & WindowBackend & ComponentProps<typeof ResultView>["backend"];
  row: ToolRow;
  available?: boolean;
  /** The server is starting or restarting: a call waits for it. */
  returning?: boolean;
  /** Move focus here once opened (from the palette, History, Enter in the search). */
  focus?: boolean;
  onFocused?: () => void;
}) {
  const tool = row.tool as Record<string, unknown>;
  const schema = (tool.inputSchema ?? { type: "object" }) as Schema;
  const [args, setArgs] = useState<Json | undefined>(() => remembered(row, schema));
  const [raw, setRaw] = useState(false);
  const [rawText, setRawText] = useState("");
  const [rawError, setRawError] = useState<string | null>(null);
  const [running, setRunning] = useState<{ cancel: () => Promise<void>; started: number } | null>(null);
  const [progress, setProgress] = useState<CallProgress | null>(null);
  // The task the running call became, as last said (live).
  const [task, setTask] = useState<TaskState | null>(null);
  const taskSupport = (tool.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
  const [asTask, setAsTask] = useState(false);
  const [limits, setLimits] = useState<Limits>(NO_LIMITS);
  // The statuses the window keeps (read from its cache, not fetched here).
  const statuses = useQuery<ServerStatus[]>({ queryKey: keys.statuses(), queryFn: () => backend.serverStatuses(), enabled: false });
  const era = statuses.data?.find((s) => s.name === row.server)?.info?.protocol_version ?? "";
  // Only a 2025-11-25 server runs an optional tool as a task when asked; a
  // 2026-07-28 one chooses by itself (the workbench declares tasks).
  const canAskTask = taskSupport === "optional" && era !== "" && era < "2026";
  const [elapsed, setElapsed] = useState(0);
  const [latest, setLatest] = useState<Run | null>(null);
  const [saving, setSaving] = useState<Saving | null>(null);
  const [copyFallback, setCopyFallback] = useState<string | null>(null);
  const [longOpen, setLongOpen] = useState(false);
  const toast = useToast();
  const queryClient = useQueryClient();
  const agentSettings = useQuery({ queryKey: keys.agentSettings(), queryFn: () => backend.agentSettings() });
  const servers = useQuery({ queryKey: keys.servers(), queryFn: () => backend.listServers() });
  const files = servers.data ? { config: servers.data.config_path, project: servers.data.project_path } : undefined;
  const toolName = String(tool.name ?? "");
  const past = useQuery({ queryKey: keys.toolHistory(row.server, toolName), queryFn: () => backend.toolHistory(row.server, toolName, 20) });
  const policyKey = `${row.server}/${toolName}`;
  // Its calls (a load run is kept as one row of its own: not a call to run again).
  const calls = (past.data ?? []).filter((h) => h.origin !== "load");
  const policy: ToolPolicy = agentSettings.data?.tool_policies[policyKey] ?? "ask";
  const setPolicy = (p: ToolPolicy) =>
    backend
      .updateAgentSettings({ default_provider: null, max_steps: null, deferred_threshold: null, session_max_idle_days: null, tool_policy: [policyKey, p], trusted: null, auto_sampling: null })
      .then(
        () => {
          void queryClient.invalidateQueries({ queryKey: keys.agentSettings() });
          void queryClient.invalidateQueries({ queryKey: keys.chatTools() });
          toast(POLICY_SAID[p]);
        },
        (e: unknown) => toast("Not changed", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
      );
  // A tool with an App: its resource is read now, so the App is up soon
  // after the result comes.
  useEffect(() => {
    if (appUri(tool) && available) void backend.prefetchApp(row.server, toolName).catch(() => undefined);
  }, [backend, row.server, toolName, available, tool]);
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

  // What is wrong with the arguments, shown instead of running (Send anyway overrides).
  const [blocked, setBlocked] = useState<string[] | null>(null);
  // A task under way: the strip is what is live; the last run's result is
  // not shown under it as if it were this one's.
  const taskRunning = Boolean(running && task);
  const run = (withArgs: Json | undefined = args, anyway = false, reloaded = false) => {
    // After a reload the lists were just read: the server is ready even if
    // this render has not seen its status yet.
    if (running || (!available && !reloaded)) return;
    const wrong = anyway ? [] : problems(schema, withArgs ?? {}, schema);
    if (wrong.length > 0) {
      setBlocked(wrong);
      return;
    }
    setBlocked(null);
    try {
      localStorage.setItem(storageKey(row), JSON.stringify(withArgs ?? {}));
    } catch {
      // Storage full or off: the call still runs.
    }
    setProgress(null);
    setTask(null);
    setElapsed(0);
    const call = backend.callTool(row.server, String(tool.name ?? ""), withArgs ?? {}, (p) => setProgress(p), {
      asTask: asTask && canAskTask,
      limits: asCallLimits(limits),
      onTask: (t) => {
        if (mounted.current) setTask(t);
      },
    });
    setRunning({ cancel: call.cancel, started: Date.now() });
    const at = Date.now();
    call.result
      .then(
        (outcome) => {
          if (!mounted.current) return;
          setLatest((before) => ({
            args: withArgs,
            outcome,
            at,
            afterReload: reloaded ? (before?.outcome ? (sameResult(before.outcome.result, outcome.result) ? "same" : "changed") : "first") : undefined,
          }));
        },
        (e: unknown) => {
          const message = e instanceof BackendError || e instanceof Error ? e.message : String(e);
          // The person's own Cancel is not an error to show in red.
          const cancelled = e instanceof BackendError && e.code === "cancelled";
          if (mounted.current) setLatest({ args: withArgs, error: message, at, cancelled });
        },
      )
      .finally(() => {
        if (mounted.current) setRunning(null);
        afterCall(queryClient, row.server, toolName);
      });
  };

  // Re-run on reload: the last call again once the server is back.
  const [rerun, setRerun] = useRerunSetting(row.qualified);
  useRerunOnReload(backend, row.server, rerun, () => run(latest?.args ?? args, true, true));

  // Ctrl+Enter runs from anywhere in the window while this tool is shown.
  const runRef = useRef(run);
  runRef.current = run;
  const panel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && panel.current?.offsetParent) {
        e.preventDefault();
        runRef.current();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!focus) return;
    // The first field to fill, else the heading (so Tab goes on from here).
    const first = panel.current?.querySelector<HTMLElement>(".tool-args input, .tool-args textarea, .tool-args select");
    (first ?? heading.current)?.focus();
    onFocused?.();
  }, [focus, onFocused]);

  // History's Run again hands this tool its arguments and runs them (once
  // the panel is open: it may open because of it).
  useEffect(() => {
    const runNow = (args: Json) => {
      if (sessionStorage.getItem(RUN_NOW) !== row.qualified) return;
      sessionStorage.removeItem(RUN_NOW);
      runRef.current(args);
    };
    const take = (e: Event) => {
      const detail = (e as CustomEvent<{ qualified: string; args: Json; run?: boolean }>).detail;
      if (detail.qualified === row.qualified) {
        setArgs(detail.args);
        setRaw(false);
        if (detail.run) runNow(detail.args);
      }
    };
    window.addEventListener("mcpwb:args", take);
    const waiting = remembered(row, schema);
    if (waiting !== undefined) runNow(waiting);
    return () => window.removeEventListener("mcpwb:args", take);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [row.qualified]);

  const annotations = (tool.annotations ?? {}) as Record<string, unknown>;
  const title = typeof tool.title === "string" ? tool.title : typeof annotations.title === "string" ? annotations.title : null;
  const copy = async (label: string, text: string) => {
    try {
      await backend.copyText(text);
      setCopyFallback(null);
      toast(`Copied the ${label}`);
    } catch (e) {
      // The clipboard refused: show the text selected, to copy by hand.
      setCopyFallback(text);
      toast(`Could not copy the ${label}`, { tone: "danger", description: `${e instanceof Error ? e.message : String(e)}. The text is shown below, selected.` });
    }
  };
  const description = typeof tool.description === "string" ? tool.description : "";
  const long = description.length > LONG_DESCRIPTION || description.split("\n").length > 4;
  return (
    <div className="tool-panel" ref={panel}>
      <header className="room-header">
        <h2 ref={heading} tabIndex={-1}>
          {title ?? String(tool.name ?? "")} <code className="qualified">{row.qualified}</code>
        </h2>
        <div className="badges">
          {annotationList(tool.annotations).map((h) => (
            <Badge key={h.label} tone={h.tone as "ok"} icon={h.icon} className={`badge-${h.label}`} title="A hint from the server">
              {h.label}
            </Badge>
          ))}
          <TaskBadge tool={tool} />
          {appUri(tool) && (
            <Badge tone="accent" icon={AppWindow} title={`Its results show in an MCP App: ${appUri(tool)}`}>
              App
            </Badge>
          )}
          {appOnly(tool) && (
            <Badge tone="neutral" title="Its visibility leaves out the model: only its server's Apps call it (and you, here)">
              Apps only
            </Badge>
          )}
          {row.stale && <Badge tone="warn">server away: last known</Badge>}
        </div>
        {description && (
          <div className={`tool-description${long && !longOpen ? " clamped" : ""}`}>
            <p>{description}</p>
          </div>
        )}
        {long && (
          <button type="button" className="link-button" aria-expanded={longOpen} onClick={() => setLongOpen((o) => !o)}>
            {longOpen ? "Show less" : "Show more"}
          </button>
        )}
        {agentSettings.data && (
          <div className="toolbar tool-policy">
            <span className="field-label" title="Calls you do not make here by hand: a chat's model, the bridge's clients, an App, suites and load runs">
              Not by hand
            </span>
            <Segmented<ToolPolicy>
              label="When a chat, the bridge, an App, a suite or a load run calls this tool"
              value={policy}
              onChange={setPolicy}
              options={[
                { value: "ask", label: "Ask first" },
                { value: "allow", label: "Allow" },
                { value: "deny", label: "Never offer" },
              ]}
            />
          </div>
        )}
      </header>
      <div className="tool-args">
        <div className="toolbar">
          <Segmented
            label="Arguments as"
            value={raw ? "json" : "form"}
            onChange={(v) => {
              if (v === "json") {
                setRawText(JSON.stringify(args ?? {}, null, 2));
                setRawError(null);
                setRaw(true);
              } else {
                // Back to the form: it holds the last valid value, so the
                // JSON that did not parse no longer stands in Run's way.
                setRawError(null);
                setRaw(false);
              }
            }}
            options={[
              { value: "form", label: "Form" },
              { value: "json", label: "JSON" },
            ]}
          />
        </div>
        {raw ? (
          <>
            <Textarea
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
        <Disclosure title="Definition as sent" defaultOpen={false}>
          <pre className="json tool-definition">{definitionText(tool)}</pre>
        </Disclosure>
      </div>
      <div className="run-bar">
        <Button
          variant="primary"
          icon={Play}
          disabled={!!running || !!rawError || !available}
          onClick={() => run()}
          title={rawError ? "The arguments are not JSON" : !available ? "The server is not ready" : "Ctrl+Enter"}
          trailing={<kbd className="kbd-on-accent">Ctrl ↵</kbd>}
        >
          Run
        </Button>
        {!running && rawError && <span className="muted run-why">Run waits for JSON that parses (or switch to Form).</span>}
        {running && (
          <Button icon={Square} onClick={() => void running.cancel()} title={task ? "Ask the server to cancel the task (tasks/cancel)" : "Tell the server to stop (notifications/cancelled)"}>
            {task ? "Cancel task" : "Cancel"}
          </Button>
        )}
        {running && (
          <span className="elapsed" role="status">
            running… {(elapsed / 1000).toFixed(1)} s
          </span>
        )}
        {running && progress && (
          <span className="progress">
            <progress value={progress.total ? (progress.progress ?? 0) : undefined} max={progress.total ?? undefined} aria-label="progress" />
            {progress.message && <span>{progress.message}</span>}
          </span>
        )}
        {latest?.afterReload && !running && (
          <span className={`badge rerun-verdict ${latest.afterReload === "changed" ? "tone-warn" : "tone-ok"}`} role="status">
            after the reload: {latest.afterReload === "changed" ? "the result changed" : latest.afterReload === "same" ? "same result" : "first result"}
          </span>
        )}
        <span className="run-bar-spacer" />
        {canAskTask && <Switch label="Ask for a task" checked={asTask} onChange={setAsTask} />}
        <Switch label="Re-run on reload" checked={rerun} onChange={setRerun} />
        <Button variant="ghost" size="sm" icon={Terminal} onClick={() => void copy("mcpwb command", asCommand(row, args, files))}>
          Copy as mcpwb
        </Button>
        <Button
          variant="ghost"
          size="sm"
          icon={Braces}
          onClick={() =>
            void copy("JSON-RPC request", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool.name, arguments: args ?? {} } }, null, 2))
          }
        >
          Copy as JSON-RPC
        </Button>
      </div>
      <CallLimits limits={limits} onChange={setLimits} />
      {task && <TaskStrip task={task} ended={!running} />}
      {blocked && (
        <div className="callout tone-warn run-problems" role="alert">
          <div>
            <p>Not sent: the arguments do not fit the tool&apos;s schema.</p>
            <ul>
              {blocked.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          </div>
          <Button size="sm" onClick={() => run(args, true)}>
            Send anyway
          </Button>
        </div>
      )}
      {!available && (
        <p className="callout tone-warn" role="status">
          {row.server} is not ready: start it from the server list to run this tool.
        </p>
      )}
      {returning && !running && (
        <p className="callout tone-info" role="status">
          {row.server} is on its way back: a call waits for it (up to its timeout).
        </p>
      )}
      {copyFallback && (
        <Textarea className="json-field copy-fallback" aria-label="Text to copy" readOnly value={copyFallback} ref={(el) => el?.select()} />
      )}
      {latest?.error && !taskRunning && latest.cancelled && (
        <p className="callout tone-info call-cancelled" role="status">
          Cancelled at your request{task ? ": the server was asked to stop the task" : ""}.
        </p>
      )}
      {latest?.error && !taskRunning && !latest.cancelled && (
        <div className="error-banner" role="alert">
          <p className="error-message">{latest.error}</p>
        </div>
      )}
      {latest && !taskRunning && appUri(tool) && (latest.outcome || latest.error) && (
        <AppFrame
          key={latest.at}
          backend={backend}
          server={row.server}
          tool={tool}
          args={latest.args ?? {}}
          result={latest.outcome?.result}
          cancelled={latest.error}
          onStartChat={onStartChat}
        />
      )}
      {latest?.outcome && !taskRunning && (
        <>
          <ResultView
            backend={backend}
            server={row.server}
            result={latest.outcome.result as Record<string, unknown>}
            durationMs={latest.outcome.duration_ms}
            violations={latest.outcome.schema_violations}
            notes={latest.outcome.notes}
            checked={tool.outputSchema !== undefined && tool.outputSchema !== null}
          />
          <div className="toolbar">
            <Button
              size="sm"
              icon={Save}
              onClick={() =>
                latest.outcome &&
                setSaving({
                  server: row.server,
                  tool: toolName,
                  definition: tool,
                  arguments: latest.args ?? {},
                  result: latest.outcome.result,
                  durationMs: latest.outcome.duration_ms ?? 0,
                  historyKey: latest.outcome.history_key ?? null,
                })
              }
            >
              Save to suite…
            </Button>
          </div>
        </>
      )}
      {calls.some((h) => h.duration_ms != null) && (
        <LatencyChart durations={calls.filter((h) => h.duration_ms != null).map((h) => h.duration_ms ?? 0).reverse()} />
      )}
      <LoadSection backend={backend} server={row.server} tool={toolName} args={args ?? {}} valid={!rawError && available} />
      {calls.length > 0 && (
        <Disclosure title="Recent calls" count={calls.length} defaultOpen={false} className="history">
          <ol>
            {calls.map((h) => (
              <li key={h.id}>
                <code>{JSON.stringify(h.arguments ?? {})}</code> {h.origin} · {h.status}
                {h.error ? `: ${h.error}` : h.duration_ms != null ? ` · ${h.duration_ms.toFixed(0)} ms` : ""}{" "}
                <Button
                  size="sm"
                  variant="ghost"
                  icon={RotateCcw}
                  onClick={() => {
                    setArgs(h.arguments as Json);
                    run(h.arguments as Json);
                  }}
                >
                  Run again
                </Button>
              </li>
            ))}
          </ol>
        </Disclosure>
      )}
      <SaveToSuite backend={backend} call={saving} onClose={() => setSaving(null)} />
    </div>
  );
}
