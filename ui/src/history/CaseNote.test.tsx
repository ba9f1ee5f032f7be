import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { keepCaseOutcome } from "../suites/caseOutcome";
import { CaseNote } from "./HistoryRoom";

describe("a suite's call in History", () => {
  it("says its case failed, with why, though the call itself was ok", () => {
    keepCaseOutcome("demo", {
      name: "adds",
      server: "demo",
      tool: "add",
      outcome: "failed",
      failures: [{ assertion: "json /sum equals", message: "expected 6, got 5", diff: null }],
      note: null,
      duration_ms: 3,
      history_id: 41,
      arguments: { a: 2, b: 3 },
    });
    render(<CaseNote historyId={41} />);
    const note = screen.getByRole("note");
    expect(note.textContent).toContain("Its suite case adds (demo) failed");
    expect(note.textContent).toContain("json /sum equals: expected 6, got 5");
    render(<CaseNote historyId={42} />);
    expect(screen.getAllByRole("note")).toHaveLength(1);
  });
});
