import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { ToastProvider } from "../design";
import { ApprovalCard } from "./ApprovalCard";

function approval(session: string, args: unknown, properties: Record<string, unknown>) {
  return {
    id: 7,
    session,
    batch: 7,
    call_id: "c",
    server: "sysmon",
    tool: "poll",
    qualified: "sysmon/poll",
    arguments: args,
    definition: { name: "poll", inputSchema: { type: "object", properties } },
    changed: null,
  } as never;
}

describe("an approval card", () => {
  it("offers an App's call 'while this App is open' and shows no empty box for a tool that takes nothing", async () => {
    let decided: unknown = null;
    mockIPC((cmd, args) => {
      if (cmd === "decide_call") {
        decided = args;
        return null;
      }
      return null;
    });
    render(
      <ToastProvider>
        <ApprovalCard backend={tauriBackend} approval={approval("app:a1", {}, {})} />
      </ToastProvider>,
    );
    expect(screen.getByText("No arguments.")).toBeTruthy();
    expect(screen.queryByLabelText("Arguments as JSON")).toBeNull();
    expect(screen.queryByText("Allow in this chat")).toBeNull();
    fireEvent.click(screen.getByText("Allow while this App is open"));
    await waitFor(() => expect(JSON.stringify(decided)).toContain('"remember":"chat"'));
  });

  it("keeps 'in this chat' and the arguments for a chat's call", () => {
    mockIPC(() => null);
    render(
      <ToastProvider>
        <ApprovalCard backend={tauriBackend} approval={approval("chat-1", { n: 1 }, { n: { type: "number" } })} />
      </ToastProvider>,
    );
    expect(screen.getByText("Allow in this chat")).toBeTruthy();
    expect(screen.queryByText("No arguments.")).toBeNull();
  });
});
