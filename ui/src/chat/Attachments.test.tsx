// What went with a person's message: resources as chips (URI and server),
// images shown small from their bytes; nothing that is not an image is drawn.
import { describe, expect, it } from "vitest";
import { render, screen, within } from "@testing-library/react";
import { Attachments } from "./Conversation";

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("a message's attachments", () => {
  it("are listed: a resource by URI and server, an image drawn from its bytes", () => {
    const message = {
      id: 1,
      seq: 1,
      role: "user",
      usage: null,
      created_at: 0,
      parts: [
        { type: "text", text: "what is this?" },
        { type: "resource", server: "demo", uri: "demo://readme", mime_type: "text/markdown", text: "# readme" },
        { type: "image", mime_type: "image/png", data: PIXEL, name: "pixel.png" },
        { type: "image", mime_type: "text/html", data: "PHNjcmlwdD4=", name: "not an image" },
      ],
    };
    render(<Attachments message={message as never} />);
    const list = within(screen.getByRole("list", { name: "Attached" }));
    expect(list.getByText("demo://readme")).toBeTruthy();
    expect(list.getAllByRole("listitem")).toHaveLength(2);
    const img = list.getByRole("img", { name: "pixel.png" }) as HTMLImageElement;
    expect(img.src).toBe(`data:image/png;base64,${PIXEL}`);
  });
});
