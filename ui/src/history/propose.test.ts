import { describe, expect, it } from "vitest";
import { expectOf, propose } from "./propose";

describe("assertions proposed from a result", () => {
  it("proposes what came back, ticked where it is a safe bet", () => {
    const result = { content: [{ type: "text", text: "order 17 placed\nthanks" }], structuredContent: { id: 17, items: [1], "a/b": "x" } };
    const tool = { name: "create_order", outputSchema: { type: "object" } };
    const p = propose(result, tool, 120);
    expect(p.map((x) => x.id)).toEqual(["text.contains", "text.equals", "json /id", "json /items", "json /a~1b", "outputSchema", "maxMs", "snapshot"]);
    expect(expectOf(p)).toEqual({
      text: { contains: "order 17 placed" },
      json: { "/id": { equals: 17 }, "/items": { type: "array" }, "/a~1b": { equals: "x" } },
      outputSchema: true,
    });
    const all = p.map((x) => ({ ...x, checked: true }));
    const e = expectOf(all);
    expect(e.text).toEqual({ contains: "order 17 placed", equals: "order 17 placed\nthanks" });
    expect(e.maxMs).toBe(1000);
    expect(e.snapshot).toBe(true);
  });

  it("proposes an expected error for an error result", () => {
    const p = propose({ content: [{ type: "text", text: "boom" }], isError: true }, {}, 5);
    expect(expectOf(p)).toEqual({ isError: true, text: { contains: "boom" } });
  });

  it("proposes no text match when the text is the structured content written out", () => {
    const structured = { sum: 30, items: [1, 2] };
    const result = { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
    const p = propose(result, {}, 5);
    expect(p.map((x) => x.id)).not.toContain("text.contains");
    expect(p.map((x) => x.id)).not.toContain("text.equals");
    expect(expectOf(p)).toEqual({ json: { "/sum": { equals: 30 }, "/items": { type: "array" } } });
  });
});
