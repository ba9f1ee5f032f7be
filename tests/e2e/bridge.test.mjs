// The bridge from the window: turn it on, connect a client over HTTP with
// the token from a ready-made entry, let its call through (no rule allows
// it, so the window asks), and see the call in the traffic view under the
// client's name.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { Driver, freePort, demoConfig } from "./harness.mjs";

// One JSON-RPC exchange over Streamable HTTP (JSON or SSE answer).
async function rpc(url, token, session, message) {
  const r = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}),
    },
    body: JSON.stringify(message),
  });
  const text = await r.text();
  const data = text.startsWith("{") ? text : (text.split("\n").find((l) => l.startsWith("data: {"))?.slice(6) ?? "null");
  return { status: r.status, session: r.headers.get("mcp-session-id"), body: JSON.parse(data) };
}

describe("bridge", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    config = demoConfig(driver.env.HOME, "bridge.json", "e2e-bridge");
  });
  after(async () => {
    await driver?.stop();
  });

  it("serves the window's servers to another client, asks about its call, and shows it in Traffic", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready");
      await session.clickText(".sidebar-actions button", "Bridge");
      const port = String(await freePort());
      await session.replaceText(await session.find(".bridge-switch input[type=text]"), port);
      await session.click(await session.find(".bridge-switch [role=switch]"));
      const [url] = await session.waitForTexts(".bridge-url", (t) => t.length === 1);
      assert.equal(url, `http://127.0.0.1:${port}/mcp`);
      // The token is masked everywhere until asked for.
      const [masked] = await session.waitForTexts(".bridge-snippet pre", (t) => t.length >= 1);
      assert.match(masked, /Bearer [A-Za-z0-9_-]{6}…/);
      await session.clickText(".bridge-facts button", "Show token");
      const [snippet] = await session.waitForTexts(".bridge-snippet pre", (t) => t.length >= 1 && !t[0].includes("…"));
      const token = /Bearer ([A-Za-z0-9_-]+)/.exec(snippet)?.[1];
      assert.ok(token, snippet);
      assert.deepEqual(await session.texts(".bridge-token"), [token]);
      // Without the token: refused.
      const refused = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      assert.equal(refused.status, 401);
      const init = await rpc(url, token, null, {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "e2e-client", version: "1.0" } },
      });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      assert.equal(init.body.result.serverInfo.name, "mcp-workbench-bridge");
      await rpc(url, token, init.session, { jsonrpc: "2.0", method: "notifications/initialized" });
      const list = await rpc(url, token, init.session, { jsonrpc: "2.0", id: 2, method: "tools/list" });
      assert.ok(list.body.result.tools.some((t) => t.name === "local__echo"));
      // The call waits for the window: no rule allows it.
      const calling = rpc(url, token, init.session, {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "local__echo", arguments: { message: "from another client" } },
      });
      await session.waitForTexts(".bridge-approval code", (t) => t.includes("local__echo"));
      await session.waitForTexts(".bridge-callers td", (t) => t.some((x) => x.startsWith("e2e-client")));
      await session.screenshot("bridge");
      await session.clickText(".bridge-approval button", "Allow once");
      const answer = await calling;
      assert.equal(answer.body.result.content[0].text, "from another client");
      await session.clickText("[role=tab]", "Traffic");
      const servers = await session.waitForTexts(".traffic-row .t-server", (t) => t.some((s) => s === "bridge ← e2e-client"));
      assert.ok(servers.includes("local"), "the upstream call is there too");
      await session.screenshot("bridge-traffic");
      // Off: nothing listens any more.
      await session.clickText(".sidebar-actions button", "Bridge");
      await session.click(await session.find(".bridge-switch [role=switch]"));
      let gone = false;
      for (let i = 0; i < 50 && !gone; i++) {
        gone = await fetch(url, { method: "POST" }).then(
          () => false,
          () => true,
        );
        if (!gone) await sleep(100);
      }
      assert.ok(gone, "the port is closed when the bridge is off");
    } finally {
      await session.close();
    }
  });
});
