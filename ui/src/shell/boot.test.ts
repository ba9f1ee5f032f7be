// The frame index.html paints before the page's script is read and run:
// the same brand and room bar as the shell's first render, in the theme the
// page then keeps, and nothing a test or the keyboard could act on before
// React's own frame replaces it.
import { afterEach, describe, expect, it } from "vitest";
import indexHtml from "../../index.html?raw";
import bootJs from "../../public/boot.js?raw";
import { ROOMS } from "./rooms";
import { resolvedTheme } from "../design/theme";

const frame = new DOMParser().parseFromString(indexHtml, "text/html");

describe("the window's first frame (index.html)", () => {
  it("names the app and the room bar's rooms in the shell's order", () => {
    expect(frame.querySelector("#root .brand h1")?.textContent).toBe("MCP Workbench");
    const tabs = [...frame.querySelectorAll("#root .room-bar .room-label")].map((t) => t.textContent);
    expect(tabs).toEqual(ROOMS.filter((r) => r.nav).map((r) => r.label));
    expect(frame.querySelector("#root .sidebar-title")?.textContent).toBe("Servers");
  });

  it("has nothing to click, focus or find as a room before React's frame", () => {
    const root = frame.querySelector("#root");
    expect(root?.querySelector("button, a, input, [tabindex], [role=tab], [data-room]")).toBeNull();
    expect(root?.querySelector("[aria-busy=true]")).not.toBeNull();
  });
});

describe("the first frame's theme (public/boot.js)", () => {
  const realMatchMedia = window.matchMedia;
  afterEach(() => {
    localStorage.clear();
    window.matchMedia = realMatchMedia;
    delete document.documentElement.dataset.theme;
  });

  it("is the one the page resolves, for every choice and system setting", () => {
    for (const saved of [null, "light", "dark", "system", "purple"]) {
      for (const systemDark of [false, true]) {
        localStorage.clear();
        if (saved) localStorage.setItem("mcpwb.theme", saved);
        window.matchMedia = ((query: string) => ({ matches: systemDark && query.includes("dark"), media: query })) as unknown as typeof window.matchMedia;
        delete document.documentElement.dataset.theme;
        // The file as the page runs it (a classic script, read before the bundle).
        // eslint-disable-next-line no-new-func
        new Function(bootJs)();
        expect(document.documentElement.dataset.theme, `saved ${saved}, system dark ${systemDark}`).toBe(resolvedTheme());
      }
    }
  });
});
