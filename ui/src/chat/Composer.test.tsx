// The composer says what the turn waits for: the person, when a call asks
// to be allowed (was: "The model is working…" while it waited for them).
import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { Composer } from "./Composer";

describe("the composer while a turn runs", () => {
  it("says the turn waits for the person when calls ask to be allowed", () => {
    const { rerender } = render(<Composer running waiting={0} onSend={() => {}} onStop={() => {}} />);
    expect(screen.getByLabelText("Message").getAttribute("placeholder")).toMatch(/^The model is working/);
    rerender(<Composer running waiting={2} onSend={() => {}} onStop={() => {}} />);
    expect(screen.getByLabelText("Message").getAttribute("placeholder")).toMatch(/^Waiting for you to allow or deny 2 calls above/);
  });
});
