import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { tauriBackend } from "../ipc";
import { AuthPanel, pretty } from "./AuthPanel";

const signedOut = { signed_in: false, issuer: null, scope: null, expires_in: null, refreshable: false, dpop_key: null, refusal: null };

describe("signing in to a remote server", () => {
  it("shows each step of a failed sign-in with the MUST it broke, then the signed-in state", async () => {
    const calls: string[] = [];
    let attempt = 0;
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "auth_status") return signedOut;
      if (cmd === "auth_sign_in") {
        attempt += 1;
        if (attempt === 1)
          return {
            status: signedOut,
            error: "metadata: the authorization server does not list S256",
            timeline: {
              steps: [
                { name: "discovery", request: "POST https://mcp.example/mcp (no token)", status: 401, response: "www-authenticate: Bearer", ms: 12.5, problems: [] },
                {
                  name: "metadata",
                  request: "GET https://auth.example/.well-known/oauth-authorization-server",
                  status: 200,
                  response: "{}",
                  ms: 3.2,
                  problems: ["the authorization server does not list S256 in code_challenge_methods_supported"],
                },
              ],
            },
          };
        return {
          status: { signed_in: true, issuer: "https://auth.example", scope: "files", expires_in: 3500, refreshable: true },
          error: null,
          timeline: { steps: [] },
        };
      }
      throw new Error(`unexpected ${cmd}`);
    }, { shouldMockEvents: true });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <AuthPanel backend={tauriBackend} name="remote" />
      </QueryClientProvider>,
    );
    expect(await screen.findByText("signed out")).toBeTruthy();
    fireEvent.click(screen.getByText("Sign in"));
    expect(await screen.findByText(/MUST: the authorization server does not list S256/)).toBeTruthy();
    expect(screen.getByText("metadata: the authorization server does not list S256")).toBeTruthy();
    expect(screen.getByText("POST https://mcp.example/mcp (no token)")).toBeTruthy();
    fireEvent.click(screen.getByText("Sign in"));
    expect(await screen.findByText("signed in")).toBeTruthy();
    expect(screen.getByText(/expires in 58 min/)).toBeTruthy();
    expect(screen.getByText("Refresh now")).toBeTruthy();
    expect(calls.filter((c) => c === "auth_sign_in")).toHaveLength(2);
  });

  it("can be cancelled while it waits on the browser", async () => {
    let release: (v: unknown) => void = () => {};
    const calls: string[] = [];
    mockIPC((cmd) => {
      calls.push(cmd);
      if (cmd === "auth_status") return signedOut;
      if (cmd === "auth_sign_in") return new Promise((r) => (release = r));
      if (cmd === "auth_cancel") {
        release({ status: signedOut, error: "cancelled: the sign-in was stopped before the browser came back", timeline: { steps: [] } });
        return null;
      }
      throw new Error(`unexpected ${cmd}`);
    }, { shouldMockEvents: true });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <AuthPanel backend={tauriBackend} name="remote" />
      </QueryClientProvider>,
    );
    fireEvent.click(await screen.findByText("Sign in"));
    expect(await screen.findByText("Signing in…")).toBeTruthy();
    // The browser did not open: the address is shown to copy, and it waits on.
    await emit("auth-browser", { server: "remote", url: "https://auth.example/authorize?client_id=c1&state=s1", error: "could not open a browser: no display" });
    expect(await screen.findByText("Waiting for the browser…")).toBeTruthy();
    expect(screen.getByText("https://auth.example/authorize?client_id=c1&state=s1")).toBeTruthy();
    expect(screen.getByText(/could not open a browser: no display/)).toBeTruthy();
    expect(screen.getByText("Copy address")).toBeTruthy();
    fireEvent.click(screen.getByText("Cancel"));
    expect(await screen.findByText(/cancelled: the sign-in was stopped/)).toBeTruthy();
    expect(screen.getByText("Sign in")).toBeTruthy();
    expect(calls).toContain("auth_cancel");
  });

  it("offers to sign in with the wider scope a server asked for, one step per click", async () => {
    const asked: unknown[] = [];
    const nexts: unknown[] = [];
    let finish: (v: unknown) => void = () => {};
    const refused = {
      ...signedOut,
      signed_in: true,
      issuer: "https://auth.example",
      scope: "files:read",
      expires_in: 3000,
      refreshable: true,
      refusal: { status: 403, method: "tools/call", header: 'Bearer error="insufficient_scope", scope="files:write"', scope: "files:write", error: "insufficient_scope" },
    };
    mockIPC(
      (cmd, args) => {
        if (cmd === "auth_status") return refused;
        if (cmd === "auth_sign_in") {
          asked.push((args as { options: unknown }).options);
          return new Promise((r) => (finish = r));
        }
        if (cmd === "auth_next") {
          nexts.push((args as { go: boolean }).go);
          return null;
        }
        throw new Error(`unexpected ${cmd}`);
      },
      { shouldMockEvents: true },
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <AuthPanel backend={tauriBackend} name="remote" />
      </QueryClientProvider>,
    );
    expect(await screen.findByText("needs more scope")).toBeTruthy();
    expect(screen.getByText("tools/call")).toBeTruthy();
    expect(screen.getByText("files:write")).toBeTruthy();
    fireEvent.click(screen.getByLabelText(/Step by step/));
    fireEvent.click(screen.getByText("Sign in with the wider scope"));
    expect(asked).toEqual([{ widen: true, step_by_step: true }]);
    await emit("auth-stepped", {
      server: "remote",
      timeline: { steps: [{ name: "metadata", request: "GET https://auth.example/.well-known/oauth-authorization-server", status: 200, response: "{}", ms: 4, problems: [] }] },
    });
    expect(await screen.findByText("GET https://auth.example/.well-known/oauth-authorization-server")).toBeTruthy();
    expect(screen.getByText("This run so far")).toBeTruthy();
    expect(screen.getByText("Paused after metadata")).toBeTruthy();
    fireEvent.click(screen.getByText("Next step"));
    expect(nexts).toEqual([true]);
    // The steps done stay in view while the next one runs.
    expect(screen.getByText("GET https://auth.example/.well-known/oauth-authorization-server")).toBeTruthy();
    // A step of another server's sign-in is not shown here.
    await emit("auth-stepped", { server: "other", timeline: { steps: [] } });
    expect(screen.queryByText("Next step")).toBeNull();
    finish({ status: { ...refused, scope: "files:read files:write", refusal: null }, error: null, timeline: { steps: [] } });
    await waitFor(() => expect(screen.queryByText("needs more scope")).toBeNull());
    expect(screen.getByText(/files:read files:write/)).toBeTruthy();
  });

  it("answers a 401 with one Sign in, not two buttons", async () => {
    mockIPC(
      (cmd) => {
        if (cmd === "auth_status") return { ...signedOut, refusal: { status: 401, method: "initialize", header: "Bearer", scope: null, error: null } };
        throw new Error(`unexpected ${cmd}`);
      },
      { shouldMockEvents: true },
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <AuthPanel backend={tauriBackend} name="remote" />
      </QueryClientProvider>,
    );
    expect(await screen.findByText("sign-in refused")).toBeTruthy();
    expect(screen.getAllByRole("button", { name: /^Sign in/ }).map((b) => b.textContent)).toEqual(["Sign in"]);
  });

  it("shows no sign-in state for a server that answers without OAuth (a static token)", async () => {
    mockIPC(
      (cmd) => {
        if (cmd === "auth_status") return signedOut;
        throw new Error(`unexpected ${cmd}`);
      },
      { shouldMockEvents: true },
    );
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <AuthPanel backend={tauriBackend} name="demo-http" answers />
      </QueryClientProvider>,
    );
    expect(await screen.findByText(/Not needed: it answers without an OAuth sign-in/)).toBeTruthy();
    expect(screen.queryByText("signed out")).toBeNull();
    expect(screen.getByRole("button", { name: "Sign in anyway" })).toBeTruthy();
  });

  it("lays out a JSON reply as JSON, and leaves other text as sent", () => {
    expect(pretty('{"access_token":"•••","expires_in":3600}')).toBe('{\n  "access_token": "•••",\n  "expires_in": 3600\n}');
    expect(pretty("location: http://x/cb")).toBe("location: http://x/cb");
    expect(pretty("{not json")).toBe("{not json");
  });
});
