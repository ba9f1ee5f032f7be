// The agent's half of the door to the Rust side: chats, turns (their
// events on a per-turn channel), approvals, providers and the agent's
// settings. `Backend` (index.ts) includes it.
import { Channel } from "@tauri-apps/api/core";
import {
  commands,
  type AgentEvent_Serialize as AgentEvent,
  type AgentSettings_Serialize as AgentSettings,
  type AgentSettingsChange_Deserialize as AgentSettingsChange,
  type Approval_Serialize as Approval,
  type ChatTools,
  type ChatView_Serialize as ChatView,
  type Decision_Deserialize as Decision,
  type EndReason,
  type ErrorInfo,
  type LocalServer_Serialize as LocalServer,
  type Message_Serialize as ChatMessage,
  type NewChat,
  type Outgoing_Deserialize,
  type Part_Serialize as Part,
  type ProviderConfig_Deserialize as ProviderConfig,
  type ProviderView_Serialize as ProviderView,
  type SessionChange,
  type SessionOptions_Deserialize as SessionOptions,
  type SessionRow,
  type TestReport,
} from "../bindings";

export type {
  AgentEvent,
  AgentSettings,
  AgentSettingsChange,
  Approval,
  ChatMessage,
  ChatTools,
  ChatView,
  Decision,
  EndReason,
  LocalServer,
  Part,
  ProviderConfig,
  ProviderView,
  SessionChange,
  SessionOptions,
  SessionRow,
  TestReport,
};

/** The person's message as sent; `title`: what an untitled chat is named (a prompt's name). */
export type Outgoing = { text: string; attachments: Part[]; title?: string | null };

export interface AgentBackend {
  listChats(search?: string): Promise<SessionRow[]>;
  createChat(init: NewChat): Promise<SessionRow>;
  openChat(id: string): Promise<ChatView>;
  updateChat(id: string, change: SessionChange): Promise<SessionRow>;
  deleteChat(id: string): Promise<void>;
  /** Send a message; `onEvent` gets the turn's events; resolves when it ends. */
  /** Send a message (with its attachments: resources, images) and follow the turn. */
  sendMessage(id: string, message: Outgoing, onEvent: (e: AgentEvent) => void): Promise<EndReason>;
  /** A server's resource read as attachments of a message (`@`). */
  attachResource(server: string, uri: string): Promise<Part[]>;
  /** A server's prompt as a draft of a message (`/`): text to edit, attachments, notes. */
  promptDraft(server: string, name: string, args: Record<string, string>): Promise<{ text: string; attachments: Part[]; notes: string[]; title: string }>;
  regenerate(id: string, onEvent: (e: AgentEvent) => void): Promise<EndReason>;
  editMessage(id: string, seq: number, text: string, onEvent: (e: AgentEvent) => void): Promise<EndReason>;
  stopChat(id: string): Promise<boolean>;
  decideCall(approval: number, decision: Decision): Promise<void>;
  chatTools(id: string): Promise<ChatTools>;
  setChatOptions(id: string, options: SessionOptions): Promise<void>;
  /** Save the chat as Markdown or JSON where the person picks; the path, or null. */
  exportChat(id: string, json: boolean): Promise<string | null>;
  listProviders(): Promise<ProviderView[]>;
  saveProvider(config: ProviderConfig, makeDefault: boolean): Promise<void>;
  /** Where a request for `model` would go with `config`. */
  providerRequestUrl(config: ProviderConfig, model: string): Promise<string>;
  removeProvider(id: string): Promise<void>;
  setProviderKey(id: string, key: string): Promise<void>;
  providerModels(id: string): Promise<string[]>;
  testProvider(id: string, model: string): Promise<TestReport>;
  localProviders(): Promise<LocalServer[]>;
  agentSettings(): Promise<AgentSettings>;
  updateAgentSettings(change: AgentSettingsChange): Promise<AgentSettings>;
  /** A sampling request (as edited) answered by the model its preferences choose, for approval. */
  sampleWithModel(params: unknown): Promise<unknown>;
  /** The model that would answer a sampling request, and why (its modelPreferences among the configured models). */
  samplingModel(params: unknown): Promise<{ provider: string; model: string; why: string }>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;
type JsonArg = Parameters<typeof commands.sampleWithModel>[0];

function channel(onEvent: (e: AgentEvent) => void) {
  const c = new Channel<AgentEvent>();
  c.onmessage = onEvent;
  return c as unknown as Parameters<typeof commands.sendMessage>[2];
}

export function tauriAgentBackend(unwrap: Unwrap): AgentBackend {
  const done = async <T>(p: Promise<Outcome<T>>) => {
    unwrap(await p);
  };
  return {
    listChats: async (search) => unwrap(await commands.listChats(search ?? null)),
    createChat: async (init) => unwrap(await commands.createChat(init)),
    openChat: async (id) => unwrap(await commands.openChat(id)),
    updateChat: async (id, change) => unwrap(await commands.updateChat(id, change)),
    deleteChat: (id) => done(commands.deleteChat(id)),
    sendMessage: async (id, message, onEvent) =>
      unwrap(await commands.sendMessage(id, { text: message.text, attachments: message.attachments as Outgoing_Deserialize["attachments"], title: message.title ?? null }, channel(onEvent))),
    attachResource: async (server, uri) => unwrap(await commands.attachResource(server, uri)),
    promptDraft: async (server, name, args) => unwrap(await commands.promptDraft(server, name, args as JsonArg)),
    regenerate: async (id, onEvent) => unwrap(await commands.regenerate(id, channel(onEvent))),
    editMessage: async (id, seq, text, onEvent) => unwrap(await commands.editMessage(id, seq, text, channel(onEvent))),
    stopChat: async (id) => unwrap(await commands.stopChat(id)),
    decideCall: (approval, decision) => done(commands.decideCall(approval, decision)),
    chatTools: async (id) => unwrap(await commands.chatTools(id)),
    setChatOptions: (id, options) => done(commands.setChatOptions(id, options)),
    exportChat: async (id, json) => unwrap(await commands.exportChat(id, json)),
    listProviders: async () => unwrap(await commands.listProviders()),
    saveProvider: (config, makeDefault) => done(commands.saveProvider(config, makeDefault)),
    providerRequestUrl: async (config, model) => unwrap(await commands.providerRequestUrl(config, model)),
    removeProvider: (id) => done(commands.removeProvider(id)),
    setProviderKey: (id, key) => done(commands.setProviderKey(id, key)),
    providerModels: async (id) => unwrap(await commands.providerModels(id)),
    testProvider: async (id, model) => unwrap(await commands.testProvider(id, model)),
    localProviders: async () => unwrap(await commands.localProviders()),
    agentSettings: async () => unwrap(await commands.agentSettings()),
    updateAgentSettings: async (change) => unwrap(await commands.updateAgentSettings(change)),
    sampleWithModel: async (params) => unwrap(await commands.sampleWithModel(params as JsonArg)),
    samplingModel: async (params) => unwrap(await commands.samplingModel(params as JsonArg)),
  };
}
