import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { CommandPalette, matchCommands, type Command } from "./CommandPalette";

describe("the command palette", () => {
  it("opens with Ctrl+K, filters by every word, runs with Enter", () => {
    const run = vi.fn();
    const commands: Command[] = [
      { id: "a", label: "Tools", hint: "view", run: vi.fn() },
      { id: "b", label: "demo__echo", hint: "tool · Echo", run },
      { id: "c", label: "demo__add", hint: "tool · Add", run: vi.fn() },
    ];
    expect(matchCommands(commands, "tool echo").map((c) => c.id)).toEqual(["b"]);
    render(<CommandPalette commands={commands} />);
    expect(screen.queryByRole("dialog")).toBeNull();
    fireEvent.keyDown(window, { key: "k", ctrlKey: true });
    const input = screen.getByLabelText("Command");
    fireEvent.change(input, { target: { value: "demo" } });
    expect(screen.getAllByRole("option")).toHaveLength(2);
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "ArrowUp" });
    fireEvent.keyDown(input, { key: "Enter" });
    expect(run).toHaveBeenCalledOnce();
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
