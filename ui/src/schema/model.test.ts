import { describe, expect, it } from "vitest";
import { resolve } from "./model";
import { looksLikeMarkdown } from "../content/Markdown";

describe("hostile schemas and text do not stall the window", () => {
  it("resolves a schema that names each definition twice, 40 levels deep, once per name", () => {
    // d0 = allOf [d1, d1], d1 = allOf [d2, d2], …: 2^40 expansions without memoisation.
    const defs: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) defs[`d${i}`] = { allOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }], properties: { [`p${i}`]: { type: "string" } } };
    defs.d40 = { type: "object", properties: { last: { type: "integer" } } };
    const root = { $defs: defs, $ref: "#/$defs/d0" };
    const r = resolve(root, root);
    const props = r.properties as Record<string, unknown>;
    expect(Object.keys(props)).toContain("p0");
    expect(Object.keys(props)).toContain("last");
  });

  it("cuts cycles and nesting past the depth limit", () => {
    const root = { $defs: { a: { $ref: "#/$defs/b" }, b: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" };
    const r = resolve(root, root);
    expect(r.type).toBeUndefined();
    expect(r.properties).toBeUndefined();
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 500; i++) deep = { allOf: [deep] };
    expect(() => resolve(deep, deep)).not.toThrow();
  });

  it("tells Markdown from text in one pass, even on a megabyte of brackets", () => {
    expect(looksLikeMarkdown("see [the docs](https://x.example)")).toBe(true);
    expect(looksLikeMarkdown("# Title\ntext")).toBe(true);
    expect(looksLikeMarkdown("**bold** text")).toBe(true);
    expect(looksLikeMarkdown("plain [1] text (no link)")).toBe(false);
    // Quadratic before: this took minutes.
    expect(looksLikeMarkdown("[".repeat(1_000_000))).toBe(false);
    expect(looksLikeMarkdown("](".repeat(500_000))).toBe(false);
  });
});
