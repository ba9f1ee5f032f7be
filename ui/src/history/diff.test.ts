import { describe, expect, it } from "vitest";
import { jsonDiff, lineDiff, resultText } from "./diff";

describe("comparing two calls", () => {
  it("names each path that was added, removed or changed", () => {
    const before = { sum: 5, items: [1, 2], meta: { a: "x", "b/c": 1 } };
    const after = { sum: 6, items: [1, 2, 3], meta: { a: "x" }, extra: true };
    expect(jsonDiff(before, after)).toEqual([
      { path: "/sum", kind: "changed", before: 5, after: 6 },
      { path: "/items/2", kind: "added", after: 3 },
      { path: "/meta/b~1c", kind: "removed", before: 1 },
      { path: "/extra", kind: "added", after: true },
    ]);
    expect(jsonDiff({ a: [1] }, { a: [1] })).toEqual([]);
    expect(jsonDiff(1, "1")).toEqual([{ path: "/", kind: "changed", before: 1, after: "1" }]);
  });

  it("diffs text by lines", () => {
    expect(lineDiff("a\nb\nc", "a\nx\nc")).toEqual([
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "x" },
      { op: " ", text: "c" },
    ]);
  });

  it("joins a result's text blocks", () => {
    expect(resultText({ content: [{ type: "text", text: "one" }, { type: "image", data: "" }, { type: "text", text: "two" }] })).toBe("one\ntwo");
    expect(resultText(null)).toBe("");
  });
});
