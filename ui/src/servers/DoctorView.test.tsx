import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { mockIPC } from "@tauri-apps/api/mocks";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { tauriBackend } from "../ipc";
import type { Finding } from "../ipc/doctor";
import { DoctorSection, SurfaceChangeSection, groups } from "./DoctorView";
import { openDoctor } from "../shell/doctorLink";

const finding = (code: string, severity: Finding["severity"], item: string, seen: string): Finding => ({
  code,
  severity,
  item,
  pointer: "/inputSchema",
  seen,
  why: `why ${code}`,
  fix: `fix ${code}`,
});

describe("the doctor in a server's panel", () => {
  it("groups findings by code, worst first", () => {
    const g = groups([
      finding("text.no-title", "info", "tool a", "no title"),
      finding("name.invalid", "error", "tool a b", "a space"),
      finding("name.invalid", "error", "tool c d", "a space"),
      finding("schema.dialect", "warning", "tool e", "draft-07"),
    ]);
    expect(g.map((x) => [x.severity, x.code, x.items.length])).toEqual([
      ["error", "name.invalid", 2],
      ["warning", "schema.dialect", 1],
      ["info", "text.no-title", 1],
    ]);
  });

  it("runs with the options chosen and shows each finding with why and how to fix, server text as text", async () => {
    let asked: unknown = null;
    mockIPC((cmd, args) => {
      if (cmd === "run_doctor") {
        asked = args;
        return {
          server: "demo",
          findings: [
            finding("name.invalid", "error", "tool has space", '<img src=x onerror="alert(1)">'),
            finding("text.no-title", "info", "tool echo", "no title"),
          ],
          ready_ms: 12,
          eras: [{ era: "2025-11-25", ready: true, answer: "2025-11-25", ms: 30 }],
          clients: [
            { client: "TypeScript SDK", how: "server/discover; falls back on -32601", speaks: "2025-11-25", why: "fell back" },
            { client: "Python SDK", how: "server/discover; falls back on -32602", speaks: null, why: "got error -32601, which is not what it falls back on" },
          ],
          tokens: { total: 1234, tools: [["create_order", 461]], tokenizer: "o200k" },
          probed: [],
          took_ms: 40,
        };
      }
      if (cmd === "last_doctor_run") return null;
      throw new Error(`unexpected ${cmd}`);
    });
    const { container } = render(
      <QueryClientProvider client={new QueryClient()}>
        <DoctorSection backend={tauriBackend} name="demo" ready />
      </QueryClientProvider>,
    );
    fireEvent.click(screen.getByText("Doctor"));
    fireEvent.click(screen.getByRole("switch", { name: /Try both protocol eras/ }));
    fireEvent.click(screen.getByRole("button", { name: "Run doctor" }));
    await waitFor(() => expect(screen.getByRole("list", { name: "Findings" })).toBeTruthy());
    expect(asked).toEqual({ server: "demo", probe: false, eras: true });
    const found = within(screen.getByRole("list", { name: "Findings" }));
    expect(found.getByText("name.invalid")).toBeTruthy();
    expect(found.getByText("why name.invalid")).toBeTruthy();
    expect(found.getByText('<img src=x onerror="alert(1)">')).toBeTruthy();
    expect(container.querySelector("img")).toBeNull();
    expect(screen.getByRole("status").textContent).toContain("1,234 tokens (o200k)");
    // How each client finds its era: one gets through, one fails and why.
    const clients = within(screen.getByRole("table", { name: "How clients find its era" }));
    expect(clients.getByRole("rowheader", { name: "Python SDK" }).closest("tr")?.textContent).toContain("fails");
    expect(clients.getByText("speaks 2025-11-25")).toBeTruthy();
    // Notes are folded away, counted.
    expect(screen.queryByRole("list", { name: "Notes" })).toBeNull();
  });

  it("says what changed when the server came back, breaking changes marked", () => {
    render(
      <SurfaceChangeSection
        change={{
          server: "demo",
          at_ms: Date.now(),
          changes: [
            { impact: "breaking", code: "tool.removed", item: "tool echo", pointer: "", message: "tool echo was removed" },
            { impact: "compatible", code: "tool.added", item: "tool bye", pointer: "", message: "tool bye was added" },
          ],
          new_findings: [finding("text.no-description", "warning", "tool bye", "no description")],
          added_tools: ["bye"],
          changed_tools: [],
          unchanged_at_ms: null,
        }}
      />,
    );
    expect(screen.getByText("1 breaking")).toBeTruthy();
    expect(screen.getByText("Changed since it last started")).toBeTruthy();
    const list = within(screen.getByRole("list", { name: "Surface changes" }));
    expect(list.getByText("tool echo was removed")).toBeTruthy();
    expect(screen.getByText("text.no-description")).toBeTruthy();
  });

  it("says a later reload changed nothing and marks the shown change as earlier", () => {
    render(
      <SurfaceChangeSection
        change={{
          server: "demo",
          at_ms: Date.now() - 60_000,
          changes: [{ impact: "compatible", code: "tool.added", item: "tool bye", pointer: "", message: "tool bye was added" }],
          new_findings: [],
          added_tools: ["bye"],
          changed_tools: [],
          unchanged_at_ms: Date.now(),
        }}
      />,
    );
    expect(screen.getByText("Changed in an earlier reload")).toBeTruthy();
    expect(screen.getByRole("status").textContent).toContain("No changes in the last reload");
  });

  it("opens from the sidebar's badge on the last run's findings", async () => {
    mockIPC((cmd) => {
      if (cmd === "last_doctor_run")
        return {
          server: "fs",
          findings: [finding("schema.draft-07", "warning", "tool read", "$schema draft-07")],
          ready_ms: 5,
          eras: [],
          tokens: { total: 10, tools: [], tokenizer: "o200k" },
          probed: [],
          took_ms: 3,
        };
      throw new Error(`unexpected ${cmd}`);
    });
    openDoctor("fs");
    render(
      <QueryClientProvider client={new QueryClient()}>
        <DoctorSection backend={tauriBackend} name="fs" ready />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByRole("list", { name: "Findings" })).toBeTruthy());
    expect(screen.getByText("schema.draft-07")).toBeTruthy();
  });
});
