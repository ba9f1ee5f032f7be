// A tool call in the thread: which server and tool, how it stands
// (waiting for you, running with progress, done, refused, failed), how long
// it took, the arguments it ran with and its result through the same
// result view as a call made by hand, and a way to its traffic.
import { CircleDashed, CheckCircle2, Clock, Loader2, Radio, Search, ShieldAlert, Slash, Wrench, XCircle } from "lucide-react";
import type { LucideIcon } from "lucide-react";
import type { Approval, Part } from "../ipc/agent";
import { Badge, Button, Disclosure, type Tone } from "../design";
import { taskStatus } from "../ipc/tasks";
import "../tools/tasks.css";
import { ResultView } from "../content/ResultView";
import { AppFrame } from "../content/AppFrame";
import { appUri, toolDefinition } from "../content/apps";
import { useMaybeWorkbench } from "../shell/workbench";
import { ApprovalCard } from "./ApprovalCard";
import type { LiveCall } from "./live";
import type { ComponentProps } from "react";

type Call = Extract<Part, { type: "tool_call" }>;
type Result = Extract<Part, { type: "tool_result" }>;

const STATUS: Record<string, { label: string; tone: Tone; icon: LucideIcon }> = {
  pending: { label: "waiting for you", tone: "warn", icon: ShieldAlert },
  running: { label: "running", tone: "info", icon: Loader2 },
  ok: { label: "done", tone: "ok", icon: CheckCircle2 },
  error: { label: "tool error", tone: "danger", icon: XCircle },
  failed: { label: "failed", tone: "danger", icon: XCircle },
  denied: { label: "refused", tone: "neutral", icon: Slash },
  cancelled: { label: "cancelled", tone: "neutral", icon: Slash },
  unknown: { label: "not run", tone: "neutral", icon: CircleDashed },
};

export function ToolCallCard({
  backend,
  call,
  result,
  live,
  approval,
  onTraffic,
  onAppMessage,
  onAppContext,
}: {
  backend: ComponentProps<typeof AppFrame>["backend"] & ComponentProps<typeof ResultView>["backend"];
  call: Call;
  result?: Result;
  live?: LiveCall;
  approval?: Approval;
  onTraffic: (server: string) => void;
  /** An App's `ui/message`: the chat's next user message. */
  onAppMessage?: (text: string) => Promise<boolean>;
  /** An App's `ui/update-model-context`: kept for the next turn. */
  onAppContext?: (text: string) => void;
}) {
  const wb = useMaybeWorkbench();
  const definition = toolDefinition(wb?.tools.data, call.server, call.tool);
  const status = approval ? "pending" : (result?.status ?? live?.status ?? "unknown");
  const s = STATUS[status] ?? { label: "not run", tone: "neutral" as Tone, icon: CircleDashed };
  const search = call.name === "search_tools";
  const duration = result?.duration_ms ?? live?.durationMs ?? null;
  const args = result?.arguments ?? call.arguments;
  const Icon = search ? Search : Wrench;
  return (
    <div className={`tool-card status-${status}`} data-call={call.call_id}>
      <div className="tool-card-head">
        <Icon aria-hidden size={14} />
        <span className="tool-card-name">
          {call.server && call.tool ? (
            <>
              <span className="muted">{call.server} /</span> {call.tool}
            </>
          ) : (
            call.name
          )}
        </span>
        <Badge tone={s.tone} icon={s.icon} className="tool-card-status">
          {s.label}
        </Badge>
        {duration !== null && duration !== undefined && (
          <span className="tool-card-time">
            <Clock aria-hidden size={12} /> {duration.toFixed(0)} ms
          </span>
        )}
        {live?.status === "running" && live.progress && (
          <span className="progress">
            <progress value={live.progress.total ? (live.progress.progress ?? 0) : undefined} max={live.progress.total ?? undefined} aria-label="progress" />
            {live.progress.message && <span className="muted">{live.progress.message}</span>}
          </span>
        )}
        {live?.task && (
          <span className="tool-card-task" title={`task ${live.task.taskId}`}>
            <Badge tone={taskStatus(live.task).tone}>task {taskStatus(live.task).label}</Badge>
            {live.task.statusMessage && <span className="muted">{live.task.statusMessage}</span>}
          </span>
        )}
        {call.server && result?.traffic && (
          <Button size="sm" variant="ghost" icon={Radio} className="tool-card-traffic" onClick={() => call.server && onTraffic(call.server)} title="Show this server's messages">
            Traffic
          </Button>
        )}
      </div>
      {/* The App shows once the call runs (its input first, its result when it comes). */}
      {!approval && definition && appUri(definition) && call.server && (result || live?.status === "running") && (
        <AppFrame
          backend={backend}
          server={call.server}
          tool={definition}
          args={args ?? {}}
          result={result?.result ?? undefined}
          cancelled={result && result.result == null ? `${result.status}: ${result.content}` : undefined}
          onMessage={onAppMessage}
          park
          onModelContext={onAppContext}
        />
      )}
      {approval ? (
        <ApprovalCard backend={backend} approval={approval} />
      ) : (
        <Disclosure title="Details" defaultOpen={status === "error" || status === "failed"} className="tool-card-details">
          <p className="field-label">Arguments{result?.arguments && JSON.stringify(result.arguments) !== JSON.stringify(call.arguments) ? " (edited before running)" : ""}</p>
          <pre className="json" tabIndex={0}>{JSON.stringify(args, null, 2)}</pre>
          {result?.result ? (
            <ResultView backend={backend} server={call.server ?? undefined} result={result.result as Record<string, unknown>} durationMs={result.duration_ms ?? null} violations={[]} />
          ) : (
            result && <p className={status === "ok" ? "tool-card-text" : "tool-card-text muted"}>{result.content}</p>
          )}
        </Disclosure>
      )}
    </div>
  );
}
