// Before publishing, in a server's panel: its folder checked as the MCP
// Registry and the hosts will see it (server.json, manifest.json, the
// ownership markers, versions, each host's PATH), and — only when the
// person switches it on — each way started as each host would start it.
import { useEffect, useState } from "react";
import { PackageCheck } from "lucide-react";
import type { ConfigBackend, DoctorBackend } from "../ipc";
import type { PublishReport } from "../ipc/doctor";
import { Button, Disclosure, Field, Input, Switch } from "../design";
import { Findings } from "./DoctorView";

export function PublishSection({ backend, name }: { backend: DoctorBackend & ConfigBackend; name: string }) {
  const [folder, setFolder] = useState("");
  const [run, setRun] = useState(false);
  const [checking, setChecking] = useState(false);
  const [report, setReport] = useState<PublishReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The entry's working folder, where its files usually are.
  useEffect(() => {
    backend.serverEntry(name).then(
      (e) => typeof e.cwd === "string" && setFolder((f) => f || (e.cwd as string)),
      () => undefined,
    );
  }, [backend, name]);
  // What starts is what the person saw listed: the ways of the last check
  // of this folder. With none seen yet, the check lists them first.
  const seen = report && report.folder === folder.trim() ? report.fingerprint : null;
  const check = () => {
    setChecking(true);
    setError(null);
    backend.publishCheck(folder, run, run ? seen : null).then(
      (r) => {
        setReport(r);
        setChecking(false);
      },
      (e: unknown) => {
        setError(e instanceof Error ? e.message : String(e));
        setChecking(false);
      },
    );
  };
  return (
    <Disclosure title="Before you publish" defaultOpen={false} className="panel-section publish-check">
      <p className="muted">Its folder as the MCP Registry and each host will see it: server.json, a bundle's manifest.json, ownership markers, versions, and whether each host's PATH finds its command.</p>
      <Field label="The server's folder" hint="Where server.json, manifest.json and package.json are.">
        <Input value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="/home/you/my-server" spellCheck={false} />
      </Field>
      <div className="toolbar doctor-options">
        <Switch label="Start each way as each host would" hint="runs the folder's commands with each host's PATH" checked={run} onChange={setRun} />
        <Button variant="primary" icon={PackageCheck} onClick={check} disabled={checking || !folder.trim()}>
          {checking ? "Checking…" : run && seen ? "Check and start" : "Check"}
        </Button>
      </div>
      {error && (
        <p role="alert" className="error-message">
          {error}
        </p>
      )}
      {report && (
        <>
          {report.ways.length > 0 && (
            <ul className="publish-ways" aria-label="What each host runs">
              {report.ways.map((w) => (
                <li key={w.label}>
                  <strong>{w.label}</strong>{" "}
                  <code>{typeof w.entry.command === "string" ? [w.entry.command, ...((w.entry.args as string[] | undefined) ?? [])].join(" ") : String(w.entry.url ?? "")}</code>
                  <ul>
                    {report.runs
                      .filter((r) => r.way === w.label)
                      .map((r) => (
                        <li key={r.host} className={r.started ? "publish-run ok" : "publish-run failed"}>
                          {r.host}: {r.started ? `started, ${r.tools.length} tools; ${doctorSaid(r.doctor)}` : `did not start: ${r.error ?? ""}`}
                        </li>
                      ))}
                  </ul>
                </li>
              ))}
            </ul>
          )}
          {run && report.runs.length === 0 && report.ways.some((w) => typeof w.entry.command === "string") && (
            <p role="status" className="muted">
              Nothing started yet: above is what each host would run. Check and start to run it.
            </p>
          )}
          {report.findings.length === 0 ? <p role="status">Nothing found: ready to publish.</p> : <Findings findings={report.findings} />}
        </>
      )}
    </Disclosure>
  );
}

/** What the doctor found on one host's run, in a few words. */
function doctorSaid(found: { severity: string }[]): string {
  const errors = found.filter((f) => f.severity === "error").length;
  const warnings = found.filter((f) => f.severity === "warning").length;
  if (errors + warnings === 0) return "the doctor found nothing serious";
  return `the doctor: ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}`;
}
