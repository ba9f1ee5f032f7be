// Traffic: a window of the log kept in the core, its export, and its growth.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { commands, events, type TrafficPage_Serialize as TrafficPage, type TrafficQuery_Deserialize as TrafficQuery, type ErrorInfo } from "../bindings";

export interface TrafficBackend {
  /** A window of the traffic log (which entries, which of them); the log stays in the core. */
  trafficPage(query: TrafficQuery): Promise<TrafficPage>;
  /** Export the entries matching `query` as JSON lines where the person picks; null when cancelled. */
  exportTraffic(query: TrafficQuery): Promise<{ path: string; entries: number } | null>;
  /** The log grew (at most four times a second): its size and newest sequence number. */
  onTrafficGrew(listener: (total: number, lastSeq: number) => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriTrafficBackend(unwrap: Unwrap): TrafficBackend {
  return {
    trafficPage: async (query) => unwrap(await commands.trafficPage(query)),
    exportTraffic: async (query) => unwrap(await commands.exportTraffic(query)),
    onTrafficGrew: (listener) => events.trafficGrew.listen((e) => listener(e.payload.total, e.payload.last_seq)),
  };
}
