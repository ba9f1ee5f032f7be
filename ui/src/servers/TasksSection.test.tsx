// A server's tasks in its panel: listed newest first with their status,
// live as a task changes, Cancel only on the ones still running.
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { emit } from "@tauri-apps/api/event";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { TasksSection } from "./TasksSection";
import { TaskStrip } from "../tools/TaskStrip";

const task = (taskId: string, status: string, statusMessage: string | null, tool: string | null = "task_batch") => ({
  taskId,
  status,
  statusMessage,
  pollIntervalMs: 100,
  ttlMs: null,
  createdAt: null,
  lastUpdatedAt: null,
  form: "2025-11-25" as const,
  tool,
  arguments: tool ? { steps: 3 } : null,
});

describe("a server's tasks", () => {
  it("lists them, follows changes and cancels a running one", async () => {
    let tasks = [task("t-2", "working", "step 1 of 3"), task("t-1", "completed", null)];
    const cancelled: unknown[] = [];
    mockIPC(
      (cmd, args) => {
        if (cmd === "list_tasks") return { tasks, form: "2025-11-25", note: null };
        if (cmd === "cancel_task") {
          cancelled.push(args);
          return null;
        }
        throw new Error(`unexpected ${cmd}`);
      },
      { shouldMockEvents: true },
    );
    render(
      <QueryClientProvider client={new QueryClient()}>
        <TasksSection backend={tauriBackend} name="demo" ready />
      </QueryClientProvider>,
    );
    const list = await screen.findByRole("list", { name: "Tasks" });
    const rows = within(list).getAllByRole("listitem");
    expect(rows.map((r) => r.textContent)).toEqual([expect.stringContaining("working"), expect.stringContaining("completed")]);
    const [running, ended] = rows as [HTMLElement, HTMLElement];
    expect(within(running).getByText("step 1 of 3")).toBeTruthy();
    // Which call it was: the tool and its arguments.
    expect(within(running).getByText("task_batch")).toBeTruthy();
    expect(within(running).getByText('{"steps":3}')).toBeTruthy();
    // Only the running one can be cancelled.
    expect(within(ended).queryByRole("button", { name: "Cancel" })).toBeNull();
    fireEvent.click(within(running).getByRole("button", { name: "Cancel" }));
    await waitFor(() => expect(cancelled).toEqual([{ server: "demo", taskId: "t-2" }]));
    // A status change elsewhere (a chat's call) shows without a refresh.
    tasks = [task("t-2", "input_required", "waiting for approval"), task("t-1", "completed", null)];
    await emit("task-changed", { server: "demo", task: tasks[0] });
    await waitFor(() => expect(screen.getByText("waiting for approval")).toBeTruthy());
    expect(screen.getByText("input required")).toBeTruthy();
  });

  it("shows a call's task with its status, message and id, server text as text", () => {
    const { container } = render(<TaskStrip task={task("t-9", "failed", '<img src=x onerror="alert(1)">')} ended />);
    expect(screen.getByRole("status").textContent).toContain("Ran as a task");
    expect(screen.getByText("failed")).toBeTruthy();
    expect(screen.getByText('<img src=x onerror="alert(1)">')).toBeTruthy();
    expect(container.querySelector("img")).toBeNull();
    expect(screen.getByText("t-9")).toBeTruthy();
  });

  it("does not leave a completed task's last progress text on its strip", () => {
    render(<TaskStrip task={task("t-3", "completed", "step 3 of 3")} ended />);
    expect(screen.getByText("completed")).toBeTruthy();
    expect(screen.queryByText("step 3 of 3")).toBeNull();
  });
});
