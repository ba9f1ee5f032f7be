import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { LoadReport, LoadSecond } from "../ipc/tools";
import { LoadChart, LoadSection, keptRuns } from "./LoadSection";

function report(p99: number, throughput: number, concurrency = 8, seconds = 10): LoadReport {
  return {
    settings: { concurrency, ramp_to: null, seconds, calls: null, rate: null },
    server: "demo",
    tool: "echo",
    started_at: 1,
    duration_ms: 2000,
    calls: 200,
    ok: 198,
    errors: { tool: 2, protocol: 0, timeout: 0, disconnect: 0 },
    errors_said: [{ kind: "tool", message: "quota exceeded", count: 2 }],
    throughput,
    latency: { p50: 1, p90: 2, p99, p999: p99, max: p99, mean: 1.2 },
    histogram: [
      { le: 1, count: 150 },
      { le: 4, count: 50 },
    ],
    seconds: [],
    steps: [],
    knee: null,
    client_cpu: 0.3,
    server_cpu: 0.5,
    warnings: ["the client used 95% of a core: it may be the limit, not the server"],
    stopped: null,
    mix: [],
  };
}

const row = (id: number, r: LoadReport) => ({ id, origin: "load", started_at: id * 1000, result: { structuredContent: r } });

describe("Load in the tool panel", () => {
  it("draws each second as it comes, then the result, its warning, and compares with a kept run", async () => {
    // The earlier run was asked for differently: 4 at once for 3 s.
    const earlier = report(2, 150, 4, 3);
    let kept = [row(1, earlier)];
    const seconds: LoadSecond[] = [
      { at: 1, concurrency: 8, calls: 100, errors: 0, p50: 1, p99: 3 },
      { at: 2, concurrency: 8, calls: 100, errors: 2, p50: 1, p99: 4 },
    ];
    const backend = {
      toolHistory: vi.fn(async () => kept),
      runLoad: vi.fn(async (_s: string, _t: string, _a: unknown, _o: unknown, onSecond: (s: LoadSecond) => void) => {
        seconds.forEach(onSecond);
        const r = report(4, 100);
        kept = [row(2, r), ...kept];
        return { report: r, history_id: 2 };
      }),
      stopLoad: vi.fn(),
    };
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <LoadSection backend={backend as never} server="demo" tool="echo" args={{ message: "hi" }} valid />
      </QueryClientProvider>,
    );
    // The kept runs are read first (as a person opens the panel).
    await waitFor(() => expect(client.getQueryState(["tool-history", "demo", "echo"])?.status).toBe("success"));
    fireEvent.click(screen.getByText("Load"));
    fireEvent.click(screen.getByRole("button", { name: "Start load" }));
    await waitFor(() => expect(backend.runLoad).toHaveBeenCalled());
    expect(backend.runLoad.mock.calls[0]?.slice(0, 4)).toEqual(["demo", "echo", { message: "hi" }, { concurrency: 8, durationMs: 10_000, rate: null }]);
    expect(await screen.findByRole("img", { name: /2 seconds: up to 100 calls a second, p99 up to 4.00 ms/ })).toBeTruthy();
    const result = await screen.findByLabelText("Load run result");
    expect(result.textContent).toContain("200 calls in 2.0 s");
    expect(result.textContent).toContain("errors: tool 2");
    // What the failed calls said, with how many said it.
    expect(screen.getByRole("list", { name: "What the failed calls said" }).textContent).toBe("2× tool quota exceeded");
    expect(result.textContent).toContain("may be the limit");
    expect(screen.getByRole("img", { name: /Latency histogram of 200 calls/ })).toBeTruthy();
    // Against the kept run before it: p99 doubled, throughput down a third.
    await waitFor(() => expect(backend.toolHistory.mock.calls.length).toBeGreaterThan(1));
    fireEvent.click(await screen.findByRole("combobox", { name: /Compare with/ }));
    fireEvent.click(await screen.findByRole("option", { name: /150 calls\/s/ }));
    await waitFor(() => expect(screen.getByRole("row", { name: /^p99 / }).textContent).toContain("+100%"));
    expect(screen.getByRole("row", { name: /^calls\/s/ }).textContent).toContain("-33%");
    // The settings beside the figures, and the difference said first.
    expect(screen.getByRole("row", { name: /^settings/ }).textContent).toContain("8 at once × 10 s4 at once × 3 sdiffer");
    expect(screen.getByRole("status").textContent).toBe("Not like for like: this run was 8 at once × 10 s, the compared one 4 at once × 3 s.");
  });

  it("says no call succeeded instead of a latency of none", async () => {
    const failed: LoadReport = {
      ...report(0, 500),
      ok: 0,
      errors: { tool: 0, protocol: 200, timeout: 0, disconnect: 0 },
      errors_said: [{ kind: "protocol", message: 'demo: tools/call failed: "message" must be a string (JSON-RPC error -32602)', count: 200 }],
      latency: { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0 },
      histogram: [],
    };
    const backend = {
      toolHistory: vi.fn(async () => []),
      runLoad: vi.fn(async () => ({ report: failed, history_id: 1 })),
      stopLoad: vi.fn(),
    };
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <LoadSection backend={backend as never} server="demo" tool="echo" args={{}} valid />
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByText("Load"));
    fireEvent.click(screen.getByRole("button", { name: "Start load" }));
    const result = await screen.findByLabelText("Load run result");
    expect(result.textContent).toContain("no call succeeded");
    expect(result.textContent).not.toContain("p50 0.00");
    // Nor in its figures: a latency of none is a dash.
    expect(screen.getByRole("row", { name: /^p99 / }).textContent).toBe("p99—");
    expect(screen.getByRole("list", { name: "What the failed calls said" }).textContent).toContain('200× protocol demo: tools/call failed: "message" must be a string');
  });

  it("reads only load rows with a report from the history", () => {
    const r = report(1, 1);
    expect(keptRuns([row(3, r), { id: 4, origin: "window", started_at: 0, result: { structuredContent: r } }] as never).map((k) => k.id)).toEqual([3]);
  });
});

describe("the load chart's time axis", () => {
  const second = (at: number): LoadSecond => ({ at, concurrency: 4, calls: 500, errors: 0, p50: 2, p99: 9 });
  it("spans the run as it was asked for while it runs, and the run's own length once done", () => {
    const { container, rerender } = render(<LoadChart seconds={[second(1), second(2)]} span={10} />);
    const axis = () => Array.from(container.querySelectorAll(".load-axis text")).map((t) => t.textContent);
    expect(axis()).toContain("10 s");
    rerender(<LoadChart seconds={[second(1), second(2)]} />);
    expect(axis()).toContain("2 s");
    expect(axis()).not.toContain("10 s");
  });

  it("draws no latency for a second whose calls all failed, and says so", () => {
    const failed = { ...second(2), errors: 500, p50: 0, p99: 0 };
    const { container } = render(<LoadChart seconds={[second(1), failed]} />);
    expect(container.querySelector("figcaption")?.textContent).toContain("2 s · 500 calls/s · no call succeeded · 500 errors");
    // The p50 line has the one second that answered.
    expect(container.querySelector(".load-p50")?.getAttribute("points")?.split(" ")).toHaveLength(1);
  });
});
