// The real app in a real WebKit window: what the window shows comes from the
// Rust core reading mcp.json through a typed Tauri command.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { join, resolve } from "node:path";
import { Driver, demoServer } from "./harness.mjs";

const EXAMPLE = resolve(import.meta.dirname, "../../mcp.example.json");

describe("server list", () => {
  let driver;
  before(async () => {
    driver = await Driver.start();
  });
  after(async () => {
    await driver?.stop();
  });

  it("shows both demo servers of mcp.example.json, read by the Rust core", async () => {
    const session = await driver.session(["--config", EXAMPLE]);
    try {
      const names = await session.waitForTexts(".server-name", (t) => t.length >= 2 && t.every((x) => x !== ""));
      assert.deepEqual(names, ["demo-stdio", "demo-http"]);
      const badges = await session.texts(".server .badge:not(.state)");
      assert.deepEqual(badges, ["stdio", "HTTP"]);
      const path = await session.texts(".config-path");
      assert.deepEqual(path, [EXAMPLE]);
      const png = await session.screenshot("main-window");
      assert.ok(statSync(png).size > 8_000, "the screenshot has content");
    } finally {
      await session.close();
    }
  });

  it("remembers the window's size and position for the next start", async () => {
    const first = await driver.session(["--config", EXAMPLE]);
    let before;
    try {
      before = await first.cmd("GET", "/window/rect");
      await first.cmd("POST", "/window/rect", { x: 30, y: 40, width: 900, height: 700 });
      // The store writes the change shortly after it happens.
      const saved = join(driver.env.XDG_DATA_HOME, "dev.mcpworkbench.app", "window-state.json");
      const deadline = Date.now() + 10_000;
      // The store writes the file in place: caught mid-write it is not JSON yet.
      const width = () => {
        try {
          return JSON.parse(readFileSync(saved, "utf8")).main?.width;
        } catch {
          return undefined;
        }
      };
      while (!(existsSync(saved) && width() === 900)) {
        assert.ok(Date.now() < deadline, "the window state was never written");
        await sleep(100);
      }
    } finally {
      await first.close();
    }
    assert.notDeepEqual([before.width, before.height], [900, 700], "the window did not start at the size set here");
    const second = await driver.session(["--config", EXAMPLE]);
    try {
      const deadline = Date.now() + 10_000;
      let rect;
      do {
        rect = await second.cmd("GET", "/window/rect");
        if (rect.width === 900) break;
        await sleep(100);
      } while (Date.now() < deadline);
      assert.deepEqual(rect, { x: 30, y: 40, width: 900, height: 700 });
    } finally {
      await second.close();
    }
  });

  it("shows a broken mcp.json's error at line:column and leaves the file untouched", async () => {
    const broken = join(driver.env.HOME, "broken.json");
    const text = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n';
    writeFileSync(broken, text);
    const session = await driver.session(["--config", broken]);
    try {
      const [message] = await session.waitForTexts("[role=alert] .error-message", (t) => t.length === 1 && t[0] !== "");
      assert.match(message, new RegExp(`${broken.replace(/[.]/g, "\\.")}:3:\\d+`));
      await session.screenshot("broken-config");
      assert.equal(readFileSync(broken, "utf8"), text);
    } finally {
      await session.close();
    }
  });

  it("connects to a stdio and an HTTP server and shows them ready, live", async () => {
    const demo = demoServer();
    const portFile = join(driver.env.HOME, "http-addr");
    const http = spawn(demo, ["--http", "127.0.0.1:0", "--port-file", portFile, "--token", "e2e-token", "--name", "e2e-http"], {
      stdio: "ignore",
    });
    try {
      let addr = "";
      for (let i = 0; i < 100 && !addr; i++) {
        await sleep(50);
        addr = existsSync(portFile) ? readFileSync(portFile, "utf8") : "";
      }
      assert.ok(addr, "the HTTP demo server started");
      const config = join(driver.env.HOME, "live.json");
      writeFileSync(
        config,
        JSON.stringify({
          mcpServers: {
            local: { command: demo, args: ["--name", "e2e-stdio"] },
            remote: { type: "http", url: `http://${addr}/mcp`, headers: { Authorization: "Bearer e2e-token" } },
            broken: { command: demo, args: ["--fault", "exit-at-start"] },
          },
        }),
      );
      const session = await driver.session(["--config", config]);
      try {
        // The broken one fails (its start may come a little after the others').
        const states = await session.waitForTexts(".server .badge.state", (t) => t.length === 3 && t[0] === "ready" && t[1] === "ready" && /failed|retry/.test(t[2]));
        assert.match(states[2], /failed|retry/);
        // The broken one cycles through restarts: its reason shows while it is down.
        const details = await session.waitForTexts(".server-detail", (d) => d.some((x) => x.includes("exit")));
        assert.ok(details.some((d) => d.startsWith("e2e-stdio ")), JSON.stringify(details));
        assert.ok(details.some((d) => d.startsWith("e2e-http ")), JSON.stringify(details));
        // What each ready server offers shows in the sidebar once its lists are fetched.
        await session.waitForTexts(".server-counts", (t) => t.length === 2 && t.every((d) => /^25 tools · 7 resources · 2 templates · 3 prompts$/.test(d)));
        await session.screenshot("live-servers");
        // A failed server's page opens on what it said on stderr (its reason
        // is there), though the lines arrive after the page is drawn.
        await session.clickText(".server .server-name", "broken");
        await session.waitForTexts(".server-panel .console", (t) => t.some((x) => x.includes("exiting at start on purpose")));
        // A remote server that answers with its own header needs no OAuth
        // sign-in: no sign-in state shown, a way to sign in anyway.
        await session.clickText(".server .server-name", "remote");
        const panel = await session.waitForTexts(".auth-panel", (t) => t.length === 1 && t[0].includes("Not needed"));
        assert.doesNotMatch(panel[0], /signed out/);
        await session.find(".auth-panel button");
        await session.screenshot("auth-panel");
      } finally {
        await session.close();
      }
    } finally {
      http.kill();
    }
  });

  it("signs in to a server that asks for OAuth, through the system browser, then steps up its scope one step per click", async () => {
    const demo = process.env.DEMO_SERVER;
    const portFile = join(driver.env.HOME, "oauth-addr");
    const server = spawn(demo, ["--http", "127.0.0.1:0", "--port-file", portFile, "--oauth", "--oauth-call-scope", "demo:write", "--name", "e2e-oauth"], {
      stdio: "ignore",
    });
    // The stand-in browser records each address the app opens; the test follows the newest
    // /authorize one back to the app's loopback listener, as a browser would.
    const opened = join(driver.env.HOME, "opened-urls.txt");
    const openedCount = () => (existsSync(opened) ? readFileSync(opened, "utf8").split("\n").filter((l) => l.includes("/authorize")).length : 0);
    const follow = async (already) => {
      let urls = [];
      for (let i = 0; i < 200 && urls.length <= already; i++) {
        await sleep(50);
        urls = existsSync(opened) ? readFileSync(opened, "utf8").split("\n").filter((l) => l.includes("/authorize")) : [];
      }
      const url = urls.at(-1) ?? "";
      assert.match(url, /code_challenge_method=S256/);
      const page = await fetch(url, { redirect: "manual" });
      const back = page.headers.get("location");
      assert.ok(back?.startsWith("http://127.0.0.1:"), back);
      const landing = await fetch(back);
      assert.match(await landing.text(), /Back in MCP Workbench/);
      return url;
    };
    try {
      let addr = "";
      for (let i = 0; i < 100 && !addr; i++) {
        await sleep(50);
        addr = existsSync(portFile) ? readFileSync(portFile, "utf8") : "";
      }
      assert.ok(addr, "the OAuth demo server started");
      const config = join(driver.env.HOME, "oauth.json");
      writeFileSync(config, JSON.stringify({ mcpServers: { guarded: { type: "http", url: `http://${addr}/mcp` } } }));
      const session = await driver.session(["--config", config]);
      try {
        // Without a sign-in it waits for one: "needs sign-in", not a failure retried.
        await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "needs sign-in");
        await session.waitForTexts(".server-detail", (d) => d.some((x) => x.includes("open it to sign in")));
        await session.clickText(".server .server-name", "guarded");
        await session.clickText(".auth-panel button", "Sign in");
        await follow(0);
        const state = await session.waitForTexts(".auth-panel .auth-state", (t) => t.length === 1 && t[0].startsWith("signed in"));
        assert.ok(state[0].includes(`http://${addr}`), state[0]);
        await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready");
        await session.screenshot("signed-in");
        // The grant is too narrow for tools/call: the server answers 403 insufficient_scope.
        await session.clickText("[role=tab]", "Tools");
        await session.click(await session.find(".tool-row[data-qualified='guarded__echo']"));
        await session.type(await session.find(".tool-panel input[type=text]"), "wider");
        await session.clickText(".run-bar button", "Run");
        await session.waitForTexts(".result, .result-status, [role=alert]", (t) => t.some((x) => /403|scope|refused/i.test(x)));
        await session.clickText(".server .server-name", "guarded");
        const refusal = await session.waitForTexts(".auth-refusal", (t) => t.length === 1 && t[0].includes("demo:write"));
        assert.match(refusal[0], /tools\/call/);
        // Step by step: each step waits for a click.
        await session.click(await session.find(".auth-steps-toggle input"));
        const before = openedCount();
        await session.clickText(".auth-refusal button", "Sign in with the wider scope");
        let steps = 0;
        for (let i = 0; i < 300 && openedCount() === before; i++) {
          const buttons = await session.texts(".auth-panel button");
          if (buttons.includes("Next step")) {
            if (steps === 1) await session.screenshot("sign-in-step-by-step");
            await session.clickText(".auth-panel button", "Next step");
            steps += 1;
          } else await sleep(50);
        }
        const wider = await follow(before);
        assert.match(decodeURIComponent(wider), /scope=demo:read demo:write|scope=demo%3Aread\+demo%3Awrite|demo:read\+demo:write/);
        await session.clickText(".auth-panel button", "Next step");
        assert.ok(steps >= 2, `paused after each step before the browser (${steps})`);
        await session.waitForTexts(".auth-panel .auth-state", (t) => t.length === 1 && t[0].includes("demo:read demo:write"));
        await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready");
        await session.clickText("[role=tab]", "Tools");
        await session.click(await session.find(".tool-row[data-qualified='guarded__echo']"));
        await session.type(await session.find(".tool-panel input[type=text]"), "wider");
        await session.clickText(".run-bar button", "Run");
        await session.waitForTexts(".result .block-text", (t) => t.length === 1 && t[0].includes("wider"));
      } finally {
        await session.close();
      }
    } finally {
      server.kill();
    }
  });
});
