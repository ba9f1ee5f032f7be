import { describe, expect, it } from "vitest";
import { asCommand } from "./ToolPanel";
import type { ToolRow } from "../ipc";

const row = { qualified: "demo__echo", server: "demo", tool: { name: "echo" }, stale: false } as unknown as ToolRow;

describe("Copy as mcpwb", () => {
  it("names the files the window is on, so the pasted command finds the server", () => {
    expect(asCommand(row, { message: "it's" }, { config: "/home/me/my servers/mcp.json", project: "/work/app/.mcp.json" })).toBe(
      `mcpwb call --config '/home/me/my servers/mcp.json' --project /work/app demo echo --args '{"message":"it'\\''s"}'`,
    );
    expect(asCommand(row, {}, { config: "/c/mcp.json", project: null })).toBe("mcpwb call --config /c/mcp.json demo echo --args '{}'");
  });
});
