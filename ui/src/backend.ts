// The one door from the UI to the Rust side. Components take a `Backend`, so
// tests can hand them a fake; the real one calls the generated bindings.
import {
  commands,
  events,
  type ConfigChanged,
  type ErrorInfo,
  type ServerList,
  type ServerStatus_Serialize as ServerStatus,
} from "./bindings";

/** An error from the backend, carrying its stable code. Switch on `code`. */
export class BackendError extends Error {
  readonly code: ErrorInfo["code"];
  constructor(info: ErrorInfo) {
    super(info.message);
    this.name = "BackendError";
    this.code = info.code;
  }
}

export interface Backend {
  listServers(): Promise<ServerList>;
  serverStatuses(): Promise<ServerStatus[]>;
  /** Call `listener` on every server state change; resolves to an unsubscribe. */
  onServerStatus(listener: (status: ServerStatus) => void): Promise<() => void>;
  /** Call `listener` when mcp.json changed on disk; resolves to an unsubscribe. */
  onConfigChanged(listener: (change: ConfigChanged) => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };

function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.status === "error") throw new BackendError(outcome.error);
  return outcome.data;
}

export const tauriBackend: Backend = {
  listServers: async () => unwrap(await commands.listServers()),
  serverStatuses: async () => unwrap(await commands.serverStatuses()),
  onServerStatus: (listener) => events.serverStatusChanged.listen((e) => listener(e.payload.status)),
  onConfigChanged: (listener) => events.configChanged.listen((e) => listener(e.payload)),
};
