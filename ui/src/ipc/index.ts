// The one door from the UI to the Rust side. Components take a `Backend`, so
// tests can hand them a fake; the real one calls the generated bindings.
import { commands, type ErrorInfo } from "../bindings";
import { tauriAgentBackend, type AgentBackend } from "./agent";
import { tauriHistoryBackend, type HistoryBackend } from "./history";
import { tauriSessionsBackend, type SessionsBackend } from "./sessions";
import { tauriDoctorBackend, type DoctorBackend } from "./doctor";
import { tauriTasksBackend, type TasksBackend } from "./tasks";
import { tauriAppsBackend, type AppsBackend } from "./apps";
import { tauriServersBackend, type ServersBackend } from "./servers";
import { tauriConfigBackend, type ConfigBackend } from "./config";
import { tauriToolsBackend, type ToolsBackend } from "./tools";
import { tauriResourcesBackend, type ResourcesBackend } from "./resources";
import { tauriTrafficBackend, type TrafficBackend } from "./traffic";
import { tauriAsksBackend, type AsksBackend } from "./asks";
import { tauriAuthBackend, type AuthBackend } from "./auth";
import { tauriBridgeBackend, type BridgeBackend } from "./bridge";
import { tauriRegistryBackend, type RegistryBackend } from "./registry";
import type {
  CallProgress_Deserialize as CallProgress,
  ConfigText,
  Found_Serialize as FoundConfig,
  NeededInput,
  Merged,
  EditOp as ServerEdit,
  Trial_Serialize as TrialReport,
  PendingAsk,
  PromptRow,
  ResourceRow,
  Scope,
  ServerStatus_Serialize as ServerStatus,
  ToolCallResult,
  ToolRow,
  TrafficEntry_Serialize as TrafficEntry,
  TrafficPage_Serialize as TrafficPage,
  TrustRequest_Serialize as TrustRequest,
  AuthRun_Serialize as AuthRun,
  Status_Serialize as AuthStatus,
  Timeline_Serialize as AuthTimeline,
  BridgeStatus_Serialize as BridgeStatus,
  TrafficQuery_Deserialize as TrafficQuery,
  LifeEvent_Serialize as LifeEvent,
} from "../bindings";

export type { LifeEvent, ServerStatus };
export type { ListCache } from "./resources";
export type { AuthRun, AuthStatus, AuthTimeline, BridgeStatus, FoundConfig, Merged, NeededInput, Scope, TrustRequest };
export type { CallProgress, ConfigText, PendingAsk, PromptRow, ResourceRow, ServerEdit, ToolCallResult, ToolRow, TrafficEntry, TrafficPage, TrafficQuery, TrialReport };

export type { InstalledBundle, PickedBundle, RegistryAdd, RegistryAdded, RegistryPage, RegistryPreview, RegistryServer, RegistryShown } from "./registry";
export type { AgentBackend, AppsBackend, AsksBackend, AuthBackend, BridgeBackend, ConfigBackend, RegistryBackend, DoctorBackend, HistoryBackend, ResourcesBackend, ServersBackend, SessionsBackend, TasksBackend, ToolsBackend, TrafficBackend };

/** An error from the backend, carrying its stable code. Switch on `code`. */
export class BackendError extends Error {
  readonly code: ErrorInfo["code"];
  constructor(info: ErrorInfo) {
    super(info.message);
    this.name = "BackendError";
    this.code = info.code;
  }
}

/** The window's own: the clipboard and saving a file where the person picks. */
export interface WindowBackend {
  /** Put text on the system clipboard. */
  copyText(text: string): Promise<void>;
  /** Save base64 bytes a server sent where the person picks; the path, or null. */
  saveBytes(name: string, data: string): Promise<string | null>;
}

/**
 * Everything the window asks of the Rust side, one interface per area (a
 * room takes the areas it uses: `TrafficBackend`, `ResourcesBackend`, ...).
 */
export interface Backend
  extends WindowBackend,
    ServersBackend,
    ConfigBackend,
    ToolsBackend,
    ResourcesBackend,
    TrafficBackend,
    AsksBackend,
    AuthBackend,
    BridgeBackend,
    RegistryBackend,
    AgentBackend,
    HistoryBackend,
    SessionsBackend,
    DoctorBackend,
    TasksBackend,
    AppsBackend {}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };

function unwrap<T>(outcome: Outcome<T>): T {
  if (outcome.status === "error") throw new BackendError(outcome.error);
  return outcome.data;
}

export const tauriBackend: Backend = {
  ...tauriServersBackend(unwrap),
  ...tauriConfigBackend(unwrap),
  ...tauriToolsBackend(unwrap),
  ...tauriResourcesBackend(unwrap),
  ...tauriTrafficBackend(unwrap),
  ...tauriAsksBackend(unwrap),
  ...tauriAuthBackend(unwrap),
  ...tauriBridgeBackend(unwrap),
  ...tauriRegistryBackend(unwrap),
  ...tauriAgentBackend(unwrap),
  ...tauriHistoryBackend(unwrap),
  ...tauriSessionsBackend(unwrap),
  ...tauriDoctorBackend(unwrap),
  ...tauriTasksBackend(unwrap),
  ...tauriAppsBackend(unwrap),
  copyText: async (text) => {
    unwrap(await commands.copyText(text));
  },
  saveBytes: async (name, data) => unwrap(await commands.saveBytes(name, data)),
};
