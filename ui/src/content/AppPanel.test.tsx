// The App panel as a person reads it: each host-context switch says what it
// switches, and each App message is one row that opens itself.
import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { AppPanel } from "./AppPanel";

const app = {
  id: "a1",
  url: "mcpapp://a1/",
  uri: "ui://demo/counter",
  meta: {},
  policy: { csp: "default-src 'none'", allow: "", refused: [] },
  prefersBorder: null,
  size: 100,
} as never;

const host = {
  initialized: true,
  violations: [],
  console: [],
  appLog: [],
  log: [
    { n: 1, at: 12, dir: "to-app", method: "ui/initialize", message: { jsonrpc: "2.0", id: 1, method: "ui/initialize" } },
    { n: 2, at: 40, dir: "from-app", method: "tools/call", message: { jsonrpc: "2.0", id: 2, method: "tools/call" }, tookMs: 5 },
  ],
} as never;

function mount() {
  render(
    <AppPanel readyMs={30} app={app} host={host} overrides={{}} onOverrides={() => undefined} mode="inline" onMode={() => undefined} onReload={() => undefined} />,
  );
  fireEvent.click(screen.getByRole("button", { name: /App panel/ }));
}

describe("the App panel", () => {
  it("labels each host-context switch with what it switches", () => {
    mount();
    fireEvent.click(screen.getByRole("radio", { name: "Host context" }));
    const rows = Array.from(document.querySelectorAll(".context-row"));
    expect(rows.map((r) => r.querySelector(".field-label")?.textContent)).toEqual(["Theme", "Width", "Display mode", "Locale"]);
    for (const [name, first] of [
      ["Theme the App sees", "The window's"],
      ["Width the App gets", "Wide"],
      ["Display mode", "Inline"],
      ["Locale the App sees", "The window's"],
    ]) {
      const group = screen.getByRole("radiogroup", { name });
      expect(within(group).getAllByRole("radio")[0]?.textContent).toBe(first);
    }
  });

  it("shows each message as one row with its direction, and no line under it", () => {
    mount();
    const log = screen.getByRole("list", { name: "The App's messages" });
    const rows = within(log).getAllByRole("listitem");
    expect(rows.map((r) => r.querySelector("summary")?.textContent)).toEqual(["0.012 s→ Appui/initialize", "0.040 sApp →tools/call5 ms"]);
    expect(within(log).queryByText(/^▸? ?message$/)).toBeNull();
  });
});
