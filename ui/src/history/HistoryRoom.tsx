// The History room: every call anyone made (by hand, the chat, the bridge,
// mcpwb, suites), kept across restarts. Filter by server, tool, origin and
// status, search arguments and results; open one whole; Run again in the
// tool panel; Compare two; Save to a suite; see the messages it took.
import { useEffect, useMemo, useRef, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { GitCompare, History, RotateCcw, Save } from "lucide-react";
import type { ComponentProps } from "react";
import type { CallRow, CaseVerdict, HistoryBackend } from "../ipc/history";
import type { Workbench } from "../shell/workbench";
import type { RoomId } from "../shell/route";
import { Badge, Button, Checkbox, EmptyState, Input, Select, Skeleton, type Tone, took } from "../design";
import { TaskStrip } from "../tools/TaskStrip";
import type { TaskState } from "../ipc/tasks";
import { ResultView } from "../content/ResultView";
import { AppFrame } from "../content/AppFrame";
import { appUri, toolDefinition } from "../content/apps";
import { CallMessages } from "./CallMessages";
import { CompareView } from "./CompareView";
import { SaveToSuite, type Saving } from "./SaveToSuite";
import "./history.css";
import { keys } from "../queries";

// `host`: a host's call seen through `mcpwb tap` (kept, not made).
const ORIGINS = ["window", "chat", "bridge", "cli", "suite", "eval", "agent", "app", "doctor", "host"];
const STATUSES = ["ok", "error", "failed", "denied", "cancelled"] as const;

// A call kept while it runs (in this window or another process) is running.
const statusSaid = (s: string): string => (s === "pending" ? "running" : s);
const statusTone = (s: string): Tone => (s === "ok" ? "ok" : s === "error" || s === "failed" ? "danger" : s === "denied" ? "warn" : s === "pending" ? "info" : "neutral");
const when = (ms: number) => new Date(ms).toLocaleString();
/** How often the shown History asks whether another process (mcpwb, the bridge, a tap) kept or ended a call. */
export const HISTORY_RECHECK_MS = 1500;

/** Ask the tool panel to take these arguments and run them (it also reads
 * them, and whether to run, when it opens). */
export function runAgain(qualified: string, args: unknown) {
  try {
    localStorage.setItem(`mcpwb.args.${qualified}`, JSON.stringify(args ?? {}));
    sessionStorage.setItem(RUN_NOW, qualified);
  } catch {
    // Storage off: the event still carries them.
  }
  window.dispatchEvent(new CustomEvent("mcpwb:args", { detail: { qualified, args, run: true } }));
}

/** The tool whose panel should run its arguments once it has them. */
export const RUN_NOW = "mcpwb.runNow";

/** What History reaches of the Rust side: its calls, and what a call's result, App, messages and saving need. */
type HistoryRoomBackend = HistoryBackend &
  ComponentProps<typeof ResultView>["backend"] &
  ComponentProps<typeof AppFrame>["backend"] &
  ComponentProps<typeof CallMessages>["backend"] &
  ComponentProps<typeof SaveToSuite>["backend"];

export function HistoryRoom({ wb, backend, active, open: opened, go }: { wb: Workbench; backend: HistoryRoomBackend; active: boolean; open?: string; go: (room: RoomId, param?: string) => void }) {
  const [server, setServer] = useState("");
  const [tool, setTool] = useState("");
  const [origin, setOrigin] = useState("");
  const [status, setStatus] = useState("");
  const [search, setSearch] = useState("");
  // The selected call, by the key its caller made (an answer, a suite's
  // case name it before its row is written).
  const [selected, setSelected] = useState<string | null>(null);
  const [compare, setCompare] = useState<number[]>([]);
  const [saving, setSaving] = useState<Saving | null>(null);
  // Opened on a call (a suite case's "Its call").
  useEffect(() => {
    if (opened) {
      setSelected(opened);
      setCompare([]);
    }
  }, [opened]);
  const query = {
    server: server || null,
    tool: tool || null,
    origin: origin || null,
    status: (status || null) as (typeof STATUSES)[number] | null,
    search: search.trim() || null,
    limit: 300,
  };
  const calls = useQuery({
    queryKey: keys.history(query),
    queryFn: () => backend.history(query),
  });
  // The store's changes, as they are written (any caller's calls).
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!active) return;
    let off: (() => void) | undefined;
    let gone = false;
    void backend
      .onHistoryGrew(() => void queryClient.invalidateQueries({ queryKey: keys.history() }))
      .then((unlisten) => {
        if (gone) unlisten();
        else off = unlisten;
      });
    // What was written while the room was not shown.
    void queryClient.invalidateQueries({ queryKey: keys.history() });
    return () => {
      gone = true;
      off?.();
    };
  }, [active, backend, queryClient]);
  // What other processes write (mcpwb, the bridge a host runs, a tap): no
  // event reaches this window for it, so while the room is shown it asks
  // now and then whether anything moved, and lists again when it did.
  const version = useQuery({
    queryKey: keys.historyVersion(),
    queryFn: () => backend.historyVersion(),
    refetchInterval: active ? HISTORY_RECHECK_MS : false,
    enabled: active,
  });
  const seenVersion = useRef<string | undefined>(undefined);
  useEffect(() => {
    const now = version.data;
    if (now === undefined) return;
    if (seenVersion.current !== undefined && seenVersion.current !== now) void queryClient.invalidateQueries({ queryKey: keys.history() });
    seenVersion.current = now;
  }, [version.data, queryClient]);
  const rows = calls.data ?? [];
  const servers = (wb.servers.data?.servers ?? []).map((s) => s.name);
  const tools = useMemo(() => [...new Set((wb.tools.data ?? []).filter((t) => !server || t.server === server).map((t) => String((t.tool as { name?: string }).name ?? "")))].sort(), [wb.tools.data, server]);
  // The open call: from the list, else fetched (it may be older than the list).
  const listed = rows.find((r) => r.key === selected);
  const fetched = useQuery({
    queryKey: keys.historyCall(selected),
    queryFn: () => backend.historyCall(selected ?? ""),
    enabled: selected !== null && !listed,
  });
  const open = listed ?? fetched.data ?? null;
  const pair = compare.map((id) => rows.find((r) => r.id === id)).filter((r): r is CallRow => Boolean(r));
  const definition = (r: CallRow) => (wb.tools.data ?? []).find((t) => t.server === r.server && (t.tool as { name?: string }).name === r.tool);

  const toggleCompare = (id: number) => setCompare((c) => (c.includes(id) ? c.filter((x) => x !== id) : [...c, id].slice(-2)));

  return (
    <div className="history-room">
      <div className="history-filters" role="search">
        <label>
          Server
          <Select value={server} onChange={(v) => setServer(v)}>
            <option value="">All servers</option>
            {servers.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </Select>
        </label>
        <label>
          Tool
          <Select value={tool} onChange={(v) => setTool(v)}>
            <option value="">All tools</option>
            {tools.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </Select>
        </label>
        <label>
          Origin
          <Select value={origin} onChange={(v) => setOrigin(v)}>
            <option value="">Anyone</option>
            {ORIGINS.map((o) => (
              <option key={o}>{o}</option>
            ))}
          </Select>
        </label>
        <label>
          Status
          <Select value={status} onChange={(v) => setStatus(v)}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s}>{s}</option>
            ))}
          </Select>
        </label>
        <label className="history-search">
          Search
          <Input type="search" placeholder="in arguments and results" value={search} onChange={(e) => setSearch(e.target.value)} />
        </label>
        {pair.length === 2 && (
          <Button size="sm" icon={GitCompare} onClick={() => setSelected(null)}>
            Compare the two ticked
          </Button>
        )}
      </div>
      <div className="history-body">
        <div className="history-list" aria-label="Calls">
          {calls.isPending && <Skeleton lines={6} label="Loading the history" />}
          {calls.isError && (
            <p className="field-error" role="alert">
              {calls.error instanceof Error ? calls.error.message : String(calls.error)}
            </p>
          )}
          {!calls.isPending && rows.length === 0 && (
            <EmptyState icon={History} title="No calls yet" compact>
              Calls made from the tool panel, the chat, the bridge, mcpwb and suites land here.
            </EmptyState>
          )}
          <ol>
            {rows.map((r) => (
              <li key={r.id} className={r.key === selected ? "selected" : undefined}>
                <Checkbox aria-label={`Compare call ${r.id}`} checked={compare.includes(r.id)} onChange={() => toggleCompare(r.id)} />
                <button type="button" className="history-row" aria-current={r.key === selected || undefined} onClick={() => setSelected(r.key)}>
                  <span className="history-tool">
                    {r.server}/{r.tool}
                  </span>
                  <Badge tone={statusTone(r.status)}>{statusSaid(r.status)}</Badge>
                  <span className="history-meta">
                    {r.origin} · {r.duration_ms != null ? took(r.duration_ms) : "–"} · {when(r.started_at)}
                    {r.verdict?.outcome === "failed" && <span className="case-failed"> · its case failed</span>}
                  </span>
                  <code className="history-args">{JSON.stringify(r.arguments)}</code>
                </button>
              </li>
            ))}
          </ol>
        </div>
        <div className="history-detail">
          {open ? (
            <CallDetail
              row={open}
              onRunAgain={(r) => {
                const t = definition(r);
                if (!t) return;
                runAgain(t.qualified, r.arguments);
                go("tools", t.qualified);
              }}
              canRunAgain={Boolean(definition(open))}
              onSave={(r) =>
                setSaving({ server: r.server, tool: r.tool, definition: definition(r)?.tool, arguments: r.arguments, result: r.result, durationMs: r.duration_ms ?? 0, historyKey: r.key })
              }
              wb={wb}
              backend={backend}
              onOpenTraffic={(server) => go("traffic", server)}
            />
          ) : pair[0] && pair[1] ? (
            <CompareView a={pair[0]} b={pair[1]} />
          ) : (
            <EmptyState icon={History} title="Open a call" compact>
              Pick a call to see it whole, or tick two to compare them.
            </EmptyState>
          )}
        </div>
      </div>
      <SaveToSuite backend={backend} call={saving} onClose={() => setSaving(null)} />
    </div>
  );
}

