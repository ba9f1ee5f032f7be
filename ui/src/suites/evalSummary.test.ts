// The evals toast counts what it says: models per case, never cells as cases.
import { describe, expect, it } from "vitest";
import { evalSummary } from "./Evals";

const cell = (c: string, outcome: string) => ({ case: c, outcome });

describe("evalSummary", () => {
  it("says how many models passed a case", () => {
    const one = evalSummary({ cases: ["arith"], cells: [cell("arith", "passed"), cell("arith", "failed")] });
    expect(one.title).toBe("1 of 2 models passed");
    const notRun = evalSummary({ cases: ["arith"], cells: [cell("arith", "passed"), cell("arith", "not_ready")] });
    expect(notRun.title).toBe("1 of 1 model passed, 1 not run");
  });

  it("counts cases for a suite of several, each case's models said", () => {
    const two = evalSummary({
      cases: ["adds", "orders"],
      cells: [cell("adds", "passed"), cell("adds", "passed"), cell("orders", "passed"), cell("orders", "failed")],
    });
    expect(two.title).toBe("1 of 2 cases passed by every model that ran");
    expect(two.description).toBe("adds: 2 of 2 models passed; orders: 1 of 2 models passed");
  });
});
