// Tools: the catalog's list and a call made by hand (progress, cancel, a task's statuses).
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { Channel } from "@tauri-apps/api/core";
import type { TaskState } from "./tasks";
import {
  commands,
  events,
  type CallProgress_Deserialize as CallProgress,
  type TaskState_Deserialize,
  type ToolCallResult,
  type ToolRow,
  type ErrorInfo,
  type LoadRun_Serialize as LoadRun,
  type LoadReport_Serialize as LoadReport,
  type LoadSecond,
} from "../bindings";

export type { LoadRun, LoadReport, LoadSecond };

let nextCall = 0;

export interface ToolsBackend {
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
    options?: {
      asTask?: boolean;
      onTask?: (task: TaskState) => void;
      /** The call's time limits (null: the server's own). */
      limits?: { timeout_s: number | null; max_total_s: number | null; progress_resets: boolean };
    },
  ): { result: Promise<ToolCallResult>; cancel: () => Promise<void> };
  /** A load run of one tool: `concurrency` calls at once for `durationMs`
   * (at most `rate` a second); each second to `onSecond`. Kept in History. */
  runLoad(
    server: string,
    tool: string,
    args: unknown,
    options: { concurrency: number; durationMs: number; rate: number | null },
    onSecond: (s: LoadSecond) => void,
  ): Promise<LoadRun>;
  /** Stop the load run under way. */
  stopLoad(): Promise<boolean>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriToolsBackend(unwrap: Unwrap): ToolsBackend {
  return {
    runLoad: async (server, tool, args, options, onSecond) => {
      const channel = new Channel<LoadSecond>();
      channel.onmessage = onSecond;
      return unwrap(
        await commands.runLoad(server, tool, args as Parameters<typeof commands.runLoad>[2], options.concurrency, options.durationMs, options.rate, channel),
      );
    },
    stopLoad: async () => unwrap(await commands.stopLoad()),
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
        .callTool(server, tool, args as Parameters<typeof commands.callTool>[2], id, options?.asTask ?? false, options?.limits ?? null, channel, statuses)
        .then(unwrap);
      return {
        result,
        cancel: async () => {
          unwrap(await commands.cancelCall(id));
        },
      };
    },
  };
}
