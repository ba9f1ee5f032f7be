import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { TaskBadge, definitionText } from "./definition";

const future = {
  name: "echo",
  inputSchema: { type: "object" },
  execution: { taskSupport: "required" },
  "x-vendor": { rating: 5, tags: ["future"] },
};

describe("a tool's definition", () => {
  it("says when a tool runs only as a task", () => {
    render(<TaskBadge tool={future} />);
    expect(screen.getByText("runs as a task")).toBeTruthy();
  });

  it("says nothing about tasks when the server does not", () => {
    const { container } = render(<TaskBadge tool={{ name: "plain" }} />);
    expect(container.textContent).toBe("");
  });

  it("shows every field as sent, also those the window does not know", () => {
    const text = definitionText(future);
    expect(JSON.parse(text)).toEqual(future);
    expect(text).toContain('"x-vendor"');
  });
});
