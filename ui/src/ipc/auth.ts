// OAuth sign-in to remote servers: state, sign in (step by step too), refresh, force expiry, sign out.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { commands, events, type AuthRun_Serialize as AuthRun, type Status_Serialize as AuthStatus, type Timeline_Serialize as AuthTimeline, type ErrorInfo } from "../bindings";

export interface AuthBackend {
  /** A remote server's OAuth sign-in: state, sign in (system browser), refresh, force expiry, sign out. */
  authStatus(name: string): Promise<AuthStatus>;
  /** `widen`: answer the server's last refusal with the wider scope; `stepByStep`: wait for `authNext` after each step. */
  authSignIn(name: string, options?: { widen?: boolean; stepByStep?: boolean }): Promise<AuthRun>;
  /** Step by step: run the next step (`go`) or stop the sign-in. */
  authNext(name: string, go: boolean): Promise<void>;
  /** Step by step: each finished step, with the timeline so far. */
  onAuthStepped(listener: (server: string, timeline: AuthTimeline) => void): Promise<() => void>;
  /** A sign-in's page is opened in the browser: its address (and why the browser did not open). */
  onAuthBrowser(listener: (server: string, url: string, error: string | null) => void): Promise<() => void>;
  /** Stop a sign-in that waits on the browser. */
  authCancel(name: string): Promise<void>;
  authRefresh(name: string): Promise<AuthRun>;
  authForceExpiry(name: string): Promise<AuthStatus>;
  authSignOut(name: string): Promise<AuthRun>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriAuthBackend(unwrap: Unwrap): AuthBackend {
  return {
    authStatus: async (name) => unwrap(await commands.authStatus(name)),
    authSignIn: async (name, options) =>
      unwrap(await commands.authSignIn(name, options ? { widen: options.widen ?? false, step_by_step: options.stepByStep ?? false } : null)),
    authNext: async (name, go) => {
      unwrap(await commands.authNext(name, go));
    },
    onAuthStepped: (listener) => events.authStepped.listen((e) => listener(e.payload.server, e.payload.timeline)),
    onAuthBrowser: (listener) => events.authBrowser.listen((e) => listener(e.payload.server, e.payload.url, e.payload.error)),
    authCancel: async (name) => {
      unwrap(await commands.authCancel(name));
    },
    authRefresh: async (name) => unwrap(await commands.authRefresh(name)),
    authForceExpiry: async (name) => unwrap(await commands.authForceExpiry(name)),
    authSignOut: async (name) => unwrap(await commands.authSignOut(name)),
  };
}
