import { describe, expect, it } from "vitest";
import { plural, took } from "./words";

describe("words with numbers", () => {
  it("says one thing in the singular and others in the plural", () => {
    expect(plural(1, "case")).toBe("1 case");
    expect(plural(0, "case")).toBe("0 cases");
    expect(plural(2, "resource")).toBe("2 resources");
    expect(plural(1, "entry", "entries")).toBe("1 entry");
    expect(plural(12000, "tool")).toBe((12000).toLocaleString() + " tools");
  });
  it("says a duration in the unit it is read in", () => {
    expect(took(12.4)).toBe("12 ms");
    expect(took(999)).toBe("999 ms");
    expect(took(10039)).toBe("10.0 s");
    expect(took(59_949)).toBe("59.9 s");
    expect(took(125_000)).toBe("2 min 05 s");
  });
});
