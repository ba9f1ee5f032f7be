import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { RawEditor } from "./RawEditor";

describe("the raw mcp.json editor", () => {
  it("follows the file while nothing is unsaved, and a refused save says why", async () => {
    let reads = 0;
    mockIPC((cmd) => {
      if (cmd === "read_config") {
        reads += 1;
        return { path: "/h/mcp.json", exists: true, text: `{ "mcpServers": {} } // version ${reads}\n` };
      }
      throw new Error(`unexpected ${cmd}`);
    });
    const { rerender } = render(<RawEditor backend={tauriBackend} onClose={() => undefined} diskVersion={0} />);
    expect(await screen.findByText("/h/mcp.json")).toBeTruthy();
    expect(reads).toBe(1);
    rerender(<RawEditor backend={tauriBackend} onClose={() => undefined} diskVersion={1} />);
    await waitFor(() => expect(reads).toBe(2));
    expect(screen.queryByRole("alert")).toBeNull();
  });

  it("with a project open, switches between the user's file and the project's", async () => {
    const asked: unknown[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "read_config") {
        const scope = (args as { scope: string | null }).scope;
        asked.push(scope);
        return scope === "project"
          ? { path: "/src/app/.mcp.json", exists: false, text: "" }
          : { path: "/h/mcp.json", exists: true, text: `{ "mcpServers": {} }\n` };
      }
      throw new Error(`unexpected ${cmd}`);
    });
    render(<RawEditor backend={tauriBackend} onClose={() => undefined} diskVersion={0} hasProject />);
    expect(await screen.findByText("/h/mcp.json")).toBeTruthy();
    fireEvent.click(screen.getByText("Project file"));
    expect(await screen.findByText("/src/app/.mcp.json")).toBeTruthy();
    expect(asked).toEqual(["user", "project"]);
    expect(screen.getByText("Project file").getAttribute("aria-pressed")).toBe("true");
  });
});
