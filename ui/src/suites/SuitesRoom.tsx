// The Suites room: the project's and the user's suites (saved calls with
// assertions, the files `mcpwb test` runs in CI), read afresh from their
// folders while the room is open and before each run. Run all, one suite or
// one case; each failure shows its assertion, what was seen and the diff; a
// case's call opens in History. A suite the person did not write shows what
// it would call and read, and runs only once they trust it.
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Camera, FlaskConical, History, Play, ShieldAlert } from "lucide-react";
import type { CaseResult, HistoryBackend, SuiteInfo, SuiteReport } from "../ipc/history";
import { EvalsSection, type SuitesBackend } from "./Evals";
import type { RoomId } from "../shell/route";
import { Badge, Button, EmptyState, Skeleton, plural, useToast, type Tone } from "../design";
import "./suites.css";
import "../servers/trust.css";
import { keys } from "../queries";

const tone: Record<CaseResult["outcome"], Tone> = { passed: "ok", failed: "danger", skipped: "neutral", not_ready: "warn" };
const word: Record<CaseResult["outcome"], string> = { passed: "passed", failed: "failed", skipped: "skipped", not_ready: "not ready" };

function Outcome({ result, onTakeSnapshot }: { result: CaseResult; onTakeSnapshot?: () => void }) {
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
          {f.assertion === "snapshot" && onTakeSnapshot && (
            <Button size="sm" icon={Camera} onClick={onTakeSnapshot}>
              Take the new result as the snapshot
            </Button>
          )}
        </div>
      ))}
    </div>
  );
}

/** How often the room reads its folders again while it is open (a case
 * added in an editor, a new suite file, a pull). */
export const SUITES_REREAD_MS = 2000;

