import { describe, expect, it } from "vitest";
import { saidAbove } from "./ChatPane";

describe("a provider's error", () => {
  const notice = (text: string, error: boolean) => ({ parts: [{ type: "notice", text, error }] });
  it("is not said twice: the banner under a conversation that ends with it only offers Retry", () => {
    expect(saidAbove([{ parts: [{ type: "text", text: "hi" }] }, notice("could not reach …", true)], "could not reach …")).toBe(true);
    // Another error, a note that is not one, or an answer after it: the banner says it.
    expect(saidAbove([notice("could not reach …", true)], "rate limited")).toBe(false);
    expect(saidAbove([notice("Stopped.", false)], "Stopped.")).toBe(false);
    expect(saidAbove([notice("x", true), { parts: [{ type: "text", text: "later" }] }], "x")).toBe(false);
  });
});
