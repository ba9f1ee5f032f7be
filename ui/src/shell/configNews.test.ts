import { describe, expect, it } from "vitest";
import { configNews } from "./configNews";

const change = (c: Partial<Parameters<typeof configNews>[0]>) => ({ added: [], changed: [], removed: [], untrusted: [], disabled: [], ...c });

describe("the notice of an edit made elsewhere", () => {
  it("says what started, and what waits for trust or is disabled instead", () => {
    expect(configNews(change({ added: ["a"], changed: ["b"], removed: ["c"] }))).toEqual(["started a", "restarted b", "stopped c"]);
    expect(configNews(change({ added: ["cloned"], untrusted: ["cloned"] }))).toEqual(["cloned waits for your trust"]);
    expect(configNews(change({ added: ["a", "x", "y"], changed: ["z"], untrusted: ["x", "z"], disabled: ["y"] }))).toEqual([
      "started a",
      "x, z wait for your trust",
      "y is disabled",
    ]);
  });
});