/** What an untrusted suite would do, and the button that trusts it. */
function TrustSuite({ suite, backend, onTrusted }: { suite: SuiteInfo; backend: HistoryBackend; onTrusted: () => void }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const review = suite.review;
  if (!review || review.trusted) return null;
  const trust = async () => {
    setBusy(true);
    try {
      await backend.trustSuite(suite.path, review.fingerprint);
      onTrusted();
    } catch (e) {
      toast(`${suite.name} was not trusted`, { tone: "danger", description: e instanceof Error ? e.message : String(e) });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="callout tone-warn suite-trust" role="group" aria-label={`${suite.name} is not trusted`}>
      <p>
        <ShieldAlert aria-hidden size={16} /> <strong>Not trusted.</strong>{" "}
        {review.made_from
          ? `This suite was made from ${review.made_from}: its arguments are what the host (or its model) sent.`
          : "This suite came with the project (or was changed outside the workbench): it calls your servers' tools with arguments of its choosing."}{" "}
        It runs once you trust it as it is now.
      </p>
      <dl className="trust-facts">
        <dt>It calls</dt>
        <dd>{review.calls.length === 0 ? "no tool by itself" : review.calls.map((c) => <code key={c}>{c} </code>)}</dd>
        {review.models.length > 0 && (
          <>
            <dt>It asks</dt>
            <dd className="trust-flag">
              {review.models.map((m) => (
                <code key={m}>{m} </code>
              ))}
              — each prompt case is a real, paid turn of these models, which may call any tool of{" "}
              {review.eval_servers.map((s) => (
                <code key={s}>{s} </code>
              ))}
              (under your rules: a tool that may change things only if you allowed it)
            </dd>
          </>
        )}
        {review.env.length > 0 && (
          <>
            <dt>It reads</dt>
            <dd className="trust-flag">
              {review.env.map((v) => (
                <code key={v}>{`\${env:${v}} `}</code>
              ))}
              — from your environment, sent to the tools above
            </dd>
          </>
        )}
      </dl>
      <Button size="sm" disabled={busy} onClick={() => void trust()}>
        Trust this suite
      </Button>
    </div>
  );
}

export function SuitesRoom({ backend, go }: { backend: SuitesBackend; go: (room: RoomId, param?: string) => void }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const suites = useQuery({ queryKey: keys.suites(), queryFn: () => backend.suites(), refetchInterval: SUITES_REREAD_MS });
  const [results, setResults] = useState<Record<string, Record<string, CaseResult>>>({});
  const [running, setRunning] = useState<string | null>(null);
  const reread = () => queryClient.invalidateQueries({ queryKey: keys.suites() });

  const run = async (suite: SuiteInfo, only: string | null, takeSnapshot = false) => {
    setRunning(only ? `${suite.path}#${only}` : suite.path);
    try {
      // The file as it is now: the room lists what runs.
      void reread();
      const report: SuiteReport = await backend.runSuite(suite.path, only, takeSnapshot);
      if (takeSnapshot) toast(`${only}: its snapshot is the new result`);
      const got: Record<string, CaseResult> = {};
      for (const c of report.suites.flatMap((s) => s.cases)) {
        if (!(only && c.outcome === "skipped" && c.name !== only)) got[c.name] = c;
      }
      setResults((r) => ({ ...r, [suite.path]: { ...(only ? r[suite.path] : {}), ...got } }));
      if (!only) toast(`${suite.name}: ${report.passed} passed, ${report.failed} failed`, { tone: report.failed > 0 ? "danger" : undefined });
      void reread();
    } catch (e) {
      toast(`${suite.name} did not run`, { tone: "danger", description: e instanceof Error ? e.message : String(e) });
    } finally {
      setRunning(null);
    }
  };
  const runAll = async () => {
    for (const s of (suites.data ?? []).filter((s) => !s.broken && s.review?.trusted !== false)) await run(s, null);
  };

  const list = suites.data ?? [];
  return (
    <div className="room-scroll suites-room">
      <header className="room-header suites-header">
        <h2>
          <FlaskConical aria-hidden size={18} /> Suites
        </h2>
        <p className="muted">
          Saved calls with what their results must be: the project's in .mcp-workbench/suites, yours beside the workbench's mcp.json. mcpwb test runs both.
        </p>
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
            <span className="muted">
              {[s.cases.length > 0 || s.prompts.length === 0 ? plural(s.cases.length, "case") : null, s.prompts.length > 0 ? plural(s.prompts.length, "prompt case") : null]
                .filter(Boolean)
                .join(" · ")}
            </span>
            <Button
              size="sm"
              icon={Play}
              disabled={running !== null || Boolean(s.broken) || s.review?.trusted === false || s.cases.length === 0}
              title={s.review?.trusted === false ? "Trust the suite first" : undefined}
              onClick={() => void run(s, null)}
            >
              {running === s.path ? "Running…" : "Run suite"}
            </Button>
          </header>
          <TrustSuite suite={s} backend={backend} onTrusted={() => void reread()} />
          {s.broken && (
            <div className="error-banner" role="alert">
              <p className="error-message">This suite cannot run: {s.broken}</p>
            </div>
          )}
          {s.prompts.length > 0 && <EvalsSection backend={backend} suite={s} onTraffic={(server) => go("traffic", server)} />}
          {s.cases.length > 0 && <ol className="cases">
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
                    <Button
                      size="sm"
                      variant="ghost"
                      icon={Play}
                      disabled={running !== null || s.review?.trusted === false}
                      aria-label={`Run case ${c.name}`}
                      onClick={() => void run(s, c.name)}
                    >
                      Run
                    </Button>
                    {result?.history_key != null && (
                      <Button size="sm" variant="ghost" icon={History} onClick={() => go("history", result.history_key ?? undefined)}>
                        Its call
                      </Button>
                    )}
                  </div>
                  {result && <Outcome result={result} onTakeSnapshot={running === null ? () => void run(s, c.name, true) : undefined} />}
                </li>
              );
            })}
          </ol>}
        </section>
      ))}
    </div>
  );
}
