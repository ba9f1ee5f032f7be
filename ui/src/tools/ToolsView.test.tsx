// The tool list from the keyboard: Enter in the search opens the selected
// tool if it matches, else the first that does.
import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { ReactElement } from "react";
import { ToolsView, cacheLabel } from "./ToolsView";
import { noneYet } from "../components/noneYet";
import type { Backend, ToolRow } from "../ipc";

const row = (server: string, name: string): ToolRow => ({ qualified: `${server}__${name}`, server, tool: { name, description: `${name} things` }, stale: false }) as unknown as ToolRow;
const tools = [row("alpha", "echo"), row("alpha", "add"), row("beta", "echo"), row("gamma", "search")];
const statuses = ["alpha", "beta", "gamma"].map((name) => ({ name, state: "ready" })) as never;

const withQueries = (ui: ReactElement) =>
  render(<QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>{ui}</QueryClientProvider>);

describe("the tool list from the keyboard", () => {
  it("opens the first match on Enter in the search", () => {
    const onSelect = vi.fn();
    withQueries(<ToolsView backend={{} as Backend} tools={tools} selected={null} onSelect={onSelect} statuses={statuses} />);
    const search = screen.getByLabelText("Search tools");
    fireEvent.change(search, { target: { value: "search" } });
    fireEvent.keyDown(search, { key: "Enter" });
    expect(onSelect).toHaveBeenLastCalledWith("gamma__search");
    fireEvent.change(search, { target: { value: "echo" } });
    fireEvent.keyDown(search, { key: "Enter" });
    expect(onSelect).toHaveBeenLastCalledWith("alpha__echo");
  });

  it("offers to read the lists again, and says each list's freshness in short", () => {
    withQueries(<ToolsView backend={{} as Backend} tools={tools} selected={null} onSelect={() => {}} statuses={statuses} />);
    expect(screen.getByRole("button", { name: "Read every server's lists again (fresh or not)" })).toBeTruthy();
    const now = 1_000_000;
    const hint = (ttl_ms: number | null, scope: string | null, read_at_ms: number) => ({ hint: { ttl_ms, scope, read_at_ms } });
    expect(cacheLabel(hint(60_000, "public", now - 1_000), now)).toBe("fresh 59 s · public");
    expect(cacheLabel(hint(60_000, "private", now - 61_000), now)).toBe("stale");
    expect(cacheLabel(hint(0, "private", now), now)).toBe("ttlMs 0");
    expect(cacheLabel(hint(null, null, now), now)).toBe("no cache hints");
  });

  it("says why there are no tools: servers waiting for trust, or failing", () => {
    const at = (...states: string[]) => states.map((state, i) => ({ name: `s${i}`, state })) as never;
    expect(noneYet(at("untrusted", "untrusted", "restarting"), "tools")).toBe(
      "2 servers wait for your trust: open one in the list to read what it runs. 1 server could not start: its page says why.",
    );
    expect(noneYet(at("untrusted"), "tools")).toBe("1 server waits for your trust: open it in the list to read what it runs.");
    expect(noneYet(at("failed", "failed"), "tools")).toBe("2 servers could not start: their pages say why.");
    expect(noneYet(at("starting"), "tools")).toBe("No tools yet: they appear when a server is ready.");
    withQueries(<ToolsView backend={{} as Backend} tools={[]} selected={null} onSelect={() => {}} statuses={at("untrusted")} />);
    expect(screen.getByText("1 server waits for your trust: open it in the list to read what it runs.")).toBeTruthy();
  });
});
