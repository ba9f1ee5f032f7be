// The doctor in a server's panel: run it (optionally probing read-only
// tools and trying both protocol eras), see each finding grouped by code
// with why it matters and how to fix it, and what changed in the server's
// surface since it was last ready. Server text is shown as text only.
import { useEffect, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { Stethoscope } from "lucide-react";
import type { DoctorBackend } from "../ipc";
import type { DoctorReport, Finding, Severity, SurfaceChange } from "../ipc/doctor";
import { Badge, Button, Disclosure, Switch, type Tone, plural } from "../design";
import "./doctor.css";
import { usePlace } from "../shell/places";
import { keys } from "../queries";

const TONE: Record<Severity, Tone> = { error: "danger", warning: "warn", info: "info" };
const WORD: Record<Severity, string> = { error: "error", warning: "warning", info: "note" };

/** Findings grouped by severity and code, worst first, in the order found. */
export function groups(findings: Finding[]): { severity: Severity; code: string; items: Finding[] }[] {
  const out: { severity: Severity; code: string; items: Finding[] }[] = [];
  for (const f of findings) {
    const g = out.find((x) => x.code === f.code && x.severity === f.severity);
    if (g) g.items.push(f);
    else out.push({ severity: f.severity, code: f.code, items: [f] });
  }
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  return out.sort((a, b) => rank[a.severity] - rank[b.severity]);
}

function Group({ severity, code, items }: { severity: Severity; code: string; items: Finding[] }) {
  const first = items[0];
  if (!first) return null;
  return (
    <li className={`doctor-group sev-${severity}`} data-code={code}>
      <div className="doctor-group-head">
        <Badge tone={TONE[severity]}>{WORD[severity]}</Badge> <code>{code}</code>
        {items.length > 1 && <span className="muted"> ×{items.length}</span>}
      </div>
      <p className="doctor-why">{first.why}</p>
      <p className="doctor-fix">
        <strong>Fix:</strong> {first.fix}
      </p>
      <ul className="doctor-items">
        {items.map((f, i) => (
          <li key={i}>
            <span className="doctor-item">{f.item}</span>
            {f.pointer && <code className="doctor-pointer">{f.pointer}</code>}
            <span className="doctor-seen">{f.seen}</span>
          </li>
        ))}
      </ul>
    </li>
  );
}

export function Findings({ findings }: { findings: Finding[] }) {
  const all = groups(findings);
  const serious = all.filter((g) => g.severity !== "info");
  const notes = all.filter((g) => g.severity === "info");
  return (
    <>
      {serious.length === 0 ? (
        <p className="muted">No errors or warnings.</p>
      ) : (
        <ol className="doctor-findings" aria-label="Findings">
          {serious.map((g) => (
            <Group key={`${g.severity}-${g.code}`} {...g} />
          ))}
        </ol>
      )}
      {notes.length > 0 && (
        <Disclosure title="Notes" count={notes.reduce((n, g) => n + g.items.length, 0)} defaultOpen={false}>
          <ol className="doctor-findings" aria-label="Notes">
            {notes.map((g) => (
              <Group key={g.code} {...g} />
            ))}
          </ol>
        </Disclosure>
      )}
    </>
  );
}

function Summary({ report }: { report: DoctorReport }) {
  const n = (s: Severity) => report.findings.filter((f) => f.severity === s).length;
  const count = (s: Severity) => `${n(s)} ${WORD[s]}${n(s) === 1 ? "" : "s"}`;
  const top = report.tokens.tools.slice(0, 3).map(([name, t]) => `${name} ${t}`);
  return (
    <div className="doctor-summary" role="status">
      <p>
        <strong>{count("error")}</strong> · <strong>{count("warning")}</strong> · {count("info")}
        {report.ready_ms != null && <> · ready in {Math.round(report.ready_ms)} ms</>}
        {" · "}
        {plural(report.tokens.tools.length, "tool")} cost {report.tokens.total.toLocaleString()} tokens ({report.tokens.tokenizer})
        {top.length > 0 && <>; most: {top.join(", ")}</>}
      </p>
      {report.eras.length > 0 && (
        <ul className="doctor-eras" aria-label="Protocol eras">
          {report.eras.map((e) => (
            <li key={e.era}>
              <Badge tone={e.ready ? "ok" : "warn"}>{e.era}</Badge> {e.ready ? `ready (${e.answer})` : e.answer}
            </li>
          ))}
        </ul>
      )}
      {(report.clients ?? []).length > 0 && (
        <table className="doctor-clients">
          <caption>How clients find its era</caption>
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Ends</th>
              <th scope="col">Why</th>
            </tr>
          </thead>
          <tbody>
            {(report.clients ?? []).map((c) => (
              <tr key={c.client}>
                <th scope="row" title={c.how}>
                  {c.client}
                </th>
                <td>{c.speaks ? <Badge tone="ok">speaks {c.speaks}</Badge> : <Badge tone="danger">fails</Badge>}</td>
                <td>{c.why}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {report.probed.length > 0 && (
        <ul className="doctor-probed" aria-label="Probed tools">
          {report.probed.map((p) => (
            <li key={p.tool}>
              <code>{p.tool}</code> <code className="muted">{JSON.stringify(p.arguments)}</code> → {p.outcome}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function DoctorSection({ backend, name, ready }: { backend: DoctorBackend; name: string; ready: boolean }) {
  const queryClient = useQueryClient();
  const [probe, setProbe] = useState(false);
  const [eras, setEras] = useState(false);
  const [running, setRunning] = useState(false);
  const [report, setReport] = useState<DoctorReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const run = () => {
    setRunning(true);
    setError(null);
    backend.runDoctor(name, probe, eras).then(
      (r) => {
        setReport(r);
        setRunning(false);
        // The sidebar's badge counts this run now.
        void queryClient.invalidateQueries({ queryKey: keys.doctorCounts() });
      },
      (e: unknown) => {
        setError(e instanceof Error ? e.message : String(e));
        setRunning(false);
      },
    );
  };
  // The last run while the server is as it examined it.
  useEffect(() => {
    setReport(null);
    backend.lastDoctorRun(name).then((r) => r && setReport(r), () => undefined);
  }, [backend, name]);
  // Opened from the sidebar's badge: open, on the findings it counted (a
  // first run when there is none).
  const runRef = useRef(run);
  runRef.current = run;
  usePlace("doctor", name, () => {
    setOpen(true);
    backend.lastDoctorRun(name).then(
      (r) => (r ? setReport(r) : ready && runRef.current()),
      () => undefined,
    );
    // Once it has opened, to its top: its findings are what the badge counted
    // (scrolled while shut, it came to rest at the window's bottom edge).
    requestAnimationFrame(() => document.querySelector(".panel-section.doctor")?.scrollIntoView({ block: "start" }));
  });
  return (
    <Disclosure title="Doctor" open={open} onOpenChange={setOpen} className="panel-section doctor">
      <p className="muted">What clients and LLM providers would refuse or rewrite in this server, and how it behaves — each finding with why it matters and how to fix it.</p>
      <div className="toolbar doctor-options">
        <Switch label="Probe read-only tools" hint="calls them with arguments made from their schemas" checked={probe} onChange={setProbe} />
        <Switch label="Try both protocol eras" hint="connects once more per era" checked={eras} onChange={setEras} />
        <Button variant="primary" icon={Stethoscope} onClick={run} disabled={running || !ready}>
          {running ? "Examining…" : report ? "Run again" : "Run doctor"}
        </Button>
        {!ready && <span className="muted">The server must be ready.</span>}
      </div>
      {error && (
        <p role="alert" className="error-message">
          {error}
        </p>
      )}
      {report && (
        <>
          <Summary report={report} />
          <Findings findings={report.findings} />
        </>
      )}
    </Disclosure>
  );
}

/** What changed in the server's surface when it last came back. */
export function SurfaceChangeSection({ change }: { change: SurfaceChange }) {
  const breaking = change.changes.filter((c) => c.impact === "breaking").length;
  const time = (ms: number) => new Date(ms).toLocaleTimeString(undefined, { hour12: false });
  const earlier = change.unchanged_at_ms != null;
  return (
    <Disclosure
      title={earlier ? "Changed in an earlier reload" : "Changed since it last started"}
      count={change.changes.length}
      defaultOpen
      className="panel-section surface-change"
      actions={breaking > 0 ? <Badge tone="danger">{breaking} breaking</Badge> : undefined}
    >
      {earlier && (
        <p className="surface-unchanged" role="status">
          No changes in the last reload (at {time(change.unchanged_at_ms ?? 0)}). What follows is what an earlier one changed.
        </p>
      )}
      <p className="muted">At {time(change.at_ms ?? 0)}, compared with the last time it was ready.</p>
      <ul className="surface-changes" aria-label="Surface changes">
        {change.changes.map((c, i) => (
          <li key={i} data-impact={c.impact}>
            <Badge tone={c.impact === "breaking" ? "danger" : "ok"}>{c.impact}</Badge> <span>{c.item}</span>
            {c.pointer && <code className="doctor-pointer">{c.pointer}</code>} <span className="muted">{c.message}</span>
          </li>
        ))}
      </ul>
      {change.new_findings.length > 0 && (
        <>
          <h4>New findings</h4>
          <Findings findings={change.new_findings} />
        </>
      )}
    </Disclosure>
  );
}
