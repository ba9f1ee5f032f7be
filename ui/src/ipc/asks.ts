// What servers ask the person (sampling, elicitation): waiting, answered, declined, a URL opened.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { commands, events, type PendingAsk, type ErrorInfo } from "../bindings";

export interface AsksBackend {
  pendingAsks(): Promise<PendingAsk[]>;
  /** Answer with the result object, or refuse (null result) with a reason. */
  answerAsk(id: number, result: unknown, refusal?: string): Promise<void>;
  /** Decline every waiting ask of a server; how many. */
  declineServerAsks(server: string): Promise<number>;
  /** Open a URL-mode elicitation's address in the system browser (http/https only). */
  openAskUrl(id: number): Promise<void>;
  /** New asks and closed ones (answered elsewhere, cancelled, timed out). */
  onAsks(received: (ask: PendingAsk) => void, closed: (id: number) => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriAsksBackend(unwrap: Unwrap): AsksBackend {
  return {
    pendingAsks: async () => unwrap(await commands.pendingAsks()),
    answerAsk: async (id, result, refusal) => {
      unwrap(await commands.answerAsk(id, (result ?? null) as Parameters<typeof commands.answerAsk>[1], refusal ?? null));
    },
    declineServerAsks: async (server) => unwrap(await commands.declineServerAsks(server)),
    openAskUrl: async (id) => {
      unwrap(await commands.openAskUrl(id));
    },
    onAsks: async (received, closed) => {
      const a = await events.askReceived.listen((e) => received(e.payload.ask));
      const b = await events.askClosed.listen((e) => closed(e.payload.id));
      return () => {
        a();
        b();
      };
    },
  };
}
