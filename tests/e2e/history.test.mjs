// What the History keeps, as Settings says it, and its cap lowered by a
// person: the oldest calls go, the newest stay, and the size said is the
// store's own count of what is left.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { Driver, demoConfig } from "./harness.mjs";
import { alive, descendants } from "./procs.mjs";

/** "Now: 12 calls, 2.3 MiB." as [12, 2.3]. */
function now(text) {
  const m = /Now: ([\d,]+) calls, ([\d.]+) MiB/.exec(text ?? "");
  return m ? [Number(m[1].replace(/,/g, "")), Number(m[2])] : null;
}

describe("the History's size", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    config = demoConfig(driver.env.HOME, "history.json", "demo", "demo");
    // Twelve calls of ~200 KB each (arguments and result), made by mcpwb
    // into the store the window then opens.
    const mcpwb = join(dirname(process.env.DEMO_SERVER), "mcpwb");
    for (let i = 0; i < 12; i++) {
      const args = JSON.stringify({ message: `call ${i} ${"x".repeat(100_000)}` });
      const ran = spawnSync(mcpwb, ["--config", config, "--trust", "call", "demo", "echo", "--args", args], {
        env: driver.env,
        encoding: "utf8",
      });
      assert.equal(ran.status, 0, `${ran.stdout}${ran.stderr}`);
    }
  });
  after(async () => {
    await driver?.stop();
  });

  it("says what it keeps, and a lower cap drops the oldest calls", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.click(await session.find(".header-tools button[aria-label=Settings]"));
      const [said] = await session.waitForTexts("#history-heading + p", (t) => now(t[0])?.[0] === 12);
      const [, mib] = now(said);
      assert.ok(mib > 2 && mib < 3, said);
      const cap = await session.find("#history-heading ~ .settings-grid input[type=number]");
      await session.replaceText(cap, "1");
      await session.keys("\uE004"); // Tab: the field is left, the cap saved.
      const [after] = await session.waitForTexts("#history-heading + p", (t) => (now(t[0])?.[0] ?? 12) < 12);
      const [calls, left] = now(after);
      assert.ok(calls >= 3 && left <= 1, after);
      await session.screenshot("history-cap");
      await session.clickText("[role=tab]", "History");
      const rows = await session.waitForTexts(".history-row .history-args", (t) => t.length === calls);
      assert.ok(rows[0].includes("call 11 "), `the newest first and kept: ${rows[0].slice(0, 40)}`);
      assert.ok(!rows.some((r) => r.includes("call 0 ")), "the oldest went");

      // A long call made by mcpwb in another process: running while it
      // runs (kept after a second), then its end in the same row.
      const mcpwb = join(dirname(process.env.DEMO_SERVER), "mcpwb");
      const long = spawn(mcpwb, ["--config", config, "--trust", "call", "demo", "long_task", "-a", "steps=80", "-a", "step_ms=100"], {
        env: driver.env,
        stdio: "ignore",
      });
      const ended = new Promise((resolve) => long.on("exit", resolve));
      const badge = ".history-row .history-tool + .badge";
      const long_row = async (said) => {
        const tools = await session.texts(".history-row .history-tool");
        const badges = await session.texts(badge);
        return tools.some((t, i) => t === "demo/long_task" && badges[i] === said);
      };
      const seen = async (said, ms) => {
        for (const until = Date.now() + ms; Date.now() < until; ) {
          if (await long_row(said)) return true;
          await new Promise((r) => setTimeout(r, 150));
        }
        return false;
      };
      assert.ok(await seen("running", 7_000), "the running call is listed as running");
      await session.screenshot("history-running");
      assert.equal(await ended, 0);
      assert.ok(await seen("ok", 10_000), "its end replaces it in the same row");
      const tools = await session.texts(".history-row .history-tool");
      assert.equal(tools.filter((t) => t === "demo/long_task").length, 1, "one row for the call");
    } finally {
      await session.close();
    }
  });

  it("ends on SIGTERM as a closed window does: a call running then is kept with how it ended", async () => {
    const session = await driver.session(["--config", config]);
    const mcpwb = join(dirname(process.env.DEMO_SERVER), "mcpwb");
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.click(await session.find(".tool-row[data-qualified='demo__long_task']"));
      await session.clickText(".tool-panel .toolbar button", "JSON");
      await session.replaceText(await session.find("textarea.raw-args"), '{"steps": 150, "step_ms": 100}');
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".run-bar .elapsed", (t) => t.length === 1);
      // Kept while it runs (after a second), then the session logs out.
      await new Promise((r) => setTimeout(r, 2500));
      const app = descendants(driver.child.pid).find((p) => p.comm.startsWith("mcp-workbench"));
      assert.ok(app, "the app's process");
      const under = descendants(app.pid).map((p) => p.pid);
      process.kill(app.pid, "SIGTERM");
      const left = () => [app.pid, ...under].filter(alive);
      for (let waited = 0; waited < 20_000 && left().length > 0; waited += 100) await new Promise((r) => setTimeout(r, 100));
      assert.ok(!alive(app.pid), "the app ended within 20 s of SIGTERM");
      assert.deepEqual(left(), [], "nothing it started is left");
      // Its end was written by the app: not found interrupted afterwards.
      const listed = spawnSync(mcpwb, ["--config", config, "--json", "history", "--tool", "long_task", "--origin", "window"], { env: driver.env, encoding: "utf8" });
      assert.equal(listed.status, 0, listed.stderr);
      const [row] = JSON.parse(listed.stdout).calls;
      assert.ok(row, listed.stdout);
      assert.notEqual(row.status, "pending", JSON.stringify(row));
      assert.ok(!(row.error ?? "").includes("interrupted"), `written by the app as it ended: ${row.status} ${row.error}`);
    } finally {
      await session.close();
    }
  });
});
