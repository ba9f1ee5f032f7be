// What a tool says about itself beyond the basics, as the server sent it:
// task support (`execution.taskSupport`) and every other field, also those
// this window does not know (the catalog keeps them all).
import { Badge } from "../design";

/** A badge for a tool that runs only as a task, or may. */
export function TaskBadge({ tool }: { tool: Record<string, unknown> }) {
  const execution = tool.execution as { taskSupport?: unknown } | undefined;
  const support = execution?.taskSupport;
  if (support === "required")
    return (
      <Badge tone="info" className="badge-tasks" title={'execution.taskSupport is "required": the server runs this tool only as a task; the workbench follows the task to its result (Cancel stops it)'}>
        runs as a task
      </Badge>
    );
  if (support === "optional")
    return (
      <Badge tone="neutral" className="badge-tasks" title={'execution.taskSupport is "optional": the server can also run this tool as a task (Ask for a task)'}>
        task optional
      </Badge>
    );
  return null;
}

/** The whole definition, pretty-printed as text. */
export function definitionText(tool: Record<string, unknown>): string {
  return JSON.stringify(tool, null, 2);
}
