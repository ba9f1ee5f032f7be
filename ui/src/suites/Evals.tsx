// A suite's prompt cases (evals) in the Suites room: Run evals (each model's
// runs are real, paid model turns: never part of Run all), the matrix of the
// newest kept run — a row a case, a column a model, the runs passed — and,
// against an earlier run, what moved. A cell opens its runs: each failed
// assertion, and the run's transcript as the chat view shows it, read-only.
import { useMemo, useState, type ComponentProps } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { MessagesSquare, Play } from "lucide-react";
import type { AgentBackend } from "../ipc/agent";
import type { EvalCell, EvalReport, HistoryBackend, SuiteInfo } from "../ipc/history";
import { Badge, Button, Modal, Select, Skeleton, plural, useToast, type Tone } from "../design";
import { Conversation } from "../chat/Conversation";
import { EMPTY_LIVE } from "../chat/live";
import { keys } from "../queries";

/** The areas of the door the Suites room uses: its suites and runs, and a run's transcript. */
export type SuitesBackend = HistoryBackend & Pick<AgentBackend, "openChat"> & ComponentProps<typeof Conversation>["backend"];

const tone: Record<EvalCell["outcome"], Tone> = { passed: "ok", failed: "danger", skipped: "neutral", not_ready: "warn" };

/** "3/5" of a cell's runs. */
/** What a run of evals says, counted as a reader counts: models per case
 * ("1 of 2 models passed"), never cells as cases. */
export function evalSummary(report: { cases: string[]; cells: { case: string; outcome: string }[] }): { title: string; description?: string } {
  const perCase = report.cases.map((c) => {
    const cells = report.cells.filter((x) => x.case === c);
    const ran = cells.filter((x) => x.outcome === "passed" || x.outcome === "failed").length;
    const passed = cells.filter((x) => x.outcome === "passed").length;
    const notRun = cells.length - ran;
    const said = `${passed} of ${ran} model${ran === 1 ? "" : "s"} passed${notRun ? `, ${notRun} not run` : ""}`;
    return { c, said, clean: ran > 0 && passed === ran };
  });
  const first = perCase[0];
  if (perCase.length === 1 && first) return { title: first.said, description: first.c };
  const clean = perCase.filter((p) => p.clean).length;
  return {
    title: `${clean} of ${perCase.length} cases passed by every model that ran`,
    description: perCase.map((p) => `${p.c}: ${p.said}`).join("; "),
  };
}

export function tally(cell: EvalCell): string {
  return `${cell.runs.filter((r) => r.passed).length}/${cell.runs.length}`;
}

const percent = (x: number | null) => `${Math.round((x ?? 0) * 100)}%`;
/** A float from Rust (null stands for NaN). */
const num = (x: number | null) => x ?? 0;

/** When the run was, as a person reads it. */
function when(ms: number): string {
  return new Date(ms).toLocaleString();
}

/** What moved in a cell between two runs: ▲ better, ▼ worse. */
export function moved(before: EvalCell | undefined, after: EvalCell | undefined): { text: string; dir: "up" | "down" | "same" } | null {
  if (!before || before.runs.length === 0 || !after || after.runs.length === 0) return null;
  const d = num(after.pass_rate) - num(before.pass_rate);
  if (Math.abs(d) < 1e-9) return { text: `was ${tally(before)}`, dir: "same" };
  return { text: `${d > 0 ? "▲" : "▼"} was ${tally(before)}`, dir: d > 0 ? "up" : "down" };
}

function cellOf(report: EvalReport | undefined, model: string, kase: string): EvalCell | undefined {
  return report?.cells.find((c) => c.model === model && c.case === kase);
}

