// The one door from the UI to the Rust side. Components take a `Backend`, so
// tests can hand them a fake; the real one calls the generated bindings.
import { commands, type ErrorInfo, type ServerList } from "./bindings";

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
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };

function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.status === "error") throw new BackendError(outcome.error);
  return outcome.data;
}

export const tauriBackend: Backend = {
  listServers: async () => unwrap(await commands.listServers()),
};
