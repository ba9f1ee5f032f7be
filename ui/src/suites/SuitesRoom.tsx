// The Suites room: the project's and the user's suites (saved calls with
// assertions, the files `mcpwb test` runs in CI). Run all, one suite or one
// case; each failure shows its assertion, what was seen and the diff; a
// case's call opens in History.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { FlaskConical, History, Play } from "lucide-react";
import type { CaseResult, HistoryBackend, SuiteInfo, SuiteReport } from "../backendHistory";
import type { RoomId } from "../shell/route";
import { Badge, Button, EmptyState, Skeleton, useToast, type Tone } from "../design";
import "./suites.css";
import { keys } from "../queries";

const tone: Record<CaseResult["outcome"], Tone> = { passed: "ok", failed: "danger", skipped: "neutral", not_ready: "warn" };
const word: Record<CaseResult["outcome"], string> = { passed: "passed", failed: "failed", skipped: "skipped", not_ready: "not ready" };

function Outcome({ result }: { result: CaseResult }) {
  return (
    <div className="case-outcome">
      <Badge tone={tone[result.outcome]}>{word[result.outcome]}</Badge>
      {result.duration_ms != null && <span className="muted">{result.duration_ms.toFixed(0)} ms</span>}
      {result.note && <span className="muted">{result.note}</span>}
      {result.failures.map((f, i) => (
        <div key={i} className="case-failure" role="group" aria-label={`Failed: ${f.assertion}`}>
          <p>
            <strong>{f.assertion}</strong>: {f.message}
          </p>
          {f.diff && (
            <pre className="diff-lines case-diff" aria-label="Expected (-) against actual (+)">
              {f.diff.trimEnd().split("\n").map((l, j) => (
                <span key={j} className={l.startsWith("+") ? "added" : l.startsWith("-") ? "removed" : undefined}>
                  {`${l}\n`}
                </span>
              ))}
            </pre>
          )}
        </div>
      ))}
    </div>
  );
}

export function SuitesRoom({ backend, go }: { backend: HistoryBackend; go: (room: RoomId, param?: string) => void }) {
  const toast = useToast();
  const suites = useQuery({ queryKey: keys.suites(), queryFn: () => backend.suites() });
  const [results, setResults] = useState<Record<string, Record<string, CaseResult>>>({});
  const [running, setRunning] = useState<string | null>(null);

  const run = async (suite: SuiteInfo, only: string | null) => {
    setRunning(only ? `${suite.path}#${only}` : suite.path);
    try {
      const report: SuiteReport = await backend.runSuite(suite.path, only);
      const got: Record<string, CaseResult> = {};
      for (const c of report.suites.flatMap((s) => s.cases)) {
        if (!(only && c.outcome === "skipped" && c.name !== only)) got[c.name] = c;
      }
      setResults((r) => ({ ...r, [suite.path]: { ...(only ? r[suite.path] : {}), ...got } }));
      if (!only) toast(`${suite.name}: ${report.passed} passed, ${report.failed} failed`, { tone: report.failed > 0 ? "danger" : undefined });
    } catch (e) {
      toast(`${suite.name} did not run`, { tone: "danger", description: e instanceof Error ? e.message : String(e) });
    } finally {
      setRunning(null);
    }
  };
  const runAll = async () => {
    for (const s of (suites.data ?? []).filter((s) => !s.broken)) await run(s, null);
  };

  const list = suites.data ?? [];
  return (
    <div className="room-scroll suites-room">
      <header className="room-header suites-header">
        <h2>
          <FlaskConical aria-hidden size={18} /> Suites
        </h2>
        <p className="muted">Saved calls with what their results must be, kept in the project (.mcp-workbench/suites) and run in CI with mcpwb test.</p>
        <Button variant="primary" icon={Play} disabled={running !== null || list.length === 0} onClick={() => void runAll()}>
          Run all
        </Button>
      </header>
      {suites.isPending && <Skeleton lines={4} label="Loading the suites" />}
      {!suites.isPending && list.length === 0 && (
        <EmptyState icon={FlaskConical} title="No suites yet">
          In the tool panel or in History, Save to suite turns a call into a case with assertions proposed from its result.
        </EmptyState>
      )}
      {list.map((s) => (
        <section key={s.path} className="suite" aria-label={`Suite ${s.name}`}>
          <header className="suite-header">
            <h3>{s.name}</h3>
            <Badge>{s.scope}</Badge>
            {s.server && <Badge tone="info">{s.server}</Badge>}
            <span className="muted suite-path">{s.path}</span>
            <Button size="sm" icon={Play} disabled={running !== null || Boolean(s.broken)} onClick={() => void run(s, null)}>
              {running === s.path ? "Running…" : "Run suite"}
            </Button>
          </header>
          {s.broken && (
            <div className="error-banner" role="alert">
              <p className="error-message">This suite cannot run: {s.broken}</p>
            </div>
          )}
          <ol className="cases">
            {s.cases.map((c) => {
              const result = results[s.path]?.[c.name];
              return (
                <li key={c.name} className="case">
                  <div className="case-head">
                    <span className="case-name">{c.name}</span>
                    <span className="muted">
                      {c.surface ? "surface of " : ""}
                      {c.server ?? s.server}/{c.tool}
                    </span>
                    <Button size="sm" variant="ghost" icon={Play} disabled={running !== null} aria-label={`Run case ${c.name}`} onClick={() => void run(s, c.name)}>
                      Run
                    </Button>
                    {result?.history_id != null && (
                      <Button size="sm" variant="ghost" icon={History} onClick={() => go("history", String(result.history_id))}>
                        Its call
                      </Button>
                    )}
                  </div>
                  {result && <Outcome result={result} />}
                </li>
              );
            })}
          </ol>
        </section>
      ))}
    </div>
  );
}
