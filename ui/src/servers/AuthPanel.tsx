// Sign-in to a remote server (OAuth), and what each step of it did: the
// state (signed out / signed in at, scopes, expires in), the server's last
// refusal (401, or 403 insufficient_scope: sign in again with the wider
// scope), Sign in (the system browser; step by step if asked: one step per
// click), Refresh now, Force expiry (to watch a refresh), Sign out, and the
// run's timeline — each HTTP exchange with its status and time, and any
// MUST of the specification it broke, quoted.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import { useEffect, useState } from "react";
import type { AuthRun, AuthTimeline, AuthBackend, WindowBackend } from "../ipc";
import { Badge, Button, Checkbox, Disclosure, Skeleton, useToast } from "../design";
import "./auth.css";
import { keys } from "../queries";

/** A reply as sent, laid out when it is JSON (the server sends it on one line). */
export function pretty(text: string): string {
  const t = text.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return text;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return text;
  }
}

function expiry(seconds: number | null): string {
  if (seconds === null) return "no expiry given";
  if (seconds <= 0) return "expired";
  if (seconds < 120) return `expires in ${seconds} s`;
  if (seconds < 7200) return `expires in ${Math.round(seconds / 60)} min`;
  return `expires in ${Math.round(seconds / 3600)} h`;
}

