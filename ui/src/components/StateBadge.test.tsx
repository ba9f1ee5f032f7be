import { afterEach, describe, expect, it, vi } from "vitest";
import { act, render, screen } from "@testing-library/react";
import type { ServerStatus_Serialize as ServerStatus } from "../bindings";
import { StateBadge, StateDetail } from "./StateBadge";

describe("a server's state line", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("counts down to a restarting server's next try", () => {
    vi.useFakeTimers();
    const restarting: ServerStatus = {
      name: "s",
      state: "restarting",
      code: "exited",
      attempt: 3,
      reason: "exited with status 1",
      stderr: [],
      next_try_in_ms: 4000,
      info: null,
    };
    render(<StateDetail status={restarting} />);
    expect(screen.getByText("exited with status 1 · next try in 4 s")).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(2000);
    });
    expect(screen.getByText("exited with status 1 · next try in 2 s")).toBeTruthy();
    act(() => {
      vi.advanceTimersByTime(5000);
    });
    expect(screen.getByText("exited with status 1 · next try in 0 s")).toBeTruthy();
  });

  it("a ready server shows who it is and what it offers", () => {
    const ready: ServerStatus = {
      name: "s",
      state: "ready",
      info: { protocol_version: "2026-07-28", name: "demo", title: null, version: "1.0", instructions: null, capabilities: {}, transport: "stdio" },
    };
    render(<StateDetail status={ready} counts={{ tools: 1, resources: 0, prompts: 3 }} />);
    expect(screen.getByText("demo 1.0 · protocol 2026-07-28")).toBeTruthy();
    expect(document.querySelector(".server-counts")?.textContent).toBe("1 tool · 0 resources · 3 prompts");
  });

  it("a server that wants a sign-in reads so, not as a failure", () => {
    const wants: ServerStatus = { name: "s", state: "failed", code: "sign_in", reason: "the server refused initialize with HTTP 401", stderr: [], info: null };
    render(
      <>
        <StateBadge status={wants} disabled={false} />
        <StateDetail status={wants} />
      </>,
    );
    expect(screen.getByText("needs sign-in")).toBeTruthy();
    expect(screen.getByText("open it to sign in")).toBeTruthy();
    expect(screen.queryByText("failed")).toBeNull();
  });

  it("on the server's own page, says what to do there rather than to open it", () => {
    const waiting: ServerStatus = { name: "s", state: "untrusted", info: null };
    const { unmount } = render(<StateDetail status={waiting} />);
    expect(screen.getByText("waiting for your trust: open it to see what it runs")).toBeTruthy();
    unmount();
    render(<StateDetail status={waiting} onItsPage />);
    expect(screen.getByText("waiting for your trust: read what it runs below")).toBeTruthy();
  });
});
