import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { ImportView } from "./ImportView";

describe("importing from other clients", () => {
  it("lists the configs found and imports the servers picked", async () => {
    const imports: unknown[] = [];
    mockIPC((cmd, args) => {
      if (cmd === "discover_configs") return [{ dialect: "cursor", path: "/h/.cursor/mcp.json", servers: ["github", "files"], targets: ["https://gh.example/mcp", "npx -y files-mcp /home"], notes: ["x: skipped"], error: null }];
      if (cmd === "import_config") {
        imports.push(args);
        return { added: ["files"], kept: [], notes: ["files: env.FILES_TOKEN kept in the OS keychain, not in the file"] };
      }
      throw new Error(`unexpected ${cmd}`);
    });
    const { rerender } = render(<ImportView backend={tauriBackend} ours={["github"]} onDone={() => undefined} />);
    expect(await screen.findByText("we have one")).toBeTruthy();
    expect(screen.getByText("x: skipped")).toBeTruthy();
    // What each would run or reach, before anything is imported.
    expect(screen.getByText("npx -y files-mcp /home")).toBeTruthy();
    expect(screen.getByText("https://gh.example/mcp")).toBeTruthy();
    // One we have already is not ticked at first; the new one is.
    expect((screen.getByLabelText(/github/) as HTMLInputElement).checked).toBe(false);
    expect((screen.getByLabelText(/files/) as HTMLInputElement).checked).toBe(true);
    // The person's own ticks: files off and on again.
    fireEvent.click(screen.getByLabelText(/files/));
    fireEvent.click(screen.getByLabelText(/files/));
    fireEvent.click(screen.getByText("Import 1 server"));
    await waitFor(() => expect(imports).toEqual([{ path: "/h/.cursor/mcp.json", dialect: "cursor", only: ["files"], replace: false }]));
    // What was changed on the way in is said with it.
    expect(await screen.findByText("Imported 1 server: files. files: env.FILES_TOKEN kept in the OS keychain, not in the file.")).toBeTruthy();
    // Once brought, it is ours: not ticked again for a second import.
    rerender(<ImportView backend={tauriBackend} ours={["github", "files"]} onDone={() => undefined} />);
    expect((screen.getByLabelText(/files/) as HTMLInputElement).checked).toBe(false);
    expect((screen.getByText("Import 0 servers").closest("button") as HTMLButtonElement).disabled).toBe(true);
  });
});