export function AuthPanel({ backend, name, answers = false }: { backend: AuthBackend & WindowBackend; name: string; answers?: boolean }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const [run, setRun] = useState<AuthRun | null>(null);
  const [stepByStep, setStepByStep] = useState(false);
  // Step by step: the steps so far, while the flow waits for the next click.
  const [paused, setPaused] = useState<AuthTimeline | null>(null);
  // The steps this run has shown so far (kept while the next one runs).
  const [sofar, setSofar] = useState<AuthTimeline | null>(null);
  // The sign-in page's address while the browser is out (copyable).
  const [browser, setBrowser] = useState<{ url: string; error: string | null } | null>(null);
  // Polled: a refusal can come from any request (a tool call, a list).
  const status = useQuery({ queryKey: keys.auth(name), queryFn: () => backend.authStatus(name), refetchInterval: 3000 });
  useEffect(() => {
    let stop: (() => void) | undefined;
    let gone = false;
    void backend
      .onAuthStepped((server, timeline) => {
        if (server === name) {
          setPaused(timeline);
          setSofar(timeline);
        }
      })
      .then((u) => (gone ? u() : (stop = u)));
    let stopBrowser: (() => void) | undefined;
    void backend
      .onAuthBrowser((server, url, error) => {
        if (server === name) setBrowser({ url, error });
      })
      .then((u) => (gone ? u() : (stopBrowser = u)));
    return () => {
      gone = true;
      stop?.();
      stopBrowser?.();
    };
  }, [backend, name]);
  const act = (label: string, doing: Promise<AuthRun>) => {
    setBusy(label);
    setPaused(null);
    setSofar(null);
    setBrowser(null);
    doing.then(
      (r) => {
        setRun(r);
        queryClient.setQueryData(keys.auth(name), r.status);
        if (r.error) toast(`${label} failed`, { tone: "danger", description: r.error });
        else toast(`${label}: done`);
      },
      (e: unknown) => toast(`${label} failed`, { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    ).finally(() => {
      setBusy(null);
      setPaused(null);
      setSofar(null);
      setBrowser(null);
    });
  };
  const signIn = (label: string, widen: boolean) => act(label, backend.authSignIn(name, { widen, stepByStep }));
  const next = (go: boolean) => {
    setPaused(null);
    backend.authNext(name, go).catch((e: unknown) => toast("Not sent", { tone: "danger", description: e instanceof Error ? e.message : String(e) }));
  };
  const shown = paused ?? sofar ?? run?.timeline ?? null;
  const lastStep = paused?.steps[paused.steps.length - 1];
  const waitingLabel = paused ? (lastStep ? `Paused after ${lastStep.name}` : "Ready for the first step") : browser ? "Waiting for the browser…" : "Signing in…";
  const s = status.data;
  // A server that answers without OAuth (no sign-in kept, no refusal: a
  // static token in its headers, or none) has no sign-in state to show.
  if (answers && s && !s.signed_in && !s.refusal && !busy && !run) {
    return (
      <section className="panel-section auth-panel auth-none" aria-labelledby={`auth-${name}`}>
        <h3 id={`auth-${name}`}>
          <KeyRound aria-hidden size={16} /> Sign-in
        </h3>
        <p className="muted">
          Not needed: it answers without an OAuth sign-in.{" "}
          <Button size="sm" variant="ghost" onClick={() => signIn("Sign in", false)}>
            Sign in anyway
          </Button>
        </p>
      </section>
    );
  }
  return (
    <section className="panel-section auth-panel" aria-labelledby={`auth-${name}`}>
      <h3 id={`auth-${name}`}>
        <KeyRound aria-hidden size={16} /> Sign-in
      </h3>
      {status.isPending && <Skeleton lines={1} label="Reading the sign-in" />}
      {status.isError && <p role="alert">{status.error instanceof Error ? status.error.message : String(status.error)}</p>}
      {s && (
        <p className="auth-state">
          {s.signed_in ? (
            <>
              <Badge tone="ok">signed in</Badge>
              <span>
                at <code>{s.issuer}</code>; scopes: {s.scope ?? "none asked"}; {expiry(s.expires_in)}
                {!s.refreshable && " (no refresh token: sign in again when it expires)"}
                {s.dpop_key && (
                  <>
                    ; bound to this sign-in&apos;s key (DPoP, thumbprint <code>{s.dpop_key.slice(0, 12)}…</code>): a copied token is of no use elsewhere
                  </>
                )}
              </span>
            </>
          ) : (
            <>
              <Badge tone="neutral">signed out</Badge>
              <span>For servers that ask for OAuth sign-in: the browser opens on the sign-in page and comes back to this machine.</span>
            </>
          )}
        </p>
      )}
      {s?.refusal && (
        <div className="auth-refusal" role="status">
          <Badge tone={s.refusal.status === 403 ? "warn" : "danger"}>{s.refusal.status === 403 ? "needs more scope" : "sign-in refused"}</Badge>
          <span>
            The server refused <code>{s.refusal.method ?? "a request"}</code> with HTTP {s.refusal.status}
            {s.refusal.scope && (
              <>
                {" "}
                asking for <code>{s.refusal.scope}</code>
              </>
            )}
            .
          </span>
          {/* A 401 is answered by Sign in below; only a wider scope needs its own button. */}
          {s.refusal.status === 403 && (
            <Button disabled={!!busy} onClick={() => signIn("Sign in with the wider scope", true)}>
              Sign in with the wider scope
            </Button>
          )}
        </div>
      )}
      <div className="toolbar" role="toolbar" aria-label="Sign-in actions">
        <Button disabled={!!busy} onClick={() => signIn("Sign in", false)}>
          {busy?.startsWith("Sign in") ? waitingLabel : s?.signed_in ? "Sign in again" : "Sign in"}
        </Button>
        <label className="auth-steps-toggle">
          <Checkbox checked={stepByStep} disabled={!!busy} onChange={(e) => setStepByStep(e.target.checked)} /> Step by step
        </label>
        {paused && (
          <>
            <Button onClick={() => next(true)}>Next step</Button>
            <Button variant="ghost" onClick={() => next(false)}>
              Stop here
            </Button>
          </>
        )}
        {busy?.startsWith("Sign in") && !paused && (
          <Button variant="ghost" onClick={() => void backend.authCancel(name)}>
            Cancel
          </Button>
        )}
        {s?.signed_in && (
          <>
            <Button disabled={!!busy || !s.refreshable} onClick={() => act("Refresh", backend.authRefresh(name))}>
              Refresh now
            </Button>
            <Button
              disabled={!!busy}
              onClick={() =>
                backend.authForceExpiry(name).then(
                  (st) => {
                    queryClient.setQueryData(keys.auth(name), st);
                    toast("Marked expired: the next connection refreshes it");
                  },
                  (e: unknown) => toast("Not changed", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
                )
              }
            >
              Force expiry
            </Button>
            <Button variant="ghost" disabled={!!busy} onClick={() => act("Sign out", backend.authSignOut(name))}>
              Sign out
            </Button>
          </>
        )}
      </div>
      {busy?.startsWith("Sign in") && browser && (
        <div className={`callout ${browser.error ? "tone-warn" : "tone-info"} auth-browser`} role="status">
          <p>
            {browser.error
              ? `${browser.error}. Open this address in a browser to sign in; the workbench waits for it to come back:`
              : "Sign in on the page the browser opened. If none opened, open this address; the workbench waits for it to come back:"}
          </p>
          <code className="auth-url">{browser.url}</code>
          <Button size="sm" onClick={() => void backend.copyText(browser.url).then(() => toast("Address copied"))}>
            Copy address
          </Button>
        </div>
      )}
      {shown && (
        <Disclosure title={busy?.startsWith("Sign in") ? "This run so far" : "Last run, step by step"} count={shown.steps.length}>
          {!paused && run?.error && <p role="alert" className="field-error">{run.error}</p>}
          <ol className="auth-timeline">
            {shown.steps.map((step, i) => (
              <li key={i} className={step.problems.length > 0 ? "tone-danger" : undefined}>
                <div>
                  <strong>{step.name}</strong> <span className="muted">{step.status ?? "–"} · {(step.ms ?? 0).toFixed(1)} ms</span>
                </div>
                <pre className="json" tabIndex={0}>{step.request}</pre>
                {step.response && <pre className="json" tabIndex={0}>{pretty(step.response)}</pre>}
                {step.problems.map((p) => (
                  <p key={p} className="field-error">
                    MUST: {p}
                  </p>
                ))}
              </li>
            ))}
          </ol>
        </Disclosure>
      )}
    </section>
  );
}
