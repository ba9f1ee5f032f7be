// Load in the tool panel: the tool called by N at once for a time (at most
// R a second) with the form's arguments; each second drawn as it comes
// (p50 and p99 as lines, calls a second as bars), then the percentiles,
// errors by kind, the CPU used and the histogram. A run is kept in History
// (one row); two runs of the tool compare side by side.
import { useMemo, useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Gauge, Play, Square } from "lucide-react";
import type { CallRow, HistoryBackend } from "../ipc/history";
import type { LoadReport, LoadSecond, ToolsBackend } from "../ipc/tools";
import { Button, Disclosure, Field, Input, Select, useToast } from "../design";
import { afterCall, keys } from "../queries";
import { usePlace } from "../shell/places";

const num = (x: number | null | undefined) => x ?? 0;

/** The runs of this tool kept in History, newest first. */
export function keptRuns(rows: CallRow[] | undefined): { id: number; at: number; report: LoadReport }[] {
  return (rows ?? []).flatMap((r) => {
    const report = (r.result as { structuredContent?: LoadReport } | null)?.structuredContent;
    return r.origin === "load" && report && typeof report.calls === "number" ? [{ id: r.id, at: r.started_at, report }] : [];
  });
}

/** Each second: p50 and p99 as lines, calls a second as bars; `span`:
 * the seconds a running run is to last (its axis), else the seconds shown. */
export function LoadChart({ seconds, span }: { seconds: LoadSecond[]; span?: number }) {
  // The plot, and room for the axes: calls/s on the left, ms on the
  // right, seconds below.
  const [left, right, bottom] = [44, 52, 16];
  const w = 360;
  const h = 120;
  const last = seconds[seconds.length - 1];
  if (!last) return null;
  const maxMs = Math.max(...seconds.map((s) => num(s.p99)), 0.001);
  const maxCalls = Math.max(...seconds.map((s) => s.calls), 1);
  const width = Math.max(seconds.length, span ?? 0, 1);
  const step = w / width;
  const y = (ms: number) => h - 4 - (ms / maxMs) * (h - 8);
  // Latency is drawn where a call succeeded: a second of failures only has none.
  const answered = (s: LoadSecond) => s.calls > s.errors;
  const line = (pick: (s: LoadSecond) => number) =>
    seconds
      .flatMap((s, i) => (answered(s) ? [`${left + (i + 0.5) * step},${y(pick(s))}`] : []))
      .join(" ");
  const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  return (
    <figure className="load-chart">
      <svg width={left + w + right} height={h + bottom} role="img" aria-label={`${seconds.length} seconds: up to ${maxCalls} calls a second, p99 up to ${maxMs.toFixed(2)} ms`}>
        {seconds.map((s, i) => {
          const bh = Math.max(1, (s.calls / maxCalls) * (h - 8));
          return <rect key={i} x={left + i * step + 1} y={h - bh} width={Math.max(1, step - 2)} height={bh} className={s.errors > 0 ? "load-bar load-bar-errors" : "load-bar"} />;
        })}
        <polyline points={line((s) => num(s.p99))} className="load-line load-p99" />
        <polyline points={line((s) => num(s.p50))} className="load-line load-p50" />
        <g className="load-axis" aria-hidden>
          <line x1={left} y1={0} x2={left} y2={h} />
          <line x1={left + w} y1={0} x2={left + w} y2={h} />
          <line x1={left} y1={h} x2={left + w} y2={h} />
          <text x={left - 4} y={10} textAnchor="end">
            {maxCalls.toLocaleString()}
          </text>
          <text x={left - 4} y={h} textAnchor="end">
            0
          </text>
          <text x={left - 4} y={h / 2} textAnchor="end">
            calls/s
          </text>
          <text x={left + w + 4} y={y(maxMs) + 8}>{ms(maxMs)} ms</text>
          <text x={left + w + 4} y={h}>
            0 ms
          </text>
          <text x={left} y={h + bottom - 2}>
            0 s
          </text>
          <text x={left + w} y={h + bottom - 2} textAnchor="end">
            {width} s
          </text>
        </g>
      </svg>
      <figcaption className="muted">
        {last.at} s · {last.calls.toLocaleString()} calls/s · {answered(last) ? `p50 ${num(last.p50).toFixed(2)} ms · p99 ${num(last.p99).toFixed(2)} ms` : "no call succeeded"}
        {last.errors > 0 ? ` · ${last.errors} errors` : ""} <span className="load-key load-key-p50">p50</span> <span className="load-key load-key-p99">p99</span>{" "}
        <span className="load-key load-key-bars">calls/s (max {maxCalls.toLocaleString()})</span>
      </figcaption>
    </figure>
  );
}

