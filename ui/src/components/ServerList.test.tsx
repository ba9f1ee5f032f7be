import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { ServerList } from "./ServerList";

const list = {
  config_path: "/home/me/.config/mcp-workbench/mcp.json",
  project_path: null,
  exists: true,
  servers: [{ name: "fs", transport: "stdio", target: "npx fs", disabled: false, description: null, scope: "user", protocol: "auto" }],
  problems: [],
} as never;

describe("the sidebar's server list", () => {
  it("counts each doctor code once, errors and warnings both, and its badge opens the Doctor", () => {
    const onSelect = vi.fn();
    const onDoctor = vi.fn();
    render(<ServerList list={list} statuses={[]} onSelect={onSelect} onDoctor={onDoctor} doctor={() => ({ errors: 1, warnings: 1, items: 9 })} />);
    const badge = screen.getByRole("button", { name: /Doctor:/ });
    expect(badge.textContent?.replace(/\s+/g, " ")).toBe("Doctor: 1 kind of error, 1 kind of warning in 9 items");
    // Shown: icons and counts; its name (its text) says the words.
    expect(badge.getAttribute("aria-label")).toBeNull();
    fireEvent.click(badge);
    expect(onDoctor).toHaveBeenCalledWith("fs");
    expect(onSelect).not.toHaveBeenCalled();
  });
});
