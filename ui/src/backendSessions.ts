// Sessions: the connections hosts made through `mcpwb tap`, as the tap's
// process keeps them in the shared store.
import { commands, type ErrorInfo, type TapMessage, type TapRow_Serialize as TapRow } from "./bindings";

export type { TapMessage, TapRow };

export interface SessionsBackend {
  /** The sessions kept, newest first. */
  listSessions(limit: number): Promise<TapRow[]>;
  /** One session's messages in order. */
  sessionMessages(id: number): Promise<TapMessage[]>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriSessionsBackend(unwrap: Unwrap): SessionsBackend {
  return {
    listSessions: async (limit) => unwrap(await commands.listSessions(limit)),
    sessionMessages: async (id) => unwrap(await commands.sessionMessages(id)),
  };
}
