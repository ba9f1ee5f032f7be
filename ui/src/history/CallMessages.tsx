// A kept call's messages: what went between the workbench and the server
// while it ran, read from this run's traffic log by the sequence numbers
// the history keeps. The log lives per run, so a call made by another run
// or by `mcpwb` in a terminal has none here, and says so; the times of the
// entries must fall within the call's, so a later run's numbers never pass
// for its messages.
import { useQuery } from "@tanstack/react-query";
import { ArrowDownLeft, ArrowUpRight, Radio } from "lucide-react";
import type { CallRow } from "../ipc/history";
import type { TrafficBackend, TrafficEntry } from "../ipc";
import { Button, Skeleton } from "../design";
import { keys } from "../queries";

/** Slack either side of the call's own time, for clocks read at other moments. */
const SLACK_MS = 2000;

export function callMessages(row: Pick<CallRow, "started_at" | "duration_ms">, entries: TrafficEntry[]): TrafficEntry[] {
  const from = row.started_at - SLACK_MS;
  const to = row.started_at + (row.duration_ms ?? 0) + SLACK_MS;
  return entries.filter((e) => e.time_ms != null && e.time_ms >= from && e.time_ms <= to);
}

/** What an entry is, in a few words: a response names what it answers. */
export function what(m: TrafficEntry): string {
  const method = m.method ?? (m.id != null ? `request ${m.id}` : "");
  if (m.kind === "response") return `result of ${method}`;
  if (m.kind === "error") return `error for ${method}`;
  return m.method ?? m.kind;
}

function pretty(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

export function CallMessages({ row, backend, onOpenTraffic }: { row: CallRow; backend: TrafficBackend; onOpenTraffic: (server: string) => void }) {
  const range = row.traffic_from != null && row.traffic_to != null && row.traffic_to > row.traffic_from;
  const page = useQuery({
    queryKey: keys.callMessages(row.id),
    enabled: range,
    queryFn: () =>
      backend.trafficPage({
        server: row.server,
        direction: null,
        text: null,
        method: null,
        id: null,
        seq_from: (row.traffic_from ?? 0) + 1,
        seq_to: row.traffic_to ?? 0,
        offset: 0,
        limit: 200,
        from_end: false,
      }),
  });
  const messages = page.data ? callMessages(row, page.data.entries) : [];
  return (
    <section aria-label="Its messages" className="call-messages">
      <div className="call-messages-head">
        <h3>Messages</h3>
        <Button size="sm" variant="ghost" icon={Radio} onClick={() => onOpenTraffic(row.server)}>
          Open in Traffic
        </Button>
      </div>
      {!range ? (
        <p className="muted">Nothing went to the server for this call.</p>
      ) : page.isPending ? (
        <Skeleton lines={2} />
      ) : page.isError ? (
        <p className="error-message">The traffic log could not be read: {String(page.error)}</p>
      ) : messages.length === 0 ? (
        <p className="muted">Its messages are not in this run's traffic log (the log is kept per run; the call was made by an earlier run or by mcpwb).</p>
      ) : (
        <ol className="call-messages-list">
          {messages.map((m) => (
            <li key={m.seq}>
              <details>
                <summary>
                  {m.direction === "outgoing" ? <ArrowUpRight size={14} aria-label="sent" /> : <ArrowDownLeft size={14} aria-label="received" />}
                  <span className="call-message-what">{what(m)}</span>
                  {m.latency_ms != null && <span className="muted">{Math.round(m.latency_ms)} ms</span>}
                  <span className="muted">{m.size} B</span>
                </summary>
                <pre className="json" tabIndex={0}>{pretty(m.body)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
