// The tool list from the keyboard: Enter in the search opens the selected
// tool if it matches, else the first that does.
import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { ToolsView } from "./ToolsView";
import type { Backend, ToolRow } from "../backend";

const row = (server: string, name: string): ToolRow => ({ qualified: `${server}__${name}`, server, tool: { name, description: `${name} things` }, stale: false }) as unknown as ToolRow;
const tools = [row("alpha", "echo"), row("alpha", "add"), row("beta", "echo"), row("gamma", "search")];
const statuses = ["alpha", "beta", "gamma"].map((name) => ({ name, state: "ready" })) as never;

describe("the tool list from the keyboard", () => {
  it("opens the first match on Enter in the search", () => {
    const onSelect = vi.fn();
    render(<ToolsView backend={{} as Backend} tools={tools} selected={null} onSelect={onSelect} statuses={statuses} />);
    const search = screen.getByLabelText("Search tools");
    fireEvent.change(search, { target: { value: "search" } });
    fireEvent.keyDown(search, { key: "Enter" });
    expect(onSelect).toHaveBeenLastCalledWith("gamma__search");
    fireEvent.change(search, { target: { value: "echo" } });
    fireEvent.keyDown(search, { key: "Enter" });
    expect(onSelect).toHaveBeenLastCalledWith("alpha__echo");
  });
});