export function EvalMatrix({ report, before, onOpen }: { report: EvalReport; before?: EvalReport; onOpen: (cell: EvalCell) => void }) {
  return (
    <table className="eval-matrix" aria-label={`Evals of ${report.suite}`}>
      <thead>
        <tr>
          <th scope="col">Case</th>
          {report.models.map((m) => (
            <th key={m} scope="col">
              <code>{m}</code>
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {report.cases.map((k) => (
          <tr key={k}>
            <th scope="row">{k}</th>
            {report.models.map((m) => {
              const cell = cellOf(report, m, k);
              if (!cell) return <td key={m} className="muted">·</td>;
              const change = moved(cellOf(before, m, k), cell);
              const ran = cell.runs.length > 0;
              return (
                <td key={m}>
                  <button type="button" className={`eval-cell tone-${tone[cell.outcome]}`} data-model={m} data-case={k} title={cell.note ?? undefined} onClick={() => onOpen(cell)}>
                    <span className="sr-only">{`${k} with ${m}: `}</span>
                    <Badge tone={tone[cell.outcome]}>{ran ? tally(cell) : cell.outcome === "skipped" ? "skipped" : "not run"}</Badge>
                    <span className="sr-only">{ran ? ` runs passed, ${cell.outcome === "passed" ? "meets" : "under"} ${percent(cell.required)}. ` : ` ${cell.note ?? ""}. `}</span>
                    {cell.runs.length > 0 && (
                      <span className="muted eval-cell-facts">
                        {num(cell.mean_steps).toFixed(1)} steps · {(num(cell.mean_ms) / 1000).toFixed(1)} s
                        {cell.input_tokens + cell.output_tokens > 0 ? ` · ${(cell.input_tokens + cell.output_tokens).toLocaleString()} tok` : ""}
                      </span>
                    )}
                    {change && <span className={`eval-moved eval-moved-${change.dir}`}>{change.text}</span>}
                  </button>
                </td>
              );
            })}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A cell's runs: the failed assertions of each and its transcript. */
function CellRuns({ backend, cell, onClose, onTraffic }: { backend: SuitesBackend; cell: EvalCell | null; onClose: () => void; onTraffic: (server: string) => void }) {
  const [index, setIndex] = useState(0);
  const run = cell?.runs[Math.min(index, (cell?.runs.length ?? 1) - 1)];
  const chat = useQuery({ queryKey: keys.chat(run?.session ?? ""), queryFn: () => backend.openChat(run?.session ?? ""), enabled: Boolean(run) });
  return (
    <Modal
      open={cell !== null}
      onOpenChange={(open) => {
        if (!open) {
          setIndex(0);
          onClose();
        }
      }}
      title={cell ? `${cell.case} with ${cell.model}` : ""}
      description={cell ? (cell.runs.length > 0 ? `${tally(cell)} runs passed; the case needs ${percent(cell.required)}.` : (cell.note ?? "Not run.")) : undefined}
      wide
    >
      {cell && cell.runs.length > 0 && (
        <div className="eval-runs">
          <div className="eval-run-tabs" role="tablist" aria-label="Runs">
            {cell.runs.map((r, i) => (
              <button key={r.session} type="button" role="tab" aria-selected={i === index} className={`eval-run-tab ${r.passed ? "passed" : "failed"}`} onClick={() => setIndex(i)}>
                Run {i + 1} {r.passed ? "✓" : "✗"}
              </button>
            ))}
          </div>
          {run && (
            <div role="tabpanel" aria-label={`Run ${index + 1}`}>
              {run.failures.length > 0 ? (
                <ul className="eval-failures" aria-label="Failed assertions">
                  {run.failures.map((f, i) => (
                    <li key={i} className="case-failure">
                      <strong>{f.assertion}</strong>: {f.message}
                    </li>
                  ))}
                </ul>
              ) : (
                <p className="muted">Every assertion held.</p>
              )}
              <p className="muted">
                {plural(run.steps, "step")} · {(num(run.duration_ms) / 1000).toFixed(1)} s
                {run.input_tokens + run.output_tokens > 0 ? ` · ${run.input_tokens.toLocaleString()} in · ${run.output_tokens.toLocaleString()} out` : ""}
              </p>
              <div className="eval-transcript" aria-label="Transcript">
                {chat.isPending && <Skeleton lines={3} label="Loading the transcript" />}
                {chat.isError && <p className="field-error">The transcript is gone (older runs are pruned).</p>}
                {chat.data && (
                  <Conversation
                    backend={backend}
                    messages={chat.data.messages}
                    live={EMPTY_LIVE}
                    approvals={[]}
                    running={false}
                    readOnly
                    onEdit={() => undefined}
                    onRegenerate={() => undefined}
                    onTraffic={onTraffic}
                  />
                )}
              </div>
            </div>
          )}
        </div>
      )}
    </Modal>
  );
}

export function EvalsSection({ backend, suite, onTraffic }: { backend: SuitesBackend; suite: SuiteInfo; onTraffic: (server: string) => void }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const runs = useQuery({ queryKey: keys.evalRuns(suite.path), queryFn: () => backend.evalRuns(suite.path) });
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const [against, setAgainst] = useState<string>("");
  const [open, setOpen] = useState<EvalCell | null>(null);
  const latest = runs.data?.[0];
  const before = useMemo(() => runs.data?.find((r) => String(r.id) === against), [runs.data, against]);
  const untrusted = suite.review?.trusted === false;
  const models = suite.models.length > 0 ? suite.models : [];

  const run = async () => {
    setProgress({ done: 0, total: 0 });
    try {
      const report = await backend.runEvals(suite.path, [], null, (p) => {
        if (p.kind === "started") setProgress({ done: 0, total: p.total });
        else setProgress({ done: p.done, total: p.total });
      });
      await queryClient.invalidateQueries({ queryKey: keys.evalRuns(suite.path) });
      const said = evalSummary(report);
      toast(`${suite.name}: ${said.title}`, { tone: report.failed > 0 ? "danger" : undefined, description: said.description });
    } catch (e) {
      toast(`The evals of ${suite.name} did not run`, { tone: "danger", description: e instanceof Error ? e.message : String(e) });
    } finally {
      setProgress(null);
    }
  };

  return (
    <section className="evals" aria-label={`Evals of ${suite.name}`}>
      <header className="evals-header">
        <h4>
          <MessagesSquare aria-hidden size={15} /> Prompt cases
        </h4>
        <span className="muted">
          {plural(suite.prompts.length, "case")} × {models.length > 0 ? models.map((m) => <code key={m}>{m} </code>) : "no models named (\"models\" in the suite)"}
        </span>
        <Button
          size="sm"
          icon={Play}
          disabled={progress !== null || untrusted || models.length === 0}
          title={untrusted ? "Trust the suite first" : "Each run is a real turn of each model (paid): not part of Run all"}
          onClick={() => void run()}
        >
          {progress ? (progress.total > 0 ? `Running… ${progress.done}/${progress.total}` : "Starting…") : "Run evals"}
        </Button>
      </header>
      {progress && progress.total > 0 && <progress className="eval-progress" max={progress.total} value={progress.done} aria-label="Model runs done" />}
      <ul className="eval-prompts">
        {suite.prompts.map((p) => (
          <li key={p.name}>
            <strong>{p.name}</strong> <span className="muted">“{p.prompt.length > 120 ? `${p.prompt.slice(0, 119)}…` : p.prompt}”</span>{" "}
            <span className="muted">
              · {plural(p.runs, "run")} · needs {percent(p.pass_rate)} · tools of {p.servers.join(", ")}
            </span>
          </li>
        ))}
      </ul>
      {latest ? (
        <>
          <div className="eval-run-head">
            <span className="muted">
              Last run {when(latest.started_at)} · {(num(latest.duration_ms) / 1000).toFixed(1)} s
            </span>
            {(runs.data?.length ?? 0) > 1 && (
              <label className="eval-compare">
                <span>Compare with</span>
                <Select value={against} onChange={(v) => setAgainst(v)} aria-label="Compare with an earlier run">
                  <option value="">—</option>
                  {(runs.data ?? []).slice(1).map((r) => (
                    <option key={r.id} value={String(r.id)}>
                      {when(r.started_at)} ({r.passed} passed, {r.failed} failed){r.fingerprint !== latest.fingerprint ? " · the suite differed" : ""}
                    </option>
                  ))}
                </Select>
              </label>
            )}
          </div>
          <EvalMatrix report={latest} before={before} onOpen={setOpen} />
        </>
      ) : (
        !runs.isPending && <p className="muted">Not run yet. mcpwb test runs them too (--model to choose).</p>
      )}
      <CellRuns
        backend={backend}
        cell={open}
        onClose={() => setOpen(null)}
        onTraffic={(server) => {
          setOpen(null);
          onTraffic(server);
        }}
      />
    </section>
  );
}
