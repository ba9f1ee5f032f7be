import { describe, expect, it } from "vitest";
import { plural } from "./words";

describe("words with numbers", () => {
  it("says one thing in the singular and others in the plural", () => {
    expect(plural(1, "case")).toBe("1 case");
    expect(plural(0, "case")).toBe("0 cases");
    expect(plural(2, "resource")).toBe("2 resources");
    expect(plural(1, "entry", "entries")).toBe("1 entry");
    expect(plural(12000, "tool")).toBe((12000).toLocaleString() + " tools");
  });
});
