// A server's tasks: the ones calls became (by anyone: the tool panel, a
// chat, the bridge), merged with the server's own tasks/list where it offers
// one; each with its status live, and Cancel for the ones still running.
import { useEffect } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { RefreshCw, Square } from "lucide-react";
import type { TasksBackend } from "../ipc";
import { Badge, Button, Disclosure, useToast } from "../design";
import { taskStatus } from "../ipc/tasks";
import "../tools/tasks.css";
import { keys } from "../queries";

const ENDED = ["completed", "failed", "cancelled"];

/** A call's arguments in a line (cut). */
function shortArgs(args: unknown): string {
  const text = JSON.stringify(args);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

export function TasksSection({ backend, name, ready }: { backend: TasksBackend; name: string; ready: boolean }) {
  const queryClient = useQueryClient();
  const toast = useToast();
  const tasks = useQuery({ queryKey: keys.tasks(name), queryFn: () => backend.listTasks(name), enabled: ready });
  useEffect(() => {
    let off: (() => void) | undefined;
    let gone = false;
    void backend
      .onTaskChanged((server) => {
        if (server === name) void queryClient.invalidateQueries({ queryKey: keys.tasks(name) });
      })
      .then((unlisten) => {
        if (gone) unlisten();
        else off = unlisten;
      });
    return () => {
      gone = true;
      off?.();
    };
  }, [backend, name, queryClient]);
  const list = tasks.data?.tasks ?? [];
  const cancel = (id: string) =>
    backend.cancelTask(name, id).then(
      () => {
        toast("Asked the server to cancel the task");
        void queryClient.invalidateQueries({ queryKey: keys.tasks(name) });
      },
      (e: unknown) => toast("Not cancelled", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
    );
  const running = list.some((t) => !ENDED.includes(t.status));
  return (
    // Opens when a task starts running (remounted open), else as the person left it.
    <Disclosure key={running ? "running" : "idle"} title="Tasks" count={list.length} defaultOpen={running} className="panel-section">
      <div className="toolbar">
        <Button size="sm" variant="ghost" icon={RefreshCw} disabled={!ready} onClick={() => void tasks.refetch()}>
          Refresh
        </Button>
        {tasks.data?.note && <span className="muted">{tasks.data.note}</span>}
      </div>
      {list.length === 0 ? (
        <p className="muted">No tasks yet. A call to a tool the server runs as a task shows here with its status.</p>
      ) : (
        <ol className="task-list" aria-label="Tasks">
          {list.map((t) => {
            const { label, tone } = taskStatus(t);
            return (
              <li key={t.taskId}>
                <Badge tone={tone}>{label}</Badge>
                {t.tool ? (
                  <span className="task-call" title={t.arguments ? JSON.stringify(t.arguments) : undefined}>
                    <code>{t.tool}</code>
                    {t.arguments != null && <code className="muted task-args">{shortArgs(t.arguments)}</code>}
                  </span>
                ) : (
                  <span className="muted">listed by the server</span>
                )}
                <code className="task-id">{t.taskId}</code>
                {t.statusMessage && <span className="task-message">{t.statusMessage}</span>}
                {t.lastUpdatedAt && <time className="muted">{new Date(t.lastUpdatedAt).toLocaleTimeString(undefined, { hour12: false })}</time>}
                {!ENDED.includes(t.status) && (
                  <Button size="sm" icon={Square} onClick={() => void cancel(t.taskId)}>
                    Cancel
                  </Button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </Disclosure>
  );
}
