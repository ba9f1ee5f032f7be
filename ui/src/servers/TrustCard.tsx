// Consent before a server from elsewhere runs: exactly what it would run
// (the full command line, folder, environment names) or where it would
// send credentials (URL, header names), and every ${...} it reads — then
// the person trusts it, or leaves it stopped.
import { useQuery } from "@tanstack/react-query";
import { ShieldAlert, ShieldCheck } from "lucide-react";
import { useState } from "react";
import type { Backend } from "../backend";
import { Button, Skeleton, useToast } from "../design";
import "./trust.css";

export function TrustCard({ backend, name }: { backend: Backend; name: string }) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const asked = useQuery({ queryKey: ["trust", name], queryFn: () => backend.trustRequest(name) });
  const r = asked.data;
  return (
    <section className="panel-section trust-card callout tone-warn" aria-labelledby={`trust-${name}`}>
      <h3 id={`trust-${name}`}>
        <ShieldAlert aria-hidden size={16} /> Not started: do you trust it?
      </h3>
      <p>
        This server comes from {r?.scope === "project" ? "the project's file" : "a change made outside the workbench or an import"}. It starts only when you say so;
        read what it would do first.
      </p>
      {asked.isPending && <Skeleton lines={3} label="Reading the entry" />}
      {asked.isError && <p role="alert">{asked.error instanceof Error ? asked.error.message : String(asked.error)}</p>}
      {r && (
        <dl className="trust-facts">
          <dt>File</dt>
          <dd>
            <code>{r.file}</code>
          </dd>
          <dt>{r.header_names.length > 0 || r.target.includes("://") ? "Address" : "Runs"}</dt>
          <dd>
            <code className="trust-target">{r.target}</code>
          </dd>
          {r.cwd && (
            <>
              <dt>In folder</dt>
              <dd>
                <code>{r.cwd}</code>
              </dd>
            </>
          )}
          {r.env_keys.length > 0 && (
            <>
              <dt>Environment</dt>
              <dd>{r.env_keys.join(", ")} (values not shown)</dd>
            </>
          )}
          {r.header_names.length > 0 && (
            <>
              <dt>Headers</dt>
              <dd>{r.header_names.join(", ")} (values not shown)</dd>
            </>
          )}
          <dt>Reads</dt>
          <dd>{r.references.length > 0 ? r.references.map((x) => <code key={x}>{x} </code>) : "no variables, secrets or inputs"}</dd>
        </dl>
      )}
      <div className="toolbar">
        <Button
          variant="primary"
          icon={ShieldCheck}
          disabled={!r || busy}
          onClick={() => {
            setBusy(true);
            setError(null);
            backend
              .trustServer(name)
              .then(
                () => toast(`${name} trusted`, { description: "It starts now. A change to what it runs asks again." }),
                (e: unknown) => setError(e instanceof Error ? e.message : String(e)),
              )
              .finally(() => setBusy(false));
          }}
        >
          Trust and start
        </Button>
        {error && <span role="alert">{error}</span>}
      </div>
    </section>
  );
}
