import { useEffect, useState } from "react";
import { CheckCircle2, CircleDashed, CircleSlash, Loader2, LogIn, RotateCw, ShieldAlert, Square, XCircle } from "lucide-react";
import type { ServerStatus_Serialize as ServerStatus } from "../bindings";
import { Badge } from "../design";

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? "" : "s"}`;

/** Seconds until `deadline` (ms since the epoch), ticking each second. */
function useCountdown(deadline: number | null): number | null {
  // The last tick, and the deadline it was for (a new deadline starts afresh).
  const [tick, setTick] = useState<{ deadline: number; now: number } | null>(null);
  useEffect(() => {
    if (deadline === null) return;
    const t = setInterval(() => setTick({ deadline, now: Date.now() }), 1000);
    return () => clearInterval(t);
  }, [deadline]);
  if (deadline === null || tick?.deadline !== deadline) return null;
  return Math.max(0, Math.ceil((deadline - tick.now) / 1000));
}

/** A server's live state in one word and an icon (never colour alone), with the reason on hover. */
export function StateBadge({ status, disabled }: { status: ServerStatus | undefined; disabled: boolean }) {
  if (!status) {
    // No live state (the workbench is not running this file): what the file says.
    return disabled ? (
      <Badge className="state muted" icon={CircleSlash}>
        disabled
      </Badge>
    ) : (
      <Badge className="state unknown" icon={CircleDashed}>
        …
      </Badge>
    );
  }
  switch (status.state) {
    case "ready":
      return (
        <Badge tone="ok" className="state ready" icon={CheckCircle2} title={status.info ? `protocol ${status.info.protocol_version}` : undefined}>
          ready
        </Badge>
      );
    case "starting":
      return (
        <Badge tone="warn" className="state starting" icon={Loader2}>
          {status.slow ? "slow" : "starting"}
        </Badge>
      );
    case "failed":
      // Wanting a sign-in is not a failure of the server: it waits for one.
      if (status.code === "sign_in" || status.code === "scope") {
        return (
          <Badge tone="warn" className="state sign-in" icon={LogIn} title={status.reason}>
            needs sign-in
          </Badge>
        );
      }
      return (
        <Badge tone="danger" className="state failed" icon={XCircle} title={status.reason}>
          failed
        </Badge>
      );
    case "restarting":
      return (
        <Badge tone="danger" className="state failed" icon={RotateCw} title={status.reason}>
          retry {status.attempt}
        </Badge>
      );
    case "disabled":
      return (
        <Badge className="state muted" icon={CircleSlash}>
          disabled
        </Badge>
      );
    case "stopped":
      return (
        <Badge className="state muted" icon={Square}>
          stopped
        </Badge>
      );
    case "untrusted":
      return (
        <Badge tone="warn" className="state untrusted" icon={ShieldAlert} title="From elsewhere: it starts once you trust it">
          untrusted
        </Badge>
      );
  }
}

/** One line under the server: who it is and what it offers, or why it is not there. */
export function StateDetail({
  status,
  counts,
  onItsPage = false,
}: {
  status: ServerStatus | undefined;
  counts?: { tools: number; resources: number; templates?: number; prompts: number };
  /** Shown on the server's own page: what to do is below, not "open it". */
  onItsPage?: boolean;
}) {
  // The next try of a restarting server, counted down from when the state came.
  const [deadline, setDeadline] = useState<number | null>(null);
  const retryIn = status?.state === "restarting" ? status.next_try_in_ms : null;
  useEffect(() => setDeadline(retryIn === null ? null : Date.now() + retryIn), [status, retryIn]);
  const seconds = useCountdown(deadline);
  if (!status) return null;
  if (status.state === "ready" && status.info) {
    return (
      <>
        <span className="server-detail">
          {status.info.name} {status.info.version} · protocol {status.info.protocol_version}
        </span>
        {counts && (
          <span className="server-detail server-counts">
            {plural(counts.tools, "tool")} · {plural(counts.resources, "resource")}
            {counts.templates ? ` · ${plural(counts.templates, "template")}` : ""} · {plural(counts.prompts, "prompt")}
          </span>
        )}
      </>
    );
  }
  if (status.state === "untrusted") {
    return <span className="server-detail">{onItsPage ? "waiting for your trust: read what it runs below" : "waiting for your trust: open it to see what it runs"}</span>;
  }
  if (status.state === "failed" && (status.code === "sign_in" || status.code === "scope")) {
    return <span className="server-detail">{onItsPage ? "sign in below" : "open it to sign in"}</span>;
  }
  if (status.state === "failed" || status.state === "restarting") {
    const next = status.state === "restarting" ? ` · next try in ${seconds ?? Math.ceil(status.next_try_in_ms / 1000)} s` : "";
    return (
      <span className="server-detail error" title={status.stderr.join("\n")}>
        {status.reason}
        {next}
      </span>
    );
  }
  return null;
}