/** How many calls took how long (log-spaced buckets). */
export function LoadHistogram({ report }: { report: LoadReport }) {
  const w = 360;
  const h = 80;
  const buckets = report.histogram;
  const first = buckets[0];
  const end = buckets[buckets.length - 1];
  if (!first || !end) return null;
  const max = Math.max(...buckets.map((b) => b.count), 1);
  const bw = w / buckets.length;
  return (
    <figure className="load-histogram">
      <svg width={w} height={h} role="img" aria-label={`Latency histogram of ${report.calls} calls, ${num(first.le).toFixed(2)} to ${num(end.le).toFixed(2)} ms`}>
        {buckets.map((b, i) => {
          const bh = Math.max(1, (b.count / max) * (h - 4));
          return (
            <rect key={i} x={i * bw + 0.5} y={h - bh} width={Math.max(1, bw - 1)} height={bh} className="load-bar">
              <title>{`≤ ${num(b.le).toFixed(2)} ms: ${b.count}`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="muted">
        {num(first.le).toFixed(2)} ms … {num(end.le).toFixed(2)} ms
      </figcaption>
    </figure>
  );
}

// A latency where no call succeeded is none, not 0 ms.
const latency = (r: LoadReport, v: number | null): number | null => (r.ok > 0 ? num(v) : null);

const figures: { label: string; of: (r: LoadReport) => number | null; unit: string; higherIsBetter?: boolean }[] = [
  { label: "calls/s", of: (r) => num(r.throughput), unit: "", higherIsBetter: true },
  { label: "p50", of: (r) => latency(r, r.latency.p50), unit: " ms" },
  { label: "p90", of: (r) => latency(r, r.latency.p90), unit: " ms" },
  { label: "p99", of: (r) => latency(r, r.latency.p99), unit: " ms" },
  { label: "p99.9", of: (r) => latency(r, r.latency.p999), unit: " ms" },
  { label: "max", of: (r) => latency(r, r.latency.max), unit: " ms" },
  { label: "errors", of: (r) => r.errors.tool + r.errors.protocol + r.errors.timeout + r.errors.disconnect, unit: "" },
];

/** How a run was asked for, in a few words (as `mcpwb load` says it). */
export function settingsSaid(s: LoadReport["settings"]): string {
  if (!s) return "not recorded";
  const atOnce = s.ramp_to != null ? `${s.concurrency} to ${s.ramp_to} at once` : `${s.concurrency} at once`;
  const length = s.seconds != null ? ` × ${s.seconds} s` : s.calls != null ? ` × ${s.calls} calls` : "";
  return `${atOnce}${length}${s.rate != null ? `, at most ${s.rate} calls/s` : ""}`;
}

/** A run's figures, and beside them another's with the change; when the
 * two were asked for differently, that is said first (p50 +99% means
 * little when the concurrency doubled). */
export function LoadFigures({ report, other }: { report: LoadReport; other?: LoadReport }) {
  const differ = other !== undefined && settingsSaid(report.settings) !== settingsSaid(other.settings);
  return (
    <>
    {differ && (
      <p className="callout tone-warn load-unlike" role="status">
        Not like for like: this run was {settingsSaid(report.settings)}, the compared one {settingsSaid(other.settings)}.
      </p>
    )}
    <table className="load-figures">
      <thead>
        <tr>
          <th scope="col">Figure</th>
          <th scope="col">This run</th>
          {other && <th scope="col">Compared run</th>}
          {other && <th scope="col">Change</th>}
        </tr>
      </thead>
      <tbody>
        {other && (
          <tr className={differ ? "load-worse" : undefined}>
            <th scope="row">settings</th>
            <td>{settingsSaid(report.settings)}</td>
            <td>{settingsSaid(other.settings)}</td>
            <td className="muted">{differ ? "differ" : "same"}</td>
          </tr>
        )}
        {figures.map((f) => {
          const a = f.of(report);
          const b = other ? f.of(other) : null;
          const change = a != null && b != null && b > 0 ? (a - b) / b : null;
          const shown = (v: number | null) => (v == null ? "—" : `${v.toLocaleString(undefined, { maximumFractionDigits: 2 })}${f.unit}`);
          const worse = change != null && (f.higherIsBetter ? change < -0.05 : change > 0.05);
          const better = change != null && (f.higherIsBetter ? change > 0.05 : change < -0.05);
          return (
            <tr key={f.label}>
              <th scope="row">{f.label}</th>
              <td>{shown(a)}</td>
              {other && <td>{shown(b)}</td>}
              {other && <td className={worse ? "load-worse" : better ? "load-better" : "muted"}>{change == null ? "—" : `${change > 0 ? "+" : ""}${(change * 100).toFixed(0)}%`}</td>}
            </tr>
          );
        })}
      </tbody>
    </table>
    </>
  );
}

export function LoadSection({
  backend,
  server,
  tool,
  args,
  valid,
}: {
  backend: ToolsBackend & HistoryBackend;
  server: string;
  tool: string;
  args: unknown;
  /** The form's arguments are valid (a run uses them as they are). */
  valid: boolean;
}) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  // Opened from the command palette (Load: SERVER/TOOL).
  usePlace("load", `${server}/${tool}`, () => {
    setOpen(true);
    requestAnimationFrame(() => document.querySelector(".load-section")?.scrollIntoView({ block: "nearest" }));
  });
  const [concurrency, setConcurrency] = useState(8);
  const [seconds, setSeconds] = useState(10);
  const [rate, setRate] = useState("");
  const [running, setRunning] = useState(false);
  const [live, setLive] = useState<LoadSecond[]>([]);
  const [report, setReport] = useState<LoadReport | null>(null);
  const [against, setAgainst] = useState("");
  const past = useQuery({ queryKey: keys.toolHistory(server, tool), queryFn: () => backend.toolHistory(server, tool, 20) });
  const kept = useMemo(() => keptRuns(past.data), [past.data]);
  const other = kept.find((k) => String(k.id) === against)?.report;

  const start = async () => {
    setRunning(true);
    setLive([]);
    setReport(null);
    try {
      const r = parseFloat(rate);
      const run = await backend.runLoad(server, tool, args ?? {}, { concurrency, durationMs: seconds * 1000, rate: r > 0 ? r : null }, (s) =>
        setLive((all) => [...all, s]),
      );
      setReport(run.report);
      afterCall(queryClient, server, tool);
    } catch (e) {
      toast("The load run did not start", { tone: "danger", description: e instanceof Error ? e.message : String(e) });
    } finally {
      setRunning(false);
    }
  };

  return (
    <Disclosure title="Load" open={open} onOpenChange={setOpen} className="load-section">
      <p className="muted">
        Calls this tool with the arguments above, {concurrency} at a time, for {seconds} s. Kept in History as one run. A tool that may change things runs only
        under a rule you set (Not by hand: Allow, above).
      </p>
      <div className="load-controls">
        <Field label="At once">
          <Input type="number" min={1} max={1024} value={concurrency} disabled={running} onChange={(e) => setConcurrency(Math.max(1, Math.min(1024, Number(e.target.value) || 1)))} />
        </Field>
        <Field label="Seconds">
          <Input type="number" min={1} max={3600} value={seconds} disabled={running} onChange={(e) => setSeconds(Math.max(1, Math.min(3600, Number(e.target.value) || 1)))} />
        </Field>
        <Field label="At most calls/s">
          <Input type="number" min={0} value={rate} placeholder="no limit" disabled={running} onChange={(e) => setRate(e.target.value)} />
        </Field>
        {running ? (
          <Button icon={Square} onClick={() => void backend.stopLoad()}>
            Stop
          </Button>
        ) : (
          <Button icon={Play} disabled={!valid} title={valid ? undefined : "Fix the arguments first"} onClick={() => void start()}>
            Start load
          </Button>
        )}
      </div>
      <LoadChart seconds={live.length > 0 ? live : (report?.seconds ?? [])} span={running ? seconds : undefined} />
      {report && (
        <div className="load-result" aria-label="Load run result">
          <p>
            <Gauge aria-hidden size={14} /> {report.calls.toLocaleString()} calls in {(num(report.duration_ms) / 1000).toFixed(1)} s ·{" "}
            {num(report.throughput).toFixed(0)} calls/s ·{" "}
            {report.ok > 0 ? `p50 ${num(report.latency.p50).toFixed(2)} ms · p99 ${num(report.latency.p99).toFixed(2)} ms` : "no call succeeded"} · errors: tool{" "}
            {report.errors.tool}, protocol {report.errors.protocol}, timeout {report.errors.timeout}, disconnect {report.errors.disconnect} · CPU: client{" "}
            {(num(report.client_cpu) * 100).toFixed(0)}%{report.server_cpu != null ? `, server ${(num(report.server_cpu) * 100).toFixed(0)}%` : ""}
          </p>
          {(report.errors_said ?? []).length > 0 && (
            <ul className="load-errors" aria-label="What the failed calls said">
              {(report.errors_said ?? []).map((e) => (
                <li key={`${e.kind} ${e.message}`}>
                  <span className="load-errors-count">
                    {e.count.toLocaleString()}× {e.kind}
                  </span>{" "}
                  {e.message}
                </li>
              ))}
            </ul>
          )}
          {report.stopped && <p className="callout tone-warn">Stopped: {report.stopped}</p>}
          {report.warnings.map((w) => (
            <p key={w} className="callout tone-warn">
              {w}
            </p>
          ))}
          <LoadHistogram report={report} />
          {kept.length > 1 && (
            <Field label="Compare with">
              <Select value={against} onChange={setAgainst} aria-label="Compare with an earlier run">
                <option value="">—</option>
                {kept.slice(1).map((k) => (
                  <option key={k.id} value={String(k.id)}>
                    {new Date(k.at).toLocaleString()} · {num(k.report.throughput).toFixed(0)} calls/s · p99 {num(k.report.latency.p99).toFixed(2)} ms
                  </option>
                ))}
              </Select>
            </Field>
          )}
          <LoadFigures report={report} other={other} />
        </div>
      )}
    </Disclosure>
  );
}
