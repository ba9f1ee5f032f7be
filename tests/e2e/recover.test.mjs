// A call is not lost to a restart: the server behind the Tools room is
// killed, the room says it is on its way back and Run stays open; the call
// waits for the server and says so under its result.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, demoServer } from "./harness.mjs";

/** The processes whose command line holds every one of `parts`. */
function processesWith(parts) {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const line = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
        return parts.every((part) => line.includes(part));
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe("recover", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    config = join(driver.env.HOME, "recover.json");
    // Started again 3 s after it dies: time to look at the room meanwhile.
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          back: { command: demoServer(), args: ["--name", "e2e-back"], restart: { initialDelay: 3 } },
        },
      }),
    );
  });
  after(async () => {
    await driver?.stop();
  });

  it("runs a call made while its server restarts once it is back, and says it waited", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.click(await session.find(".tool-row[data-qualified='back__echo']"));
      await session.clickText(".tool-panel .toolbar button", "JSON");
      const raw = await session.find("textarea.raw-args");
      await session.replaceText(raw, '{"message": "after the restart"}');
      const killed = processesWith(["--name", "e2e-back"]);
      assert.ok(killed.length >= 1, "the server's process is found");
      for (const pid of killed) process.kill(pid, "SIGKILL");
      await session.waitForTexts(".tool-panel .callout", (t) => t.some((x) => x.includes("on its way back")), 10_000);
      await session.clickText(".run-bar button", "Run");
      const [done] = await session.waitForTexts(".tool-panel .result-status", (t) => t.length === 1, 20_000);
      assert.match(done, /^Done/);
      const [note] = await session.waitForTexts(".result-notes li", (t) => t.length === 1);
      assert.match(note, /waited \d+\.\d s for back to restart/);
      assert.ok(processesWith(["--name", "e2e-back"]).every((p) => !killed.includes(p)), "a new process answered");
      await session.screenshot("tool-waited-for-restart");
    } finally {
      await session.close();
    }
  });
});
