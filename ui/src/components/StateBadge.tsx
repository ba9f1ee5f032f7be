import type { ServerStatus_Serialize as ServerStatus } from "../bindings";

/** A server's live state in one word, with the reason on hover. */
export function StateBadge({ status, disabled }: { status: ServerStatus | undefined; disabled: boolean }) {
  if (!status) {
    // No live state (the workbench is not running this file): what the file says.
    return disabled ? <span className="badge state muted">disabled</span> : <span className="badge state unknown">…</span>;
  }
  switch (status.state) {
    case "ready":
      return <span className="badge state ready" title={status.info ? `protocol ${status.info.protocol_version}` : undefined}>ready</span>;
    case "starting":
      return <span className="badge state starting">{status.slow ? "slow" : "starting"}</span>;
    case "failed":
      return <span className="badge state failed" title={status.reason}>failed</span>;
    case "restarting":
      return (
        <span className="badge state failed" title={status.reason}>
          retry {status.attempt}
        </span>
      );
    case "disabled":
      return <span className="badge state muted">disabled</span>;
    case "stopped":
      return <span className="badge state muted">stopped</span>;
  }
}

/** One line under the server: who it is, or why it is not there. */
export function StateDetail({ status }: { status: ServerStatus | undefined }) {
  if (!status) return null;
  if (status.state === "ready" && status.info) {
    return (
      <span className="server-detail">
        {status.info.name} {status.info.version} · protocol {status.info.protocol_version}
      </span>
    );
  }
  if (status.state === "failed" || status.state === "restarting") {
    const next = status.state === "restarting" ? ` · next try in ${Math.round(status.next_try_in_ms / 1000)} s` : "";
    return (
      <span className="server-detail error" title={status.stderr.join("\n")}>
        {status.reason}
        {next}
      </span>
    );
  }
  return null;
}
