// The one door from the UI to the Rust side. Components take a `Backend`, so
// tests can hand them a fake; the real one calls the generated bindings.
import { Channel } from "@tauri-apps/api/core";
import {
  commands,
  events,
  type CallProgress_Deserialize as CallProgress,
  type ConfigChanged,
  type ErrorInfo,
  type PendingAsk,
  type PromptRow,
  type ConfigText,
  type Found_Serialize as FoundConfig,
  type NeededInput,
  type Merged,
  type EditOp as ServerEdit,
  type Trial_Serialize as TrialReport,
  type ResourceRow,
  type Scope,
  type ServerList,
  type ServerStatus_Serialize as ServerStatus,
  type ToolCallResult,
  type ToolRow,
  type TrafficEntry_Serialize as TrafficEntry,
  type TrafficPage_Serialize as TrafficPage,
  type TrustRequest_Serialize as TrustRequest,
  type AuthRun_Serialize as AuthRun,
  type Status_Serialize as AuthStatus,
  type Timeline_Serialize as AuthTimeline,
  type BridgeStatus_Serialize as BridgeStatus,
  type TrafficQuery_Deserialize as TrafficQuery,
  type WindowStage,
  type LifeEvent_Serialize as LifeEvent,
  type TaskState_Deserialize,
} from "./bindings";
import { tauriAgentBackend, type AgentBackend } from "./backendAgent";
import { tauriHistoryBackend, type HistoryBackend } from "./backendHistory";
import { tauriDoctorBackend, type DoctorBackend } from "./backendDoctor";
import { tauriTasksBackend, type TasksBackend, type TaskState } from "./backendTasks";
import { tauriAppsBackend, type AppsBackend } from "./backendApps";

export type { LifeEvent, ServerStatus };
export type { AuthRun, AuthStatus, AuthTimeline, BridgeStatus, FoundConfig, Merged, NeededInput, Scope, TrustRequest };
export type { CallProgress, ConfigText, PendingAsk, PromptRow, ResourceRow, ServerEdit, ToolCallResult, ToolRow, TrafficEntry, TrafficPage, TrafficQuery, TrialReport };

type JsonArg = Parameters<typeof commands.getPrompt>[2];

let nextCall = 0;

/** An error from the backend, carrying its stable code. Switch on `code`. */
export class BackendError extends Error {
  readonly code: ErrorInfo["code"];
  constructor(info: ErrorInfo) {
    super(info.message);
    this.name = "BackendError";
    this.code = info.code;
  }
}

