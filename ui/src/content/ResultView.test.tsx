import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { PREVIEW_CHARS, ResultView } from "./ResultView";

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe("a tool result", () => {
  it("says what happened to the call on the way, and nothing when nothing did", () => {
    const said = "waited 1.4 s for demo to restart";
    const { rerender } = render(
      <ResultView durationMs={3} violations={[]} notes={[said]} result={{ content: [{ type: "text", text: "ok" }] }} />,
    );
    expect(screen.getByRole("list", { name: "On the way" }).textContent).toContain(said);
    rerender(<ResultView durationMs={3} violations={[]} result={{ content: [{ type: "text", text: "ok" }] }} />);
    expect(screen.queryByRole("list", { name: "On the way" })).toBeNull();
  });

  it("shows every content block the way it reads best", () => {
    const { container } = render(
      <ResultView
        durationMs={12.3}
        violations={[]}
        result={{
          content: [
            { type: "text", text: "plain words" },
            { type: "text", text: '{"a":1,"b":[true]}' },
            { type: "image", mimeType: "image/png", data: png },
            { type: "audio", mimeType: "audio/wav", data: "UklGRg==" },
            { type: "resource_link", uri: "file:///tmp/x.txt", name: "x.txt" },
            { type: "resource", resource: { uri: "mem://note", text: "embedded text" } },
            { type: "resource", resource: { uri: "mem://bin", blob: "AAAA" } },
            { type: "something-new", data: 1 },
          ],
          structuredContent: { sum: 3 },
        }}
      />,
    );
    expect(screen.getByText("Done in 12 ms")).toBeTruthy();
    expect(screen.getByText("plain words")).toBeTruthy();
    const pretty = JSON.stringify({ a: 1, b: [true] }, null, 2);
    expect(screen.getByText((_, el) => el?.tagName === "PRE" && el.textContent === pretty)).toBeTruthy();
    const img = container.querySelector("img");
    expect(img?.getAttribute("src")).toBe(`data:image/png;base64,${png}`);
    expect(container.querySelector("audio")?.getAttribute("src")).toBe("data:audio/wav;base64,UklGRg==");
    expect(screen.getByText("file:///tmp/x.txt")).toBeTruthy();
    expect(screen.getByText("embedded text")).toBeTruthy();
    // An embedded binary: its type and size, and a hex preview of its bytes.
    expect(screen.getByText("application/octet-stream, 3 bytes")).toBeTruthy();
    expect(container.querySelector(".binary-preview.hex")?.textContent?.trim()).toBe("000000  00 00 00");
    expect(screen.getByText(/"something-new"/)).toBeTruthy();
    expect(screen.getByText(/"sum": 3/)).toBeTruthy();
  });

  it("marks an error result and lists output schema violations", () => {
    render(
      <ResultView
        durationMs={1}
        violations={["/sum: \"three\" is not of type \"number\""]}
        result={{ isError: true, content: [{ type: "text", text: "boom" }] }}
      />,
    );
    expect(screen.getByText("The tool returned an error in 1 ms")).toBeTruthy();
    expect(screen.getByRole("alert").textContent).toContain("/sum:");
  });

  it("never renders server text as HTML, and refuses odd media types", () => {
    const { container } = render(
      <ResultView
        durationMs={null}
        violations={[]}
        result={{
          content: [
            { type: "text", text: "<img src=x onerror=alert(1)><script>alert(2)</script>" },
            { type: "image", mimeType: "text/html", data: "PGgxPg==" },
          ],
        }}
      />,
    );
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(screen.getByText("image with an unsupported type")).toBeTruthy();
  });

  it("shows a preview of a huge text and all of it on request", () => {
    const huge = "x".repeat(PREVIEW_CHARS * 50);
    const { container } = render(<ResultView durationMs={5} violations={[]} result={{ content: [{ type: "text", text: huge }] }} />);
    expect(container.querySelector("pre")?.textContent?.length).toBe(PREVIEW_CHARS);
    fireEvent.click(screen.getByText(/Show all/));
    expect(container.querySelector("pre")?.textContent?.length).toBe(huge.length);
  });

  it("renders Markdown without running or fetching anything, and can show the text", async () => {
    const md = "# Title\n\nSome **bold** text and a [link](javascript:alert(1)).\n\n<script>alert(1)</script><img src=x onerror=alert(2)>\n\n![pic](http://example.com/x.png)";
    const { container } = render(<ResultView durationMs={1} violations={[]} result={{ content: [{ type: "text", text: md }] }} />);
    // The parser loads on first use; until then the text shows as it is.
    await waitFor(() => expect(container.querySelector("h1")?.textContent).toBe("Title"));
    expect(container.querySelector("strong")?.textContent).toBe("bold");
    expect(container.querySelector("a")).toBeNull();
    expect(container.querySelector("script")).toBeNull();
    expect(container.querySelector("img")).toBeNull();
    fireEvent.click(screen.getByText("Show as text"));
    expect(container.querySelector("pre")?.textContent).toBe(md);
  });

  it("shows what the server says about a block, the schema check, and cuts long values", () => {
    const blob = "QUJD".repeat(200);
    render(
      <ResultView
        durationMs={1}
        violations={[]}
        checked
        result={{
          content: [{ type: "text", text: "for you", annotations: { audience: ["user"], priority: 0.9, lastModified: "2026-01-02T03:04:05Z" } }],
          structuredContent: { image: blob, n: 1 },
        }}
      />,
    );
    expect(screen.getByText("for user · priority 0.9 · modified 2026-01-02T03:04:05Z")).toBeTruthy();
    expect(screen.getByText("Matches the tool's output schema")).toBeTruthy();
    const json = () => document.querySelector(".result pre.json")?.textContent ?? "";
    expect(json()).toContain("(720 more characters)");
    expect(json()).not.toContain(blob);
    fireEvent.click(screen.getByText("Show 1 long value whole"));
    expect(json()).toContain(blob);
  });
});
