// The history's and the suites' half of the door to the Rust side: every
// caller's calls from the store, one whole, a tool's recent calls, the
// suites of the project and the user, a run, a call saved as a case.
// `Backend` (index.ts) includes it.
import { Channel } from "@tauri-apps/api/core";
import {
  commands,
  events,
  type CallRow_Serialize as CallRow,
  type CaseResult_Serialize as CaseResult,
  type CaseVerdict,
  type ErrorInfo,
  type HistoryQuery_Deserialize as HistoryQuery,
  type HistoryUsage_Serialize as HistoryUsage,
  type Report_Serialize as SuiteReport,
  type SuiteInfo_Serialize as SuiteInfo,
  type EvalReport_Serialize as EvalReport,
  type EvalCell_Serialize as EvalCell,
  type EvalRun_Serialize as EvalRun,
  type EvalProgress,
  type TurnCase,
  type TraceSettings_Serialize as TraceSettings,
} from "../bindings";

export type { CallRow, CaseResult, CaseVerdict, HistoryQuery, HistoryUsage, SuiteInfo, SuiteReport, EvalReport, EvalCell, EvalRun, EvalProgress, TurnCase };

export interface HistoryBackend {
  history(query: HistoryQuery): Promise<CallRow[]>;
  /** One call whole, by the key its caller made. */
  historyCall(key: string): Promise<CallRow | null>;
  /** One tool's latest calls, every caller's, newest first. */
  toolHistory(server: string, tool: string, limit: number): Promise<CallRow[]>;
  suites(): Promise<SuiteInfo[]>;
  /** Run a suite (one case when `only` names it); refused while it is not trusted. */
  runSuite(path: string, only: string | null, updateSnapshots?: boolean): Promise<SuiteReport>;
  /** Trust a suite as it was reviewed (its fingerprint); refused if it changed since. */
  trustSuite(path: string, fingerprint: string): Promise<void>;
  /** Add a case to a suite file (made if missing); the name it got. The call it came from (its history key) is kept from pruning. */
  saveToSuite(path: string, server: string, entry: unknown, call: string | null): Promise<string>;
  /** Run a suite's prompt cases with its models (or `models`); each run's end reported. Kept for the suite. */
  runEvals(path: string, models: string[], runs: number | null, onProgress: (p: EvalProgress) => void): Promise<EvalReport>;
  /** The kept eval runs of a suite, newest first. */
  evalRuns(path: string): Promise<EvalReport[]>;
  /** A chat's turn (from the person's message `seq`) as a prompt case could keep it. */
  turnCase(chat: string, seq: number): Promise<TurnCase>;
  /** Add a prompt case to a suite (made if missing, with `models`); the name it got. */
  savePromptCase(path: string, entry: unknown, models: string[]): Promise<string>;
  /** Where a new suite goes (the project's folder, else the user's). */
  suiteFolder(): Promise<string>;
  /** Where traces go (an OTLP/HTTP collector), if anywhere. */
  traceSettings(): Promise<TraceSettings>;
  /** Send traces to this collector from now on (null: none), kept in the settings file. */
  setTraceEndpoint(endpoint: string | null): Promise<void>;
  /** The history's cap and what it holds. */
  historyUsage(): Promise<HistoryUsage>;
  /** Keep at most this many MiB of calls (pruned at once). */
  setHistoryCap(maxMib: number): Promise<void>;
  /** What changes when any process keeps or ends a call (compared, not read). */
  historyVersion(): Promise<string>;
  /** Calls were written to the history (by anyone): resolves to the unlisten. */
  onHistoryGrew(listener: () => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;
type JsonArg = Parameters<typeof commands.saveToSuite>[2];

export function tauriHistoryBackend(unwrap: Unwrap): HistoryBackend {
  return {
    history: async (query) => unwrap(await commands.history(query)),
    historyCall: async (key) => unwrap(await commands.historyCall(key)),
    toolHistory: async (server, tool, limit) => unwrap(await commands.toolHistory(server, tool, limit)),
    suites: async () => unwrap(await commands.suites()),
    runSuite: async (path, only, updateSnapshots) => unwrap(await commands.runSuite(path, only, updateSnapshots ?? false)),
    trustSuite: async (path, fingerprint) => {
      unwrap(await commands.trustSuite(path, fingerprint));
    },
    runEvals: async (path, models, runs, onProgress) => {
      const channel = new Channel<EvalProgress>();
      channel.onmessage = onProgress;
      return unwrap(await commands.runEvals(path, models, runs, channel));
    },
    evalRuns: async (path) => unwrap(await commands.evalRuns(path)),
    traceSettings: async () => unwrap(await commands.traceSettings()),
    setTraceEndpoint: async (endpoint) => {
      unwrap(await commands.setTraceEndpoint(endpoint));
    },
    turnCase: async (chat, seq) => unwrap(await commands.turnCase(chat, seq)),
    savePromptCase: async (path, entry, models) => unwrap(await commands.savePromptCase(path, entry as JsonArg, models)),
    saveToSuite: async (path, server, entry, call) => unwrap(await commands.saveToSuite(path, server, entry as JsonArg, call)),
    suiteFolder: async () => unwrap(await commands.suiteFolder()),
    historyUsage: async () => unwrap(await commands.historyUsage()),
    setHistoryCap: async (maxMib) => {
      unwrap(await commands.setHistoryCap(maxMib));
    },
    historyVersion: async () => unwrap(await commands.historyVersion()),
    onHistoryGrew: (listener) => events.historyGrew.listen(() => listener()),
  };
}