export interface Backend extends AgentBackend, HistoryBackend, DoctorBackend, TasksBackend, AppsBackend {
  /** Put text on the system clipboard. */
  copyText(text: string): Promise<void>;
  /** Save base64 bytes a server sent where the person picks; the path, or null. */
  saveBytes(name: string, data: string): Promise<string | null>;
  listServers(): Promise<ServerList>;
  serverStatuses(): Promise<ServerStatus[]>;
  /** A server's life: each change of state with its time (and a failure's code), oldest first. */
  serverLife(name: string): Promise<LifeEvent[]>;
  /** Call `listener` on every server state change; resolves to an unsubscribe. */
  onServerStatus(listener: (status: ServerStatus) => void): Promise<() => void>;
  /** Call `listener` when mcp.json changed on disk; resolves to an unsubscribe. */
  onConfigChanged(listener: (change: ConfigChanged) => void): Promise<() => void>;
  listTools(): Promise<ToolRow[]>;
  /** Call `listener` when a server's lists were refetched. */
  onCatalogChanged(listener: (server: string) => void): Promise<() => void>;
  /** Start a call; `cancel` asks the server to stop (notifications/cancelled,
   * or tasks/cancel once the call became a task). `asTask` asks for a task
   * where the tool may run as one; `onTask` gets each status of the task. */
  callTool(
    server: string,
    tool: string,
    args: unknown,
    onProgress: (p: CallProgress) => void,
    options?: { asTask?: boolean; onTask?: (task: TaskState) => void },
  ): { result: Promise<ToolCallResult>; cancel: () => Promise<void> };
  /** A window of the traffic log (which entries, which of them); the log stays in the core. */
  trafficPage(query: TrafficQuery): Promise<TrafficPage>;
  /** Export the entries matching `query` as JSON lines where the person picks; null when cancelled. */
  exportTraffic(query: TrafficQuery): Promise<{ path: string; entries: number } | null>;
  /** The log grew (at most four times a second): its size and newest sequence number. */
  onTrafficGrew(listener: (total: number, lastSeq: number) => void): Promise<() => void>;
  /** How far the window's start has come (once painted, the servers may start). */
  windowReady(stage: WindowStage, pageMs: number): Promise<void>;
  restartServer(name: string): Promise<void>;
  stopServer(name: string): Promise<void>;
  pendingAsks(): Promise<PendingAsk[]>;
  /** Answer with the result object, or refuse (null result) with a reason. */
  answerAsk(id: number, result: unknown, refusal?: string): Promise<void>;
  /** Decline every waiting ask of a server; how many. */
  declineServerAsks(server: string): Promise<number>;
  /** Open a URL-mode elicitation's address in the system browser (http/https only). */
  openAskUrl(id: number): Promise<void>;
  /** New asks and closed ones (answered elsewhere, cancelled, timed out). */
  onAsks(received: (ask: PendingAsk) => void, closed: (id: number) => void): Promise<() => void>;
  listResources(): Promise<ResourceRow[]>;
  listPrompts(): Promise<PromptRow[]>;
  readResource(server: string, uri: string): Promise<unknown>;
  subscribeResource(server: string, uri: string, subscribe: boolean): Promise<void>;
  /** A subscribed resource changed. */
  onResourceUpdated(listener: (server: string, uri: string) => void): Promise<() => void>;
  getPrompt(server: string, name: string, args: Record<string, string>): Promise<unknown>;
  /** The server's completions for an argument; `context` holds the values already chosen. */
  complete(server: string, reference: unknown, argument: string, value: string, context?: Record<string, string>): Promise<string[]>;
  /** The user's file, or the project's `.mcp.json` when `scope` is "project". */
  readConfig(scope?: Scope): Promise<ConfigText>;
  /** Save the whole text; refused if the file no longer holds `base`. */
  saveConfig(text: string, base: string, scope?: Scope): Promise<void>;
  /** Edit a server in the file it lives in; a new one goes to `scope` (default: the user's file). */
  editServer(edit: ServerEdit, scope?: Scope): Promise<void>;
  /** The entry as written (references unexpanded). */
  serverEntry(name: string): Promise<Record<string, unknown>>;
  /** Connect to an unsaved entry and report what it offers or why not. */
  tryServer(name: string, fields: Record<string, unknown>): Promise<TrialReport>;
  /** Keep a secret in the OS keychain; returns the reference to write. */
  /** Keep a secret in the keychain under the entry's own id (its name and file's scope). */
  storeSecret(server: string, field: "env" | "headers", key: string, value: string, scope?: Scope): Promise<string>;
  setLogLevel(server: string, level: string): Promise<void>;
  getRoots(server: string): Promise<unknown[]>;
  setRoots(server: string, roots: unknown[]): Promise<void>;
  /** `${input:…}` values some server needs that nobody has given yet. */
  neededInputs(): Promise<NeededInput[]>;
  /** Remember an input in the keychain and restart the servers using it. */
  provideInput(id: string, value: string, servers: string[]): Promise<void>;
  /** Add a working example server to the user's file; resolves to its name. */
  addExampleServer(): Promise<string>;
  /** What an untrusted server would run, for the person to read. */
  trustRequest(name: string): Promise<TrustRequest>;
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
  /** The bridge (every tool as one MCP server on 127.0.0.1): state, callers, waiting calls, snippets. */
  bridgeStatus(): Promise<BridgeStatus>;
  /** Turn the bridge on (on `port`) or off; remembered for the next start. */
  bridgeSet(on: boolean, port: number): Promise<BridgeStatus>;
  /** A new token (clients with the old one are refused). */
  bridgeNewToken(): Promise<BridgeStatus>;
  /** Trust a server as it is now in its file, and start it. */
  trustServer(name: string): Promise<void>;
  /** Other clients' configs on this machine. */
  discoverConfigs(): Promise<FoundConfig[]>;
  importConfig(path: string, dialect: string, only: string[], replace: boolean): Promise<Merged>;
  /** Log messages servers send. */
  onServerLog(listener: (server: string, level: string, data: string) => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };

function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.status === "error") throw new BackendError(outcome.error);
  return outcome.data;
}

