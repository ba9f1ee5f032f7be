// Consent before a server from elsewhere runs: exactly what it would run
// (the full command line, folder, environment with its values — literal
// credentials masked, variables that change what runs flagged) or where
// it would send credentials (URL, headers, its sign-in client), what it
// would let run without asking, and every ${...} it reads — then the
// person trusts it, or leaves it stopped.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ShieldAlert, ShieldCheck } from "lucide-react";
import { useState } from "react";
import type { TrustRequest } from "../ipc";
import { Button, Skeleton, useToast } from "../design";
import "./trust.css";
import { keys } from "../queries";
import type { ServersBackend } from "../ipc";

export function TrustCard({ backend, name }: { backend: ServersBackend; name: string }) {
  const toast = useToast();
  const client = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const asked = useQuery({ queryKey: keys.trust(name), queryFn: () => backend.trustRequest(name) });
  const r = asked.data;
  return (
    <section className="panel-section trust-card callout tone-warn" aria-labelledby={`trust-${name}`}>
      <h3 id={`trust-${name}`}>
        <ShieldAlert aria-hidden size={16} /> Not started: do you trust it?
      </h3>
      <p>
        This server comes from {r?.scope === "project" ? "the project's file" : "a file the workbench did not write for you (found there, named with --config, imported or edited outside)"}. It
        starts only when you say so; read what it would do first.
      </p>
      {asked.isPending && <Skeleton lines={3} label="Reading the entry" />}
      {asked.isError && <p role="alert">{asked.error instanceof Error ? asked.error.message : String(asked.error)}</p>}
      {r && (
        <dl className="trust-facts">
          <dt>File</dt>
          <dd>
            <code>{r.file}</code>
          </dd>
          <dt>{r.target.includes("://") ? "Address" : "Runs"}</dt>
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
          <Values label="Environment" values={r.env} />
          <Values label="Headers" values={r.headers} />
          <Values label="Signs in with" values={r.oauth} />
          {r.auto_approve.length > 0 && (
            <>
              <dt>Runs unasked</dt>
              <dd className="trust-flag">
                {r.auto_approve.includes("*") ? "every tool" : r.auto_approve.map((t) => <code key={t}>{t} </code>)} — its file switches approval off for{" "}
                {r.auto_approve.includes("*") ? "them" : r.auto_approve.length === 1 ? "this tool" : "these tools"}
              </dd>
            </>
          )}
          {r.allow_insecure && (
            <>
              <dt>Plain http</dt>
              <dd className="trust-flag">sends its credentials over plain http to another machine (allowInsecure)</dd>
            </>
          )}
          {r.watch.length > 0 && (
            <>
              <dt>Restarts on</dt>
              <dd>
                {r.watch.map((w) => (
                  <code key={w}>{w} </code>
                ))}
                — a change to these files restarts it unasked (dev.watch)
              </dd>
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
            if (!r) return;
            setBusy(true);
            setError(null);
            // What is trusted is what is read here: an entry changed since is
            // refused, and the card reads it again.
            backend
              .trustServer(name, r.fingerprint)
              .then(
                () => toast(`${name} trusted`, { description: "It starts now. A change to what it runs asks again." }),
                (e: unknown) => {
                  setError(e instanceof Error ? e.message : String(e));
                  void client.invalidateQueries({ queryKey: keys.trust(name) });
                },
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

/** Names and values as the file has them; a flagged one says why it matters. */
function Values({ label, values }: { label: string; values: TrustRequest["env"] }) {
  if (values.length === 0) return null;
  return (
    <>
      <dt>{label}</dt>
      <dd>
        <ul className="trust-values">
          {values.map((v) => (
            <li key={v.name} className={v.changes_what_runs ? "trust-flag" : undefined}>
              <code>
                {v.name}={v.value}
              </code>
              {v.masked && <span className="muted"> (a credential, masked)</span>}
              {v.changes_what_runs && <span> — changes what runs: {v.changes_what_runs}</span>}
            </li>
          ))}
        </ul>
      </dd>
    </>
  );
}
