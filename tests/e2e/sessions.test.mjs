// A real host's traffic in the window: a host (here a script speaking
// JSON-RPC, as Claude or Cursor would) runs the demo server through
// `mcpwb tap`; the Sessions room shows the host as it named itself, the
// server and protocol, and each message in order, and it follows a session
// that is still connected. The official Python SDK's client drives a tapped
// server while the room is open: its session, its host's fingerprint, errors
// marked, saved as a suite. Hosts: a Claude Desktop config's entry tapped
// and put back, byte for byte. Captured light and dark, small and large,
// axe-checked.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { Driver, demoServer, demoConfig } from "./harness.mjs";

/** A host through `mcpwb tap`: its stdin to write lines, and each answer as it comes. */
function host(env, name) {
  const demo = process.env.DEMO_SERVER;
  const tap = spawn(join(dirname(demo), "mcpwb"), ["tap", "--", demo, "--name", "weather"], { env, stdio: ["pipe", "pipe", "ignore"] });
  const waiting = new Map();
  createInterface({ input: tap.stdout }).on("line", (line) => {
    const v = JSON.parse(line);
    waiting.get(v.id)?.(v);
  });
  const ask = (id, method, params) =>
    new Promise((answer) => {
      waiting.set(id, answer);
      tap.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    });
  return {
    tap,
    ask,
    hello: () => ask(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "0.1.0" } }),
    say: (method) => tap.stdin.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n"),
    leave: () => new Promise((done) => (tap.on("exit", done), tap.stdin.end())),
  };
}

describe("sessions", () => {
  let driver;
  let config;
  let claude;
  let claudeText;
  before(async () => {
    driver = await Driver.start();
    const demo = demoServer();
    config = demoConfig(driver.env.HOME, "sessions.json", "local");
    // A host's own config where the window looks for Claude Desktop's.
    claude = join(driver.env.HOME, ".config/Claude/claude_desktop_config.json");
    mkdirSync(dirname(claude), { recursive: true });
    claudeText = `{\n  "mcpServers": {\n    "weather": { "command": "${demo}", "args": ["--name", "weather"] }\n  },\n  "globalShortcut": ""\n}\n`;
    writeFileSync(claude, claudeText);
  });
  after(async () => {
    await driver?.stop();
  });

  it("shows each host's session and its messages, and follows one still connected", async () => {
    // One session that ended before the window opened.
    const done = host(driver.env, "claude-ai");
    await done.hello();
    done.say("notifications/initialized");
    await done.ask(2, "tools/list", {});
    await done.ask(3, "tools/call", { name: "echo", arguments: { message: "from the host" } });
    await done.leave();
    const session = await driver.session(["--config", config]);
    const live = host(driver.env, "cursor");
    try {
      await session.clickText("[role=tab]", "Sessions");
      const hosts = await session.waitForTexts(".session-row .session-host", (t) => t.includes("claude-ai 0.1.0"));
      assert.ok(hosts.includes("claude-ai 0.1.0"), hosts.join(", "));
      await session.clickText(".session-row", "claude-ai");
      const what = await session.waitForTexts(".session-message .session-what", (t) => t.includes("tools/call echo (id 3)"));
      assert.deepEqual(what.slice(0, 2), ["initialize (id 1)", "result of 1"], what.join(", "));
      const dirs = await session.texts(".session-message .session-dir");
      assert.equal(dirs[0], "host → server");
      assert.equal(dirs[1], "server → host");
      const [card] = await session.texts(".session-card");
      assert.match(card, /weather/);
      assert.match(card, /2025-11-25/);
      // A host connecting while the room is open shows up, live, and grows.
      await live.hello();
      await session.waitForTexts(".session-row .session-host", (t) => t.includes("cursor 0.1.0"));
      await session.clickText(".session-row", "cursor");
      await session.waitForTexts(".session-row .badge", (t) => t.includes("live"));
      await live.ask(2, "tools/call", { name: "echo", arguments: { message: "while you watch" } });
      await session.waitForTexts(".session-message .session-what", (t) => t.includes("tools/call echo (id 2)"));
      const problems = await session.views("sessions");
      assert.deepEqual(problems, [], problems.join("\n"));

      // The Python SDK's client as the host, the room open: its session
      // comes in with its calls, and the card says what the host did.
      const python = process.env.MCPWB_PYTHON;
      if (python) {
        const script = join(import.meta.dirname, "../tap/python_host.py");
        const demo = process.env.DEMO_SERVER;
        const ran = spawnSync(python, [script, "stdio", "legacy", join(dirname(demo), "mcpwb"), "tap", "--name", "weather", "--", demo], { env: driver.env, encoding: "utf8" });
        assert.equal(ran.status, 0, `${ran.stdout}${ran.stderr}`);
        await session.waitForTexts(".session-row .session-host", (t) => t.some((h) => h.startsWith("mcp ")));
        await session.clickText(".session-row", "mcp ");
        const calls = await session.waitForTexts(".session-message .session-what", (t) => t.filter((w) => w.startsWith("tools/call")).length >= 3);
        assert.ok(calls.includes("notifications/progress"), calls.join(", "));
        const [card] = await session.waitForTexts(".session-card", (t) => t[0]?.includes("Called"));
        assert.match(card, /Offered\s+2025-11-25/);
        assert.match(card, /tools\/call/);
        // Saved as a suite of its calls: the session ran the demo by its
        // own command, which no entry of the config names, so the person
        // says which server the cases call; the suite is not trusted yet.
        await session.clickText("button", "Save as suite");
        await session.pick("[role=dialog] [aria-label='Server the cases call']", "local");
        await session.clickText("[role=dialog] button", "Save");
        const toasts = await session.waitForTexts(".toast-title", (t) => t.some((x) => x.includes("saved as a suite")));
        assert.ok(toasts.some((t) => /\d+ cases of local saved as a suite — not trusted yet/.test(t)), toasts.join(", "));
      }

      // Hosts: Claude Desktop's entry tapped, then put back byte for byte.
      await session.clickText(".sessions-bar button", "Hosts");
      await session.waitForTexts(".host-entry-name", (t) => t.includes("weather"));
      const hostProblems = await session.views("sessions-hosts");
      assert.deepEqual(hostProblems, [], hostProblems.join("\n"));
      await session.clickText(".host-entry button", "Tap");
      await session.waitForTexts(".host-entry .badge", (t) => t.includes("tapped"));
      const tapped = JSON.parse(readFileSync(claude, "utf8"));
      assert.equal(tapped.mcpServers.weather.args[0], "tap", JSON.stringify(tapped));
      assert.equal(tapped.globalShortcut, "");
      await session.clickText(".host-entry button", "Untap");
      await session.waitForTexts(".host-entry button", (t) => t.includes("Tap"));
      assert.equal(readFileSync(claude, "utf8"), claudeText, "the bytes back");
    } finally {
      await live.leave().catch(() => undefined);
      await session.close();
    }
  });
});
