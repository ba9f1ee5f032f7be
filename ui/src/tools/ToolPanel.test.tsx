import { describe, expect, it } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { ToastProvider } from "../design";
import { ToolPanel } from "./ToolPanel";

const row = {
  qualified: "demo__add",
  server: "demo",
  tool: { name: "add", inputSchema: { type: "object", properties: { a: { type: "number" } } } },
} as never;

describe("the tool panel's arguments", () => {
  it("gives Run back, saying why it waited, when the person leaves JSON that does not parse for the form", async () => {
    mockIPC((cmd) => {
      if (cmd === "tool_history") return [];
      return null;
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <ToastProvider>
          <ToolPanel backend={tauriBackend} row={row} />
        </ToastProvider>
      </QueryClientProvider>,
    );
    const runButton = () => screen.getByRole("button", { name: /^Run/ }) as HTMLButtonElement;
    expect(runButton().disabled).toBe(false);
    fireEvent.click(screen.getByRole("radio", { name: "JSON" }));
    fireEvent.change(screen.getByLabelText("arguments as JSON"), { target: { value: "{ not json" } });
    expect(runButton().disabled).toBe(true);
    expect(runButton().title).toBe("The arguments are not JSON");
    expect(screen.getByText(/Run waits for JSON that parses/)).toBeTruthy();
    fireEvent.click(screen.getByRole("radio", { name: "Form" }));
    expect(runButton().disabled).toBe(false);
  });

  it("sends the time limits the person set: a timeout progress does not reset, the server's longest", async () => {
    let sent: unknown = undefined;
    mockIPC((cmd, payload) => {
      if (cmd === "tool_history") return [];
      if (cmd === "call_tool") {
        sent = (payload as { limits: unknown }).limits;
        return { result: { content: [] }, duration_ms: 1, schema_violations: [], history_key: null, task: null, notes: [] };
      }
      return null;
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <ToastProvider>
          <ToolPanel backend={tauriBackend} row={row} />
        </ToastProvider>
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByRole("button", { name: /Time limits: the server's/ }));
    fireEvent.change(screen.getByLabelText("Timeout (s)"), { target: { value: "5" } });
    fireEvent.change(screen.getByLabelText("At most (s)"), { target: { value: "soon" } });
    expect(screen.getByText("a number of seconds above 0")).toBeTruthy();
    fireEvent.click(screen.getByRole("switch", { name: "Progress resets the timeout" }));
    expect(screen.getByRole("button", { name: /Time limits: timeout 5 s, progress does not reset the timeout/ })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: /^Run/ }));
    await screen.findByText(/^Done/);
    expect(sent).toEqual({ timeout_s: 5, max_total_s: null, progress_resets: false });
  });
});