export const tauriBackend: Backend = {
  ...tauriAgentBackend(unwrap),
  ...tauriHistoryBackend(unwrap),
  ...tauriDoctorBackend(unwrap),
  ...tauriTasksBackend(unwrap),
  ...tauriAppsBackend(unwrap),
  copyText: async (text) => {
    unwrap(await commands.copyText(text));
  },
  saveBytes: async (name, data) => unwrap(await commands.saveBytes(name, data)),
  listServers: async () => unwrap(await commands.listServers()),
  serverStatuses: async () => unwrap(await commands.serverStatuses()),
  serverLife: async (name) => unwrap(await commands.serverLife(name)),
  onServerStatus: (listener) => events.serverStatusChanged.listen((e) => listener(e.payload.status)),
  onConfigChanged: (listener) => events.configChanged.listen((e) => listener(e.payload)),
  listTools: async () => unwrap(await commands.listTools()),
  onCatalogChanged: (listener) => events.catalogChanged.listen((e) => listener(e.payload.server)),
  callTool: (server, tool, args, onProgress, options) => {
    nextCall += 1;
    const id = `call-${Date.now()}-${nextCall}`;
    const channel = new Channel<CallProgress>();
    channel.onmessage = onProgress;
    const statuses = new Channel<TaskState_Deserialize>();
    // Sent by the app: every field is there.
    statuses.onmessage = (task) => options?.onTask?.(task as TaskState);
    // The JSON value crosses IPC as is; the generated type is a JSON value.
    const result = commands
      .callTool(server, tool, args as Parameters<typeof commands.callTool>[2], id, options?.asTask ?? false, channel, statuses)
      .then(unwrap);
    return {
      result,
      cancel: async () => {
        unwrap(await commands.cancelCall(id));
      },
    };
  },
  trafficPage: async (query) => unwrap(await commands.trafficPage(query)),
  exportTraffic: async (query) => unwrap(await commands.exportTraffic(query)),
  onTrafficGrew: (listener) => events.trafficGrew.listen((e) => listener(e.payload.total, e.payload.last_seq)),
  windowReady: async (stage, pageMs) => {
    unwrap(await commands.windowReady(stage, pageMs));
  },
  restartServer: async (name) => {
    unwrap(await commands.restartServer(name));
  },
  stopServer: async (name) => {
    unwrap(await commands.stopServer(name));
  },
  pendingAsks: async () => unwrap(await commands.pendingAsks()),
  openAskUrl: async (id) => {
    unwrap(await commands.openAskUrl(id));
  },
  declineServerAsks: async (server) => unwrap(await commands.declineServerAsks(server)),
  answerAsk: async (id, result, refusal) => {
    unwrap(await commands.answerAsk(id, (result ?? null) as Parameters<typeof commands.answerAsk>[1], refusal ?? null));
  },
  listResources: async () => unwrap(await commands.listResources()),
  listPrompts: async () => unwrap(await commands.listPrompts()),
  readResource: async (server, uri) => unwrap(await commands.readResource(server, uri)),
  subscribeResource: async (server, uri, subscribe) => {
    unwrap(await commands.subscribeResource(server, uri, subscribe));
  },
  onResourceUpdated: (listener) => events.resourceUpdated.listen((e) => listener(e.payload.server, e.payload.uri)),
  getPrompt: async (server, name, args) => unwrap(await commands.getPrompt(server, name, args as JsonArg)),
  complete: async (server, reference, argument, value, context) =>
    unwrap(await commands.complete(server, reference as JsonArg, argument, value, (context ?? null) as Parameters<typeof commands.complete>[4])),
  readConfig: async (scope) => unwrap(await commands.readConfig(scope ?? null)),
  discoverConfigs: async () => unwrap(await commands.discoverConfigs()),
  addExampleServer: async () => unwrap(await commands.addExampleServer()),
  trustRequest: async (name) => unwrap(await commands.trustRequest(name)),
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
  bridgeStatus: async () => unwrap(await commands.bridgeStatus()),
  bridgeSet: async (on, port) => unwrap(await commands.bridgeSet(on, port)),
  bridgeNewToken: async () => unwrap(await commands.bridgeNewToken()),
  trustServer: async (name) => {
    unwrap(await commands.trustServer(name));
  },
  neededInputs: async () => unwrap(await commands.neededInputs()),
  provideInput: async (id, value, servers) => {
    unwrap(await commands.provideInput(id, value, servers));
  },
  importConfig: async (path, dialect, only, replace) => unwrap(await commands.importConfig(path, dialect, only, replace)),
  saveConfig: async (text, base, scope) => {
    unwrap(await commands.saveConfig(text, base, scope ?? null));
  },
  editServer: async (edit, scope) => {
    unwrap(await commands.editServer(edit, scope ?? null));
  },
  serverEntry: async (name) => unwrap(await commands.serverEntry(name)) as Record<string, unknown>,
  tryServer: async (name, fields) => unwrap(await commands.tryServer(name, fields as Record<string, JsonArg>)),
  storeSecret: async (server, field, key, value, scope) => unwrap(await commands.storeSecret(server, field, key, value, scope ?? null)),
  setLogLevel: async (server, level) => {
    unwrap(await commands.setLogLevel(server, level));
  },
  getRoots: async (server) => unwrap(await commands.getRoots(server)),
  setRoots: async (server, roots) => {
    unwrap(await commands.setRoots(server, roots as JsonArg[]));
  },
  onServerLog: (listener) => events.serverLogged.listen((e) => listener(e.payload.server, e.payload.level, e.payload.data)),
  onAsks: async (received, closed) => {
    const a = await events.askReceived.listen((e) => received(e.payload.ask));
    const b = await events.askClosed.listen((e) => closed(e.payload.id));
    return () => {
      a();
      b();
    };
  },
};
