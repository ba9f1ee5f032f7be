// The server author's loop in the real window: a call by hand is saved to
// a suite with assertions proposed from its result, the suite runs in the
// Suites room and a failed assertion shows its diff; History keeps every
// call (by hand and by the suite) across a restart of the app and compares
// two. Each view captured light and dark, small and large, axe-checked.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, demoConfig } from "./harness.mjs";

describe("history and suites", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    config = demoConfig(driver.env.HOME, "suites.json", "e2e-suites");
  });
  after(async () => {
    await driver?.stop();
  });

  it("saves a call to a suite, runs it, shows a failure with its diff, and keeps the history across a restart", async () => {
    const problems = [];
    let session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.waitForTexts(".tool-row", (t) => t.length >= 5);
      await session.type(await session.find("input[aria-label='Search tools']"), "add");
      await session.click(await session.find(".tool-row[data-qualified='local__add']"));
      const numbers = await session.findAll(".tool-panel input[type=number]");
      assert.ok(numbers.length >= 2, "a and b");
      await session.replaceText(numbers[0], "2");
      await session.replaceText(numbers[1], "3");
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".result-status", (t) => t.length === 1 && t[0].startsWith("Done"));
      // Save to suite: a new suite, the proposed assertions as they come.
      await session.clickText(".tool-panel button", "Save to suite");
      await session.waitForTexts(".modal .proposal", (t) => t.some((x) => x.includes("/sum equals 5")));
      await session.screenshot("save-to-suite");
      problems.push(...(await session.axe(".modal")).map((p) => `save dialog: ${p}`));
      await session.clickText(".modal-footer button", "Save case");
      await session.waitForTexts(".toast", (t) => t.some((x) => x.includes("Saved as")));
      // No project open: the person's own suites, beside the workbench's mcp.json.
      const file = join(driver.env.XDG_CONFIG_HOME, "mcp-workbench", "suites", "local.json");
      const saved = JSON.parse(readFileSync(file, "utf8"));
      assert.equal(saved.server, "local");
      assert.equal(saved.cases[0].tool, "add");
      assert.deepEqual(saved.cases[0].arguments, { a: 2, b: 3 });
      assert.equal(saved.cases[0].expect.json["/sum"].equals, 5);
      // The server's author expects something else now: the run says what differs.
      saved.cases[0].expect.json["/sum"].equals = 6;
      writeFileSync(file, JSON.stringify(saved, null, 2));

      await session.clickText("[role=tab]", "Suites");
      await session.waitForTexts(".suite h3", (t) => t.includes("local"));
      await session.clickText(".suite-header button", "Run suite");
      const [failure] = await session.waitForTexts(".case-failure p", (t) => t.length === 1);
      assert.match(failure, /json \/sum equals: expected 6, got 5/);
      const diff = await session.waitForTexts(".case-diff span", (t) => t.length >= 2);
      assert.ok(diff.some((l) => l.startsWith("- 6")) && diff.some((l) => l.startsWith("+ 5")), diff.join("|"));
      problems.push(...(await session.views("suites")).map((p) => `suites: ${p}`));
      // Its call in History: "ok" as a call, its case failed — both said.
      await session.clickText(".case button", "Its call");
      const [note] = await session.waitForTexts(".call-detail .case-note", (t) => t.length === 1);
      assert.match(note, /Its suite case .* failed/);
      await session.screenshot("history-case-note");
      // The list says it too, before the call is opened.
      const listed = await session.waitForTexts(".history-row .history-meta", (t) => t.some((m) => m.includes("its case failed")));
      assert.equal(listed.filter((m) => m.includes("its case failed")).length, 1, listed.join("\n"));
      assert.match(note, /json \/sum equals: expected 6, got 5/);

      await session.clickText("[role=tab]", "History");
      const rows = await session.waitForTexts(".history-row .history-tool", (t) => t.length >= 2);
      assert.ok(rows.every((r) => r === "local/add"), rows.join(", "));
      const metas = await session.texts(".history-row .history-meta");
      assert.ok(metas.some((m) => m.startsWith("window")) && metas.some((m) => m.startsWith("suite")), metas.join(" | "));
      // A call's messages, from this run's traffic log.
      const here = await session.findAll(".history-row");
      await session.click(here[here.length - 1]);
      const said = await session.waitForTexts(".call-messages .call-message-what", (t) => t.length >= 2);
      assert.ok(said.includes("tools/call") && said.includes("result of tools/call"), said.join(", "));
    } finally {
      await session.close();
    }

    // A new start of the app: the calls are still there; two compare.
    session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "History");
      await session.waitForTexts(".history-row .history-tool", (t) => t.length >= 2);
      const ticks = await session.findAll(".history-list input[type=checkbox]");
      await session.click(ticks[0]);
      await session.click(ticks[1]);
      await session.clickText(".history-filters button", "Compare");
      await session.waitForTexts(".compare h2", (t) => t.length === 1);
      const same = await session.texts(".compare .muted");
      assert.ok(same.filter((s) => s === "The same.").length >= 2, `the two calls had the same arguments and result: ${same}`);
      // The call saved to the suite is kept from pruning, and says so.
      const rowsNow = await session.findAll(".history-row");
      await session.click(rowsNow[rowsNow.length - 1]);
      await session.waitForTexts(".call-detail .call-badges .badge", (t) => t.includes("window") && t.includes("kept"));
      await session.click(rowsNow[0]);
      await session.waitForTexts(".call-detail h2", (t) => t.length === 1 && t[0] === "local/add");
      // Made by the run before: its messages went with that run's log.
      await session.waitForTexts(".call-messages .muted", (t) => t.some((x) => x.includes("not in this run's traffic log")));
      problems.push(...(await session.views("history")).map((p) => `history: ${p}`));
      // Run again: into the tool panel with its arguments, and run — with
      // the Tools list's search (left on something else) cleared to show it.
      await session.clickText("[role=tab]", "Tools");
      await session.type(await session.find("input[aria-label='Search tools']"), "zzz-nothing");
      await session.clickText("[role=tab]", "History");
      const rowsBack = await session.findAll(".history-row");
      await session.click(rowsBack[0]);
      await session.waitForTexts(".call-detail h2", (t) => t.length === 1 && t[0] === "local/add");
      await session.clickText(".call-detail button", "Run again");
      await session.waitForTexts(".tool-panel h2", (t) => t.length >= 1 && t.some((x) => x.includes("local__add")));
      const values = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; done(Array.from(document.querySelectorAll('.tool-panel input[type=number]')).filter((e) => e.getClientRects().length > 0).map((e) => e.value));",
      );
      assert.deepEqual(values.slice(0, 2), ["2", "3"]);
      await session.waitForTexts(".result-status", (t) => t.length === 1 && t[0].startsWith("Done"));
      await session.find(".tool-row[data-qualified='local__add']");
    } finally {
      await session.close();
    }
    assert.deepEqual(problems, []);
  });
});
