import { describe, expect, it } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../backend";
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
});
