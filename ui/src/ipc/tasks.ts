// Tasks' half of the door to the Rust side: the tasks a server runs for
// calls (the ones calls became here, and the server's own list where it has
// one), cancelling one, and each status change as it happens (any caller's
// call: the tool panel, a chat, the bridge). `Backend` (index.ts) includes it.
import { commands, events, type ErrorInfo, type TaskList_Serialize as TaskList, type TaskState_Serialize as TaskState } from "../bindings";

export type { TaskList, TaskState };

export interface TasksBackend {
  /** A server's tasks, newest first, with why its own list is not in it. */
  listTasks(server: string): Promise<TaskList>;
  /** Ask the server to cancel a task (`tasks/cancel`). */
  cancelTask(server: string, taskId: string): Promise<void>;
  onTaskChanged(listener: (server: string, task: TaskState) => void): Promise<() => void>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriTasksBackend(unwrap: Unwrap): TasksBackend {
  return {
    listTasks: async (server) => unwrap(await commands.listTasks(server)),
    cancelTask: async (server, taskId) => {
      unwrap(await commands.cancelTask(server, taskId));
    },
    onTaskChanged: (listener) => events.taskChanged.listen((e) => listener(e.payload.server, e.payload.task as TaskState)),
  };
}

/** A task's status as a person reads it, and its tone. */
export function taskStatus(task: Pick<TaskState, "status">): { label: string; tone: "ok" | "warn" | "danger" | "neutral" | "accent" } {
  switch (task.status) {
    case "completed":
      return { label: "completed", tone: "ok" };
    case "failed":
      return { label: "failed", tone: "danger" };
    case "cancelled":
      return { label: "cancelled", tone: "neutral" };
    case "input_required":
      return { label: "input required", tone: "warn" };
    case "working":
      return { label: "working", tone: "accent" };
    default:
      return { label: task.status.replace(/_/g, " "), tone: "neutral" };
  }
}
