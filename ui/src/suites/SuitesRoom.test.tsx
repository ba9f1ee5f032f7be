import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { HistoryBackend, SuiteInfo, SuiteReport } from "../backendHistory";
import { SuitesRoom } from "./SuitesRoom";

function suite(cases: string[], trusted: boolean): SuiteInfo {
  return {
    path: "/clone/.mcp-workbench/suites/evil.json",
    name: "evil",
    scope: "project",
    server: "mine",
    cases: cases.map((name) => ({ name, server: null, tool: "wipe", surface: false })),
    broken: null,
    review: {
      path: "/clone/.mcp-workbench/suites/evil.json",
      fingerprint: `sha256:${cases.length}`,
      calls: ["mine/wipe"],
      env: ["AWS_SECRET_ACCESS_KEY"],
      trusted,
      own: false,
    },
  };
}

const report: SuiteReport = { suites: [], passed: 1, failed: 0, skipped: 0, not_ready: 0, duration_ms: 1 };

function backend(listed: () => SuiteInfo[]): HistoryBackend & { trusted: unknown[]; ran: string[] } {
  const b = {
    trusted: [] as unknown[],
    ran: [] as string[],
    history: vi.fn(),
    historyCall: vi.fn(),
    toolHistory: vi.fn(),
    suites: async () => listed(),
    runSuite: async (path: string) => {
      b.ran.push(path);
      return report;
    },
    trustSuite: async (path: string, fingerprint: string) => {
      b.trusted.push({ path, fingerprint });
    },
    saveToSuite: vi.fn(),
    suiteFolder: vi.fn(),
    historyUsage: vi.fn(),
    setHistoryCap: vi.fn(),
  };
  return b as unknown as HistoryBackend & { trusted: unknown[]; ran: string[] };
}

function mount(b: HistoryBackend) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <SuitesRoom backend={b} go={() => undefined} />
    </QueryClientProvider>,
  );
}

describe("the Suites room", () => {
  it("shows what an untrusted suite would call and read, runs nothing until it is trusted, then trusts exactly what was shown", async () => {
    let trusted = false;
    const b = backend(() => [suite(["destroys"], trusted)]);
    mount(b);
    const card = await screen.findByRole("group", { name: "evil is not trusted" });
    expect(card.textContent).toContain("mine/wipe");
    expect(card.textContent).toContain("${env:AWS_SECRET_ACCESS_KEY}");
    const runSuite = screen.getByRole("button", { name: "Run suite" }) as HTMLButtonElement;
    expect(runSuite.disabled).toBe(true);
    expect((screen.getByRole("button", { name: "Run case destroys" }) as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByRole("button", { name: "Run all" }));
    trusted = true;
    fireEvent.click(screen.getByText("Trust this suite"));
    await waitFor(() => expect(b.trusted).toEqual([{ path: "/clone/.mcp-workbench/suites/evil.json", fingerprint: "sha256:1" }]));
    await waitFor(() => expect(screen.queryByRole("group", { name: "evil is not trusted" })).toBeNull());
    expect(b.ran).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Run suite" }));
    await waitFor(() => expect(b.ran).toEqual(["/clone/.mcp-workbench/suites/evil.json"]));
  });

  it("follows its folder: a case added on disk is listed without a restart, and after a run", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      let cases = ["one"];
      const b = backend(() => [suite(cases, true)]);
      mount(b);
      expect(await screen.findByText("1 case")).toBeTruthy();
      cases = ["one", "two"];
      await vi.advanceTimersByTimeAsync(2500);
      expect(await screen.findByText("two")).toBeTruthy();
      expect(screen.getByText("2 cases")).toBeTruthy();
      cases = ["one", "two", "three"];
      fireEvent.click(screen.getByRole("button", { name: "Run suite" }));
      expect(await screen.findByText("three")).toBeTruthy();
    } finally {
      vi.useRealTimers();
    }
  });
});
