import { describe, expect, it } from "vitest";

// Every source file of the window as text (Vite reads them; tests excluded).
const files = import.meta.glob(["./**/*.ts", "./**/*.tsx", "!./**/*.test.ts", "!./**/*.test.tsx", "!./queries.ts", "!./bindings.ts"], {
  query: "?raw",
  import: "default",
  eager: true,
}) as Record<string, string>;

describe("query keys", () => {
  it("are named only through queries.ts (no literal key arrays in views)", () => {
    expect(Object.keys(files).length).toBeGreaterThan(50);
    const literal = /(queryKey:|setQueryData(<[^>]*>)?\(|getQueryData(<[^>]*>)?\()\s*\[/;
    const offenders = Object.entries(files)
      .filter(([, text]) => literal.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});

describe("the door to the Rust side", () => {
  it("is handed whole only to the frame; views and rooms name the areas they use", () => {
    const frame = ["./App.tsx", "./main.tsx", "./ipc/index.ts", "./shell/Shell.tsx", "./shell/rooms.tsx", "./shell/workbench.tsx", "./startup.ts"];
    const whole = /import type \{[^}]*\bBackend\b[^}]*\} from "(\.\.?\/)+ipc"/;
    // The frame does take it whole: the rule sees what it is meant to.
    expect(frame.filter((path) => whole.test(files[path] ?? ""))).not.toEqual([]);
    const offenders = Object.entries(files)
      .filter(([path, text]) => !frame.includes(path) && whole.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });

  it("is ipc/: nothing else calls the generated commands", () => {
    const calls = /import \{[^}]*\bcommands\b[^}]*\} from "(\.\.?\/)+bindings"/;
    expect(files["./ipc/tools.ts"]).toMatch(calls);
    const offenders = Object.entries(files)
      .filter(([path, text]) => !path.startsWith("./ipc/") && calls.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});
