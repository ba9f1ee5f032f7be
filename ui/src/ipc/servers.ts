// Servers: their list and live states, life, restart and stop, roots and log level, inputs they need, trust, and their log messages.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { commands, events, type ConfigChanged, type LifeEvent_Serialize as LifeEvent, type NeededInput, type ServerList, type ServerStatus_Serialize as ServerStatus, type TrustRequest_Serialize as TrustRequest, type WindowStage, type ErrorInfo } from "../bindings";

type JsonArg = Parameters<typeof commands.getPrompt>[2];

export interface ServersBackend {
  listServers(): Promise<ServerList>;
  serverStatuses(): Promise<ServerStatus[]>;
  /** A server's life: each change of state with its time (and a failure's code), oldest first. */
  serverLife(name: string): Promise<LifeEvent[]>;
  /** Call `listener` on every server state change; resolves to an unsubscribe. */
  onServerStatus(listener: (status: ServerStatus) => void): Promise<() => void>;
  /** Call `listener` when mcp.json changed on disk; resolves to an unsubscribe. */
  onConfigChanged(listener: (change: ConfigChanged) => void): Promise<() => void>;
  /** How far the window's start has come (once painted, the servers may start). */
  windowReady(stage: WindowStage, pageMs: number): Promise<void>;
  restartServer(name: string): Promise<void>;
  stopServer(name: string): Promise<void>;
  setLogLevel(server: string, level: string): Promise<void>;
  getRoots(server: string): Promise<unknown[]>;
  setRoots(server: string, roots: unknown[]): Promise<void>;
  /** `${input:…}` values some server needs that nobody has given yet. */
  neededInputs(): Promise<NeededInput[]>;
  /** Remember an input in the keychain and restart the servers using it. */
  provideInput(id: string, value: string, servers: string[]): Promise<void>;
  /** What an untrusted server would run, for the person to read. */
  trustRequest(name: string): Promise<TrustRequest>;
  /** Trust a server as the person read it (`shown`: its request's fingerprint), and start it; one changed since is refused. */
  trustServer(name: string, shown: string): Promise<void>;
  /** Log messages servers send. */
  onServerLog(listener: (server: string, level: string, data: string) => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriServersBackend(unwrap: Unwrap): ServersBackend {
  return {
    listServers: async () => unwrap(await commands.listServers()),
    serverStatuses: async () => unwrap(await commands.serverStatuses()),
    serverLife: async (name) => unwrap(await commands.serverLife(name)),
    onServerStatus: (listener) => events.serverStatusChanged.listen((e) => listener(e.payload.status)),
    onConfigChanged: (listener) => events.configChanged.listen((e) => listener(e.payload)),
    windowReady: async (stage, pageMs) => {
      unwrap(await commands.windowReady(stage, pageMs));
    },
    restartServer: async (name) => {
      unwrap(await commands.restartServer(name));
    },
    stopServer: async (name) => {
      unwrap(await commands.stopServer(name));
    },
    setLogLevel: async (server, level) => {
      unwrap(await commands.setLogLevel(server, level));
    },
    getRoots: async (server) => unwrap(await commands.getRoots(server)),
    setRoots: async (server, roots) => {
      unwrap(await commands.setRoots(server, roots as JsonArg[]));
    },
    neededInputs: async () => unwrap(await commands.neededInputs()),
    provideInput: async (id, value, servers) => {
      unwrap(await commands.provideInput(id, value, servers));
    },
    trustRequest: async (name) => unwrap(await commands.trustRequest(name)),
    trustServer: async (name, shown) => {
      unwrap(await commands.trustServer(name, shown));
    },
    onServerLog: (listener) => events.serverLogged.listen((e) => listener(e.payload.server, e.payload.level, e.payload.data)),
  };
}
