// Every query the window keeps, by key, in one place: rooms name a query
// through `keys` (never a string literal of their own), and what an event
// or an action changes is invalidated through the helpers below, so a new
// view cannot miss a refresh another view relies on.
import type { QueryClient } from "@tanstack/react-query";

export const keys = {
  // Servers and what they offer.
  servers: () => ["servers"] as const,
  statuses: () => ["statuses"] as const,
  serverLife: (name: string, state?: string, attempt?: number) => ["server-life", name, state, attempt] as const,
  tools: () => ["tools"] as const,
  resources: () => ["resources"] as const,
  prompts: () => ["prompts"] as const,
  skills: () => ["skills"] as const,
  skill: (server: string, name: string) => ["skill", server, name] as const,
  cacheHints: () => ["cache-hints"] as const,
  inputs: () => ["inputs"] as const,
  discovered: () => ["discovered"] as const,
  doctorCounts: () => ["doctor-counts"] as const,
  trust: (name: string) => ["trust", name] as const,
  auth: (name: string) => ["auth", name] as const,
  tasks: (server: string) => ["tasks", server] as const,
  // Calls made and kept.
  toolHistory: (server: string, tool: string) => ["tool-history", server, tool] as const,
  /** Every tool's recent calls. */
  toolHistories: () => ["tool-history"] as const,
  history: (query?: unknown) => (query === undefined ? (["history"] as const) : (["history", query] as const)),
  historyCall: (id: unknown) => ["history-call", id] as const,
  historyUsage: () => ["history-usage"] as const,
  historyVersion: () => ["history-version"] as const,
  providerRequestUrl: (kind: string, base: string, model: string) => ["provider-request-url", kind, base, model] as const,
  sessions: () => ["sessions"] as const,
  sessionMessages: (id: unknown) => ["session-messages", id] as const,
  sessionFingerprint: (id: number, messages: number) => ["session-fingerprint", id, messages] as const,
  sessionCompare: (a: number, b: number) => ["session-compare", a, b] as const,
  hostFiles: () => ["host-files"] as const,
  callMessages: (id: unknown) => ["call-messages", id] as const,
  suites: () => ["suites"] as const,
  suiteFolder: () => ["suite-folder"] as const,
  evalRuns: (path: string) => ["eval-runs", path] as const,
  traceSettings: () => ["trace-settings"] as const,
  // Chats and the agent.
  providers: () => ["providers"] as const,
  localProviders: () => ["local-providers"] as const,
  models: (provider: string) => ["models", provider] as const,
  agentSettings: () => ["agent-settings"] as const,
  chats: (search?: string) => (search === undefined ? (["chats"] as const) : (["chats", search] as const)),
  chat: (id: string) => ["chat", id] as const,
  chatTools: (id?: string) => (id === undefined ? (["chat-tools"] as const) : (["chat-tools", id] as const)),
  // The bridge.
  bridge: () => ["bridge"] as const,
};

type Key = readonly unknown[];

function invalidate(client: QueryClient, all: Key[]) {
  for (const queryKey of all) void client.invalidateQueries({ queryKey });
}

/** A server's lists were read again: what shows them, and what the chats offer. */
export function afterCatalog(client: QueryClient) {
  invalidate(client, [keys.tools(), keys.resources(), keys.prompts(), keys.skills(), keys.cacheHints(), keys.chatTools(), keys.doctorCounts()]);
}

/** mcp.json changed on disk: the servers, their states and lists, the inputs they need. */
export function afterConfig(client: QueryClient) {
  invalidate(client, [keys.servers(), keys.statuses(), keys.tools(), keys.inputs(), keys.chatTools()]);
}

/** The agent's settings changed (providers, policies): what depends on them. */
export function afterAgentSettings(client: QueryClient) {
  invalidate(client, [keys.providers(), keys.agentSettings(), keys.chatTools()]);
}

/** A call was made or kept: the tool's recent calls. */
export function afterCall(client: QueryClient, server: string, tool: string) {
  // The History room follows the store itself (HistoryGrew while shown,
  // read again when shown): one signal refreshes it, not two.
  invalidate(client, [keys.toolHistory(server, tool)]);
}

/** A chat's turn ended or the chat changed. */
export function afterChat(client: QueryClient, id: string) {
  invalidate(client, [keys.chat(id), keys.chats(), keys.chatTools(id)]);
}
