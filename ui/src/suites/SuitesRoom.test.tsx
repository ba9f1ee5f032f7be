import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { SuitesBackend } from "./Evals";
import type { HistoryBackend, SuiteInfo, SuiteReport } from "../ipc/history";
import { SuitesRoom } from "./SuitesRoom";

function suite(cases: string[], trusted: boolean): SuiteInfo {
  return {
    path: "/clone/.mcp-workbench/suites/evil.json",
    name: "evil",
    scope: "project",
    server: "mine",
    cases: cases.map((name) => ({ name, server: null, tool: "wipe", surface: false })),
    prompts: [],
    models: [],
    broken: null,
    review: {
      path: "/clone/.mcp-workbench/suites/evil.json",
      fingerprint: `sha256:${cases.length}`,
      calls: ["mine/wipe"],
      env: ["AWS_SECRET_ACCESS_KEY"],
      models: [],
      eval_servers: [],
      made_from: null,
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
      <SuitesRoom backend={b as unknown as SuitesBackend} go={() => undefined} />
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

  it("takes a case's new result as its snapshot when the person says so", async () => {
    const b = backend(() => [suite(["one"], true)]);
    const calls: unknown[][] = [];
    const failed: SuiteReport = {
      ...report,
      passed: 0,
      failed: 1,
      suites: [
        {
          name: "evil",
          path: "/clone/.mcp-workbench/suites/evil.json",
          duration_ms: 1,
          cases: [
            {
              name: "one",
              server: "mine",
              tool: "wipe",
              outcome: "failed",
              failures: [{ assertion: "snapshot", message: "the result differs from the stored snapshot", diff: "- old\n+ new\n" }],
              note: null,
              duration_ms: 1,
              history_key: null,
              arguments: {},
            },
          ],
        },
      ],
    };
    (b as unknown as { runSuite: unknown }).runSuite = async (...args: unknown[]) => {
      calls.push(args);
      return args[2] ? report : failed;
    };
    mount(b);
    fireEvent.click(await screen.findByRole("button", { name: "Run case one" }));
    const take = await screen.findByRole("button", { name: "Take the new result as the snapshot" });
    expect(calls).toEqual([["/clone/.mcp-workbench/suites/evil.json", "one", false]]);
    fireEvent.click(take);
    await waitFor(() => expect(calls[1]).toEqual(["/clone/.mcp-workbench/suites/evil.json", "one", true]));
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

  it("runs a suite's prompt cases apart from Run all, draws the matrix, compares with an earlier run and opens a cell's failed runs", async () => {
    const evalSuite: SuiteInfo = {
      ...suite([], true),
      prompts: [{ name: "adds", prompt: "What is 2 + 3?", servers: ["mine"], runs: 2, pass_rate: 1 }],
      models: ["openai:good", "openai:bad"],
    };
    const run = (passed: boolean, session: string) => ({
      session,
      passed,
      failures: passed ? [] : [{ assertion: "calls[0]", message: "mine/add was not called (the model called mine/echo)", diff: null }],
      steps: 2,
      input_tokens: 10,
      output_tokens: 5,
      duration_ms: 1200,
      calls: [],
    });
    const cell = (model: string, runs: ReturnType<typeof run>[]) => {
      const rate = runs.filter((r) => r.passed).length / runs.length;
      return { model, case: "adds", outcome: rate >= 1 ? "passed" : "failed", note: null, runs, pass_rate: rate, required: 1, mean_steps: 2, mean_ms: 1200, input_tokens: 20, output_tokens: 10 };
    };
    const report = (id: number, bad: boolean[]) => ({
      suite: "evil",
      path: evalSuite.path,
      fingerprint: "sha256:0",
      started_at: 1_700_000_000_000 + id,
      duration_ms: 3000,
      models: evalSuite.models,
      cases: ["adds"],
      cells: [cell("openai:good", [run(true, `g${id}a`), run(true, `g${id}b`)]), cell("openai:bad", bad.map((p, i) => run(p, `b${id}${i}`)))],
      passed: 1,
      failed: 1,
      skipped: 0,
      not_ready: 0,
      id,
    });
    let kept = [report(1, [true, false])];
    const b = backend(() => [evalSuite]) as unknown as Record<string, unknown> & { ran: string[] };
    const asked: unknown[] = [];
    b.evalRuns = async () => kept;
    b.runEvals = async (path: string, models: string[], runs: number | null, onProgress: (p: unknown) => void) => {
      asked.push({ path, models, runs });
      onProgress({ kind: "started", total: 4 });
      onProgress({ kind: "run_done", model: "openai:bad", case: "adds", run: 1, passed: false, done: 1, total: 4 });
      kept = [report(2, [false, false]), ...kept];
      return kept[0];
    };
    b.openChat = async (id: string) => ({
      session: { id },
      options: {},
      running: false,
      pending: [],
      messages: [{ id: 1, seq: 1, role: "user", parts: [{ type: "text", text: `What is 2 + 3? (${id})` }], usage: null, created_at: 0 }],
    });
    mount(b as unknown as HistoryBackend);
    const matrix = await screen.findByRole("table", { name: "Evals of evil" });
    expect(matrix.textContent).toContain("openai:good");
    expect(screen.getByRole("button", { name: /^adds with openai:bad: 1\/2 runs passed, under 100%/ })).toBeTruthy();
    // Run all runs tool cases only; the evals are their own button.
    fireEvent.click(screen.getByRole("button", { name: "Run all" }));
    expect(asked).toEqual([]);
    fireEvent.click(screen.getByRole("button", { name: "Run evals" }));
    await waitFor(() => expect(asked).toEqual([{ path: evalSuite.path, models: [], runs: null }]));
    const worse = await screen.findByRole("button", { name: /^adds with openai:bad: 0\/2 runs passed, under 100%/ });
    // Against the earlier run: what moved.
    fireEvent.click(screen.getByRole("combobox", { name: "Compare with an earlier run" }));
    fireEvent.click(await screen.findByRole("option", { name: /1 passed, 1 failed/ }));
    await waitFor(() => expect(worse.textContent).toContain("▼ was 1/2"));
    expect(screen.getByRole("button", { name: /adds with openai:good/ }).textContent).toContain("was 2/2");
    // A cell opens its runs: the failed assertion and the run's transcript.
    fireEvent.click(worse);
    const dialog = await screen.findByRole("dialog", { name: "adds with openai:bad" });
    expect(dialog.textContent).toContain("calls[0]: mine/add was not called");
    expect(await screen.findByText("What is 2 + 3? (b20)")).toBeTruthy();
    fireEvent.click(screen.getByRole("tab", { name: "Run 2 ✗" }));
    expect(await screen.findByText("What is 2 + 3? (b21)")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Edit and send again" })).toBeNull();
  });
});
