// An App far out of view: unloaded only where it may be (a chat's many
// Apps), never one the person clicked into, never the tool panel's.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ToastProvider } from "../design";
import { AppFrame } from "./AppFrame";

type Seen = (entries: { isIntersecting: boolean }[]) => void;
let observers: Seen[] = [];

beforeEach(() => {
  observers = [];
  vi.stubGlobal(
    "IntersectionObserver",
    class {
      constructor(cb: Seen) {
        observers.push(cb);
      }
      observe() {}
      disconnect() {}
    },
  );
  vi.useFakeTimers({ shouldAdvanceTime: true });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

// The App never opens here (its resource never comes): what is checked is
// whether the frame is given up out of view.
const backend = new Proxy({}, { get: () => () => new Promise(() => undefined) }) as never;
const tool = { name: "counter_app", _meta: { ui: { resourceUri: "ui://demo/counter" } } };

function mount(park: boolean, on = backend) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ToastProvider>
        <AppFrame backend={on} server="demo" tool={tool} args={{}} result={{ content: [] }} park={park} />
      </ToastProvider>
    </QueryClientProvider>,
  );
}

async function outOfView() {
  await act(async () => {
    observers.forEach((seen) => seen([{ isIntersecting: false }]));
    await vi.advanceTimersByTimeAsync(1500);
  });
}

describe("an App out of view", () => {
  it("is unloaded in a chat", async () => {
    mount(true);
    await outOfView();
    expect(screen.getByText(/unloaded while out of view/)).toBeTruthy();
  });

  it("stays in the tool panel", async () => {
    mount(false);
    await outOfView();
    expect(screen.queryByText(/unloaded while out of view/)).toBeNull();
  });

  it("is never unloaded in a chat once the person clicked into it", async () => {
    // This time the App opens (its frame is drawn); the rest never answers.
    const opens = new Proxy(
      {
        openApp: () =>
          Promise.resolve({ id: "a1", url: "about:blank", uri: "ui://demo/counter", meta: {}, policy: { csp: "", allow: "", refused: [] }, prefersBorder: null, size: 1 }),
      } as Record<string, unknown>,
      { get: (t, k: string) => t[k] ?? (() => new Promise(() => undefined)) },
    ) as never;
    mount(true, opens);
    const frame = await screen.findByTitle("App: ui://demo/counter");
    // A click into the frame: the focus goes to it, the window blurs.
    act(() => {
      frame.focus();
      window.dispatchEvent(new Event("blur"));
    });
    expect(document.activeElement).toBe(frame);
    await outOfView();
    expect(screen.queryByText(/unloaded while out of view/)).toBeNull();
    expect(screen.getByTitle("App: ui://demo/counter")).toBe(frame);
  });

  it("is never unloaded once the person used it, even where the webview does not blur", async () => {
    const opens = new Proxy(
      {
        openApp: () =>
          Promise.resolve({ id: "a2", url: "about:blank", uri: "ui://demo/counter", meta: {}, policy: { csp: "", allow: "", refused: [] }, prefersBorder: null, size: 1 }),
      } as Record<string, unknown>,
      { get: (t, k: string) => t[k] ?? (() => new Promise(() => undefined)) },
    ) as never;
    mount(true, opens);
    const frame = await screen.findByTitle("App: ui://demo/counter");
    // A slider dragged inside: the frame has the focus, no blur is heard.
    act(() => frame.focus());
    await act(async () => {
      await vi.advanceTimersByTimeAsync(600);
    });
    await outOfView();
    expect(screen.queryByText(/unloaded while out of view/)).toBeNull();
    expect(screen.getByTitle("App: ui://demo/counter")).toBe(frame);
  });

  it("is never unloaded once the person used it inside, whatever held the focus", async () => {
    const opens = new Proxy(
      {
        openApp: () =>
          Promise.resolve({ id: "a3", url: "about:blank", uri: "ui://demo/counter", meta: {}, policy: { csp: "", allow: "", refused: [] }, prefersBorder: null, size: 1 }),
      } as Record<string, unknown>,
      { get: (t, k: string) => t[k] ?? (() => new Promise(() => undefined)) },
    ) as never;
    mount(true, opens);
    const frame = (await screen.findByTitle("App: ui://demo/counter")) as HTMLIFrameElement;
    // The probe in the App's frame says a key moved a slider; the window's
    // focus never left the composer.
    await act(async () => {
      window.dispatchEvent(new MessageEvent("message", { data: { jsonrpc: "2.0", method: "x-mcpwb/used", params: {} }, source: frame.contentWindow }));
      await vi.advanceTimersByTimeAsync(10);
    });
    expect(document.activeElement).not.toBe(frame);
    await outOfView();
    expect(screen.queryByText(/unloaded while out of view/)).toBeNull();
    expect(screen.getByTitle("App: ui://demo/counter")).toBe(frame);
  });

  it("is unloaded when only another App's frame says it was used", async () => {
    const opens = new Proxy(
      {
        openApp: () =>
          Promise.resolve({ id: "a4", url: "about:blank", uri: "ui://demo/counter", meta: {}, policy: { csp: "", allow: "", refused: [] }, prefersBorder: null, size: 1 }),
      } as Record<string, unknown>,
      { get: (t, k: string) => t[k] ?? (() => new Promise(() => undefined)) },
    ) as never;
    mount(true, opens);
    await screen.findByTitle("App: ui://demo/counter");
    await act(async () => {
      window.dispatchEvent(new MessageEvent("message", { data: { jsonrpc: "2.0", method: "x-mcpwb/used", params: {} }, source: window }));
      await vi.advanceTimersByTimeAsync(10);
    });
    await outOfView();
    expect(screen.getByText(/unloaded while out of view/)).toBeTruthy();
  });
});
