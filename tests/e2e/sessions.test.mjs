// A real host's traffic in the window: a host (here a script speaking
// JSON-RPC, as Claude or Cursor would) runs the demo server through
// `mcpwb tap`; the Sessions room shows the host as it named itself, the
// server and protocol, and each message in order, and it follows a session
// that is still connected. Captured light and dark, small and large,
// axe-checked.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { Driver } from "./harness.mjs";

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
  before(async () => {
    driver = await Driver.start();
    const demo = process.env.DEMO_SERVER;
    assert.ok(demo && existsSync(demo), "DEMO_SERVER must point at the built demo server");
    config = join(driver.env.HOME, "sessions.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { local: { command: demo, args: ["--name", "local"] } } }));
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
      const what = await session.waitForTexts(".session-message .session-what", (t) => t.includes("tools/call (id 3)"));
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
      await session.waitForTexts(".session-message .session-what", (t) => t.includes("tools/call (id 2)"));
      const problems = await session.views("sessions");
      assert.deepEqual(problems, [], problems.join("\n"));
    } finally {
      await live.leave().catch(() => undefined);
      await session.close();
    }
  });
});
