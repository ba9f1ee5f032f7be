// The composer says what the turn waits for: the person, when a call asks
// to be allowed (was: "The model is working…" while it waited for them).
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { Composer } from "./Composer";

describe("the composer while a turn runs", () => {
  it("says the turn waits for the person when calls ask to be allowed", () => {
    const { rerender } = render(<Composer running waiting={0} onSend={() => {}} onStop={() => {}} />);
    expect(screen.getByLabelText("Message").getAttribute("placeholder")).toMatch(/^The model is working/);
    rerender(<Composer running waiting={2} onSend={() => {}} onStop={() => {}} />);
    expect(screen.getByLabelText("Message").getAttribute("placeholder")).toMatch(/^Waiting for you to allow or deny 2 calls above/);
  });
});

describe("what goes with a message", () => {
  it("marks an image as not sent when the chat's model takes none, before anything is sent", async () => {
    const sent: unknown[] = [];
    const { rerender } = render(<Composer running={false} onSend={(...a) => sent.push(a)} onStop={() => {}} noImages="llama3.1:8b takes no images: this one will not be sent" />);
    const png = new File([new Uint8Array([137, 80, 78, 71])], "shot.png", { type: "image/png" });
    fireEvent.drop(screen.getByLabelText("Message"), { dataTransfer: { files: [png] } });
    const chip = await screen.findByText("shot.png");
    const item = chip.closest("li");
    expect(item?.textContent).toContain("llama3.1:8b takes no images: this one will not be sent");
    expect(sent).toEqual([]);
    // A model that takes images: the same chip, no warning.
    rerender(<Composer running={false} onSend={(...a) => sent.push(a)} onStop={() => {}} />);
    expect(screen.getByText("shot.png").closest("li")?.textContent).not.toContain("takes no images");
  });

  it("sends a message begun from a prompt with the prompt's name, for the chat's title", async () => {
    const sent: unknown[][] = [];
    const backend = {
      promptDraft: () => Promise.resolve({ text: "User: Review this rust code.\n\nAssistant: I will.", attachments: [], notes: [], title: "review_code" }),
      attachResource: () => Promise.resolve([]),
      complete: () => Promise.resolve({ values: [], total: null, has_more: false }),
    };
    render(
      <Composer
        running={false}
        onSend={(...a) => sent.push(a)}
        onStop={() => {}}
        sources={{ backend: backend as never, resources: [], prompts: [{ server: "demo", prompt: { name: "review_code" } } as never] }}
      />,
    );
    fireEvent.click(screen.getByRole("button", { name: "Use a prompt (/)" }));
    fireEvent.click(await screen.findByRole("button", { name: /review_code/ }));
    await waitFor(() => expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toMatch(/^User: Review/));
    fireEvent.click(screen.getByRole("button", { name: "Send" }));
    expect(sent).toEqual([["User: Review this rust code.\n\nAssistant: I will.", [], "review_code"]]);
  });
});
