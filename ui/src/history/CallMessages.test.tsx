import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { CallRow } from "../ipc/history";
import type { TrafficBackend, TrafficEntry, TrafficQuery } from "../ipc";
import { CallMessages, callMessages } from "./CallMessages";

const row = (over: Partial<CallRow> = {}): CallRow => ({
  id: 7,
  key: "row-7",
  origin: "window",
  session: null,
  call_id: "",
  server: "demo",
  tool: "echo",
  arguments: { message: "hi" },
  result: { content: [] },
  error: null,
  status: "ok",
  duration_ms: 40,
  started_at: 1_000_000,
  protocol: "2025-11-25",
  traffic_from: 10,
  traffic_to: 12,
  schema_violations: [],
  task: null,
  verdict: null,
  notes: [],
  saved: false,
  ...over,
});

const entry = (seq: number, time_ms: number, direction: "outgoing" | "incoming"): TrafficEntry => ({
  seq,
  time_ms,
  server: "demo",
  direction,
  kind: direction === "outgoing" ? "request" : "response",
  // The log names a response by its request's method.
  method: "tools/call",
  id: "3",
  size: 80,
  latency_ms: direction === "incoming" ? 38 : null,
  body: direction === "outgoing" ? '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}' : '{"jsonrpc":"2.0","id":3,"result":{}}',
  truncated: false,
});

function shown(r: CallRow, entries: TrafficEntry[]) {
  const asked: TrafficQuery[] = [];
  const backend = {
    trafficPage: (q: TrafficQuery) => {
      asked.push(q);
      return Promise.resolve({ total: entries.length, offset: 0, entries, last_seq: 12 });
    },
  } as unknown as TrafficBackend;
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <CallMessages row={r} backend={backend} onOpenTraffic={() => {}} />
    </QueryClientProvider>,
  );
  return asked;
}

describe("a kept call's messages", () => {
  it("are read by the call's sequence numbers on its server", async () => {
    const asked = shown(row(), [entry(11, 1_000_005, "outgoing"), entry(12, 1_000_043, "incoming")]);
    expect(await screen.findByText("tools/call")).toBeTruthy();
    expect(screen.getByText("result of tools/call")).toBeTruthy();
    expect(asked[0]).toMatchObject({ server: "demo", seq_from: 11, seq_to: 12 });
  });

  it("are not taken from another run whose numbers match", async () => {
    // The same sequence numbers, an hour later: this run's, not the call's.
    shown(row(), [entry(11, 4_600_000, "outgoing"), entry(12, 4_600_040, "incoming")]);
    expect(await screen.findByText(/not in this run's traffic log/)).toBeTruthy();
    expect(callMessages(row(), [entry(11, 999_500, "outgoing")])).toHaveLength(1);
  });

  it("say so when nothing went to the server", () => {
    shown(row({ traffic_from: 10, traffic_to: 10, status: "denied" }), []);
    expect(screen.getByText(/Nothing went to the server/)).toBeTruthy();
  });
});