/** What a suite's case made of this call (the call may be "ok" while its case failed). */
export function CaseNote({ verdict }: { verdict: CaseVerdict | null }) {
  if (!verdict) return null;
  const failed = verdict.outcome === "failed";
  return (
    <div className={`callout ${failed ? "tone-danger" : "tone-ok"} case-note`} role="note">
      <p>
        Its suite case <strong>{verdict.case}</strong> ({verdict.suite}) {failed ? "failed" : verdict.outcome.replace("_", " ")}
        {verdict.failures.length > 0 && ":"}
      </p>
      {verdict.failures.length > 0 && (
        <ul>
          {verdict.failures.map((f) => (
            <li key={f}>{f}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

function CallDetail({
  row,
  wb,
  backend,
  onRunAgain,
  canRunAgain,
  onSave,
  onOpenTraffic,
}: {
  row: CallRow;
  wb: Workbench;
  backend: HistoryRoomBackend;
  onRunAgain: (r: CallRow) => void;
  canRunAgain: boolean;
  onSave: (r: CallRow) => void;
  onOpenTraffic: (server: string) => void;
}) {
  return (
    <article className="call-detail" aria-label={`Call ${row.id}`}>
      <header>
        <h2>
          {row.server}/{row.tool}
        </h2>
        <div className="call-badges">
          <Badge tone={statusTone(row.status)}>{statusSaid(row.status)}</Badge>
          <Badge>{row.origin}</Badge>
          {row.protocol && <Badge tone="info">{row.protocol}</Badge>}
          {row.saved && (
            <Badge tone="accent" title="Saved to a suite: kept whatever the history's size cap">
              kept
            </Badge>
          )}
          <span className="history-meta">{when(row.started_at)}</span>
        </div>
        <CaseNote verdict={row.verdict} />
        <div className="toolbar">
          <Button size="sm" icon={RotateCcw} disabled={!canRunAgain} title={canRunAgain ? undefined : "The tool is not offered now"} onClick={() => onRunAgain(row)}>
            Run again
          </Button>
          <Button
            size="sm"
            icon={Save}
            disabled={!row.result || row.tool.startsWith("skill:")}
            title={row.tool.startsWith("skill:") ? "A skill's load is not a tool call: a suite cannot replay it" : undefined}
            onClick={() => onSave(row)}
          >
            Save to suite…
          </Button>
        </div>
      </header>
      {row.task != null && <TaskStrip task={row.task as unknown as TaskState} ended />}
      <h3>Arguments</h3>
      <pre className="json" tabIndex={0}>{JSON.stringify(row.arguments, null, 2)}</pre>
      {row.error && (
        <div className="error-banner" role="alert">
          <p className="error-message">{row.error}</p>
        </div>
      )}
      {row.result != null && (
        <>
          <h3>Result</h3>
          {(() => {
            const definition = toolDefinition(wb.tools.data, row.server, row.tool);
            return definition && appUri(definition) ? <AppFrame key={row.id} backend={backend} server={row.server} tool={definition} args={row.arguments ?? {}} result={row.result} /> : null;
          })()}
          <ResultView backend={backend} server={row.server} result={row.result as Record<string, unknown>} durationMs={row.duration_ms} violations={row.schema_violations} notes={row.notes} checked={row.schema_violations.length > 0} />
        </>
      )}
      <CallMessages row={row} backend={backend} onOpenTraffic={onOpenTraffic} />
    </article>
  );
}
