import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import type { Backend, TrafficEntry, TrafficQuery } from "../ipc";
import { TrafficView } from "./TrafficView";
import { pick } from "../test/select";

function entry(seq: number): TrafficEntry {
  const stderr = seq % 10 === 0;
  return {
    seq,
    time_ms: 0,
    server: seq % 2 ? "a" : "b",
    direction: stderr ? "stderr" : "outgoing",
    kind: stderr ? "log" : "request",
    method: stderr ? null : `tools/call`,
    id: stderr ? null : String(seq),
    size: 10,
    latency_ms: null,
    body: stderr ? `line ${seq}` : `{"id":${seq},"method":"tools/call","params":{"name":"tool_${seq}"}}`,
    truncated: false,
  };
}

/** A log of `n` entries in the "core", answering pages as the Rust side does. */
function fakeLog(n: number) {
  const log = Array.from({ length: n }, (_, i) => entry(i + 1));
  const queries: TrafficQuery[] = [];
  const backend = {
    trafficPage: (q: TrafficQuery) => {
      queries.push(q);
      const needle = q.text?.toLowerCase();
      const all = log.filter(
        (e) => (!q.server || e.server === q.server) && (!q.direction || e.direction === q.direction) && (!needle || e.body.toLowerCase().includes(needle)),
      );
      const offset = Math.min(q.offset ?? 0, all.length);
      return Promise.resolve({ total: all.length, offset, entries: all.slice(offset, offset + q.limit), last_seq: n });
    },
  } as unknown as Backend;
  return { backend, queries };
}

// jsdom lays nothing out: give the list a screen's worth of height.
Object.defineProperty(HTMLElement.prototype, "clientHeight", { configurable: true, get: () => 600 });
Object.defineProperty(HTMLElement.prototype, "clientWidth", { configurable: true, get: () => 900 });
// …and scrolling that moves it.
Object.defineProperty(HTMLElement.prototype, "scrollHeight", { configurable: true, get: () => 26 * 1_001 });
const scrolled = new WeakMap<HTMLElement, number>();
Object.defineProperty(HTMLElement.prototype, "scrollTop", {
  configurable: true,
  get(this: HTMLElement) {
    return scrolled.get(this) ?? 0;
  },
  set(this: HTMLElement, top: number) {
    scrolled.set(this, top);
  },
});
HTMLElement.prototype.scrollTo = function (this: HTMLElement, options?: ScrollToOptions | number) {
  if (typeof options === "object" && options.top !== undefined) this.scrollTop = options.top;
} as typeof HTMLElement.prototype.scrollTo;

describe("the traffic view", () => {
  it("asks the core for the rows around the screen, not the whole log", async () => {
    const { backend, queries } = fakeLog(100_000);
    render(<TrafficView backend={backend} version={100_000} servers={["a", "b"]} logSize={100_000} />);
    expect(await screen.findByText("100,000 of 100,000")).toBeTruthy();
    await waitFor(() => expect(document.querySelectorAll(".traffic-row:not(.pending)").length).toBeGreaterThan(0));
    expect(document.querySelectorAll(".traffic-row").length).toBeLessThan(200);
    expect(Math.max(...queries.map((q) => q.limit))).toBeLessThan(1_000);
  });

  it("filters in the core and shows a message's JSON when clicked", async () => {
    const { backend, queries } = fakeLog(500);
    render(<TrafficView backend={backend} version={500} servers={["a", "b"]} logSize={500} />);
    fireEvent.change(screen.getByLabelText("Filter traffic"), { target: { value: "TOOL_77" } });
    expect(await screen.findByText("1 of 500")).toBeTruthy();
    expect(queries.at(-1)?.text).toBe("TOOL_77");
    const row = await waitFor(() => {
      const r = document.querySelector(".traffic-scroller .traffic-row:not(.pending)");
      if (!r) throw new Error("no row yet");
      return r;
    });
    fireEvent.click(row);
    const detail = screen.getByLabelText("Message");
    expect(detail.textContent).toContain('"name": "tool_77"');
    pick(screen.getByLabelText("Direction"), "stderr");
    fireEvent.change(screen.getByLabelText("Filter traffic"), { target: { value: "" } });
    expect(await screen.findByText("50 of 500")).toBeTruthy();
    expect(queries.at(-1)?.direction).toBe("stderr");
  });

  it("follows the newest entries when asked, as the log grows", async () => {
    const { backend } = fakeLog(1_000);
    const { rerender } = render(<TrafficView backend={backend} version={1_000} servers={[]} logSize={1_000} />);
    expect(await screen.findByText("1,000 of 1,000")).toBeTruthy();
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Time", "Server", "Direction", "Method", "Id", "Size", "Latency"]);
    const scroller = document.querySelector(".traffic-scroller") as HTMLElement;
    expect(scroller.scrollTop).toBe(0);
    const follow = screen.getByText("Follow newest");
    fireEvent.click(follow);
    expect(follow.getAttribute("aria-pressed")).toBe("true");
    await waitFor(() => expect(scroller.scrollTop).toBeGreaterThan(20_000));
    rerender(<TrafficView backend={backend} version={1_001} servers={[]} logSize={1_001} />);
    expect(follow.getAttribute("aria-pressed")).toBe("true");
  });

  it("links a request and its response, with the latency", async () => {
    const request = { ...entry(1), server: "a", id: "7", time_ms: 1_700_000_000_123 };
    const response = { ...entry(2), server: "a", id: "7", direction: "incoming" as const, kind: "response" as const, method: null, latency_ms: 12.5, body: '{"id":7,"result":{}}' };
    const backend = {
      trafficPage: (q: TrafficQuery) => {
        const all = [request, response].filter((e) => !q.id || e.id === q.id);
        return Promise.resolve({ total: all.length, offset: 0, entries: all, last_seq: 2 });
      },
    } as unknown as Backend;
    render(<TrafficView backend={backend} version={2} servers={["a"]} logSize={2} />);
    const rows = await waitFor(() => {
      const r = document.querySelectorAll(".traffic-scroller .traffic-row:not(.pending)");
      if (r.length < 2) throw new Error("rows not yet");
      return r;
    });
    fireEvent.click(rows[0] as Element);
    const link = await screen.findByText(/Its response/);
    expect(link.textContent).toContain("12.5 ms");
    expect(rows[1]?.classList.contains("paired")).toBe(true);
    fireEvent.click(link);
    expect(screen.getByLabelText("Message").textContent).toContain('"result"');
    expect(await screen.findByText(/Its request/)).toBeTruthy();
  });

  it("says what to do when there is nothing to show", async () => {
    render(<TrafficView backend={fakeLog(0).backend} version={0} servers={[]} logSize={0} />);
    expect(await screen.findByText("No messages yet")).toBeTruthy();
  });
});
