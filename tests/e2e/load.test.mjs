// A load run from the tool panel in the real window: the demo's echo called
// by 4 at once for 2 seconds, each second drawn as it comes, the result with
// its histogram, compared with the run before, and one row in History.
// Captured light and dark, small and large, axe-checked.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Driver, demoConfig } from "./harness.mjs";

describe("load runs", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    config = demoConfig(driver.env.HOME, "load.json", "e2e-load");
  });
  after(async () => {
    await driver?.stop();
  });

  it("runs a tool under load, shows each second and the histogram, compares two runs and keeps one History row each", async () => {
    const problems = [];
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.waitForTexts(".tool-row", (t) => t.length >= 5);
      await session.type(await session.find("input[aria-label='Search tools']"), "echo\uE007");
      await session.waitForTexts(".tool-panel h2 code", (t) => t.includes("local__echo"));
      await session.type(await session.find(".tool-panel input[type=text]"), "under load");
      await session.clickText(".tool-panel .disclosure-trigger", "Load");
      const numbers = await session.findAll(".load-controls input[type=number]");
      await session.replaceText(numbers[0], "4");
      await session.replaceText(numbers[1], "2");
      for (let run = 1; run <= 2; run++) {
        await session.clickText(".load-controls button", "Start load");
        // Each second drawn as it comes, then the result.
        await session.waitForTexts(".load-chart figcaption", (t) => t.length === 1 && /calls\/s/.test(t[0]), 20_000);
        const [result] = await session.waitForTexts(".load-result > p", (t) => t.length >= 1 && t[0].includes("calls in"), 30_000);
        assert.match(result, /\d+ calls in \d+\.\d s · \d+ calls\/s · p50 [\d.]+ ms · p99 [\d.]+ ms · errors: tool 0, protocol 0, timeout 0, disconnect 0/);
      }
      await session.waitForTexts(".load-histogram figcaption", (t) => t.length === 1);
      // Against the run before: the figures side by side with the change.
      await session.click(await session.find(".load-result button[role=combobox]"));
      const options = await session.waitForTexts("[role=option]", (t) => t.some((o) => o.includes("calls/s")));
      const earlier = options.find((o) => o.includes("calls/s"));
      await session.clickText("[role=option]", earlier.trim().slice(0, 12));
      await session.waitForTexts(".load-figures thead th", (t) => t.includes("Compared run"));
      problems.push(...(await session.views("load")).map((p) => `load: ${p}`));
      // One History row a run, origin load.
      await session.clickText("[role=tab]", "History");
      const metas = await session.waitForTexts(".history-row .history-meta", (t) => t.filter((m) => m.startsWith("load")).length === 2, 15_000);
      assert.equal(metas.filter((m) => m.startsWith("load")).length, 2, metas.join(" | "));
    } finally {
      await session.close();
    }
    assert.deepEqual(problems, [], problems.join("\n"));
  });
});
