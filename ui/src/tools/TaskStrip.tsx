// A call that became a task: its status as the server last said it (live
// while it runs: working / input required / completed / failed / cancelled),
// the status message, the task id and the form the server speaks.
import { Badge } from "../design";
import { taskStatus, type TaskState } from "../ipc/tasks";
import "./tasks.css";

export function TaskStrip({ task, ended = false }: { task: TaskState; ended?: boolean }) {
  const { label, tone } = taskStatus(task);
  const form = task.form === "extension" ? "tasks extension (2026-07-28)" : "tasks (2025-11-25)";
  return (
    <div className="task-strip" role="status" aria-live="polite">
      <span className="task-strip-lead">{ended ? "Ran as a task" : "Running as a task"}</span>
      <Badge tone={tone} className={`task-status task-${task.status}`}>
        {label}
      </Badge>
      {/* A finished task's last progress text is not news: the result says the rest. */}
      {task.statusMessage && !(ended && task.status === "completed") && <span className="task-message">{task.statusMessage}</span>}
      <code className="task-id" title={`${form}; polled every ${task.pollIntervalMs ?? 1000} ms`}>
        {task.taskId}
      </code>
    </div>
  );
}
