import { describe, expect, it } from "vitest";
import { render, screen, within } from "@testing-library/react";
import type { CallRow } from "../ipc/history";
import { CompareView } from "./CompareView";

function call(id: number, args: Record<string, unknown>): CallRow {
  return {
    id,
    key: `row-${id}`,
    origin: "window",
    session: null,
    call_id: "",
    server: "demo",
    tool: "echo",
    arguments: args,
    result: { content: [{ type: "text", text: "x" }] },
    error: null,
    status: "ok",
    duration_ms: 1,
    started_at: id,
    protocol: null,
    traffic_from: null,
    traffic_to: null,
    schema_violations: [],
    saved: false,
    task: null,
    verdict: null,
    notes: [],
  } as CallRow;
}

describe("comparing two calls", () => {
  it("tells an absent value from an empty one", () => {
    render(<CompareView a={call(1, { note: "" })} b={call(2, { other: 1 })} />);
    const [table] = screen.getAllByRole("table");
    if (!table) throw new Error("no table of changes");
    const row = (path: string) => within(table).getByText(path).closest("tr")?.textContent ?? "";
    expect(row("/note")).toContain('""');
    expect(row("/note")).toContain("(absent)");
    expect(row("/other")).toContain("(absent)");
    expect(row("/other")).toContain("1");
  });
});

describe("structured content compared", () => {
  it("says neither call has any, rather than that it is the same", () => {
    render(<CompareView a={call(1, {})} b={call(2, {})} />);
    expect(screen.getByRole("heading", { name: "Structured content" }).nextElementSibling?.textContent).toBe("Neither has any.");
  });
});
