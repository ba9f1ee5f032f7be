import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { CaseNote } from "./HistoryRoom";

describe("a suite's call in History", () => {
  it("says its case failed, with why, though the call itself was ok", () => {
    render(<CaseNote verdict={{ suite: "demo", case: "adds", outcome: "failed", failures: ["json /sum equals: expected 6, got 5"] }} />);
    const note = screen.getByRole("note");
    expect(note.textContent).toContain("Its suite case adds (demo) failed");
    expect(note.textContent).toContain("json /sum equals: expected 6, got 5");
    expect(note.className).toContain("tone-danger");
  });

  it("says nothing for a call no suite made", () => {
    render(<CaseNote verdict={null} />);
    expect(screen.queryByRole("note")).toBeNull();
  });
});
