import { afterEach } from "vitest";
import { cleanup, configure } from "@testing-library/react";
import { clearMocks } from "@tauri-apps/api/mocks";

// A find or waitFor gives up after 5 s, not Testing Library's 1 s: on two
// cores, with a worker a CPU beside the conformance suite, a room's first
// render took longer than 1 s once (the Registry room's list, CI208).
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
  clearMocks();
});

// jsdom has no layout: CodeMirror measures text ranges, which jsdom lacks.
if (typeof Range !== "undefined" && !("getClientRects" in Range.prototype)) {
  Object.assign(Range.prototype, {
    getClientRects: () => Object.assign([], { item: () => null }),
    getBoundingClientRect: () => ({ x: 0, y: 0, width: 0, height: 0, top: 0, left: 0, right: 0, bottom: 0, toJSON: () => ({}) }),
  });
}

// jsdom has no ResizeObserver (the resizable panes observe their size).
if (typeof globalThis.ResizeObserver === "undefined") {
  globalThis.ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
}

// jsdom has no pointer capture or scrolling into view (the design system's
// Select, a Radix listbox, uses both).
if (typeof Element !== "undefined") {
  const proto = Element.prototype as unknown as Record<string, unknown>;
  proto.scrollIntoView ??= () => {};
  proto.hasPointerCapture ??= () => false;
  proto.releasePointerCapture ??= () => {};
}
