// Sessions: the connections hosts made through `mcpwb tap`, as the tap's
// process keeps them in the shared store; the hosts' own config files,
// whose entries can be routed through the tap and back.
import {
  commands,
  type ErrorInfo,
  type HostEntry,
  type HostFile_Serialize as HostFile,
  type HostFingerprint_Serialize as HostFingerprint,
  type SuiteMade_Serialize as SuiteMade,
  type TapMessage,
  type TapRow_Serialize as TapRow,
} from "../bindings";

export type { HostEntry, HostFile, HostFingerprint, SuiteMade, TapMessage, TapRow };

export interface SessionsBackend {
  /** The sessions kept, newest first. */
  listSessions(limit: number): Promise<TapRow[]>;
  /** One session's messages in order. */
  sessionMessages(id: number): Promise<TapMessage[]>;
  /** What the session's host offered, declared and called. */
  sessionFingerprint(id: number): Promise<HostFingerprint>;
  /** What the host of `b` does differently from the host of `a`. */
  compareSessions(a: number, b: number): Promise<string[]>;
  /** Save a session (JSON Lines or HAR), credentials masked; the path, null if cancelled. */
  exportSession(id: number, har: boolean): Promise<string | null>;
  /** Open a session file and keep it; its id, null if cancelled. */
  importSession(): Promise<number | null>;
  /** A new suite of the session's calls for `server` (null: the entry the
   * session was with); written untrusted, with its review. */
  sessionToSuite(id: number, name: string, server: string | null): Promise<SuiteMade>;
  /** The entry of the config the session was with (its name, URL or
   * command line), or null when none matches. */
  sessionServer(id: number): Promise<string | null>;
  /** Forget a session and its messages. */
  deleteSession(id: number): Promise<void>;
  /** The hosts' config files found here, with their entries. */
  hostFiles(): Promise<HostFile[]>;
  /** Route an entry through the tap (`on`) or put it back. */
  tapHostEntry(path: string, name: string, on: boolean): Promise<string>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriSessionsBackend(unwrap: Unwrap): SessionsBackend {
  return {
    listSessions: async (limit) => unwrap(await commands.listSessions(limit)),
    sessionMessages: async (id) => unwrap(await commands.sessionMessages(id)),
    sessionFingerprint: async (id) => unwrap(await commands.sessionFingerprint(id)),
    compareSessions: async (a, b) => unwrap(await commands.compareSessions(a, b)),
    exportSession: async (id, har) => unwrap(await commands.exportSession(id, har)),
    importSession: async () => unwrap(await commands.importSession()),
    sessionToSuite: async (id, name, server) => unwrap(await commands.sessionToSuite(id, name, server)),
    sessionServer: async (id) => unwrap(await commands.sessionServer(id)),
    deleteSession: async (id) => {
      unwrap(await commands.deleteSession(id));
    },
    hostFiles: async () => unwrap(await commands.hostFiles()),
    tapHostEntry: async (path, name, on) => unwrap(await commands.tapHostEntry(path, name, on)),
  };
}
