// Evals in the real window: a suite's prompt cases run with two models the
// scripted LLM plays (one right, one that calls the wrong tool), the matrix
// in the Suites room, a cell's failed run with its transcript, and a chat's
// turn saved to the suite as a prompt case. Captured light and dark, small
// and large, axe-checked.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, scriptedLlm, scriptedProvider, demoConfig } from "./harness.mjs";

describe("evals", () => {
  let driver;
  let llm;
  let config;
  let suite;
  before(async () => {
    driver = await Driver.start();
    const right = [
      { model: "good", tool_calls: [{ name: "local__add", arguments: { a: 2, b: 3 } }], usage: { input: 250, output: 14 } },
      { model: "good", text: "2 + 3 = 5", usage: { input: 300, output: 8 } },
    ];
    const wrong = [
      { model: "bad", tool_calls: [{ name: "local__echo", arguments: { message: "2 + 3" } }], usage: { input: 250, output: 14 } },
      { model: "bad", text: "It is 5, I think.", usage: { input: 300, output: 9 } },
    ];
    llm = await scriptedLlm(driver.env.HOME, [
      ...right,
      ...right,
      ...wrong,
      ...wrong,
      // The chat whose turn becomes a case.
      { when: "please add 4 and 5", tool_calls: [{ name: "local__add", arguments: { a: 4, b: 5 } }] },
      { when: "please add 4 and 5", text: "4 + 5 = 9" },
    ]);
    config = demoConfig(driver.env.HOME, "evals.json", "e2e-evals");
    scriptedProvider(driver.env, llm.url);
    // The person's own suite (beside the workbench's mcp.json): trusted as theirs.
    const dir = join(driver.env.XDG_CONFIG_HOME, "mcp-workbench", "suites");
    mkdirSync(dir, { recursive: true });
    suite = join(dir, "arith.json");
    writeFileSync(
      suite,
      JSON.stringify(
        {
          server: "local",
          models: ["scripted:good", "scripted:bad"],
          cases: [
            {
              name: "adds",
              prompt: "What is 2 + 3?",
              expect: { calls: [{ tool: "local/add", arguments: { "/a": { equals: 2 }, "/b": { equals: 3 } } }], answer: { contains: "5" }, maxSteps: 3 },
              runs: 2,
            },
          ],
        },
        null,
        2,
      ),
    );
  });
  after(async () => {
    llm?.child.kill("SIGTERM");
    await driver?.stop();
  });

  it("runs a suite's prompt cases with two models, shows the matrix and a failed run's transcript, and saves a chat's turn as a case", async () => {
    const problems = [];
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Suites");
      await session.waitForTexts(".suite h3", (t) => t.includes("arith"));
      await session.waitForTexts(".eval-prompts li", (t) => t.length === 1 && t[0].includes("What is 2 + 3?"));
      await session.clickText(".evals-header button", "Run evals");
      const cells = await session.waitForTexts(".eval-matrix .eval-cell", (t) => t.length === 2 && t.every((c) => c.includes("/2")), 60_000);
      assert.match(cells[0], /2\/2\s+runs passed, meets 100%/, cells.join(" | "));
      assert.match(cells[1], /0\/2\s+runs passed, under 100%/, cells.join(" | "));
      assert.match(cells[0], /2\.0 steps/);
      problems.push(...(await session.views("evals")).map((p) => `evals: ${p}`));
      // The bad model's cell: each run's failed assertion and its transcript.
      await session.click(await session.find("button.eval-cell[data-model='scripted:bad'][data-case='adds']"));
      const failures = await session.waitForTexts(".modal .eval-failures li", (t) => t.length >= 1);
      assert.match(failures[0], /calls\[0\]: local\/add was not called \(the model called local\/echo\)/);
      await session.waitForTexts(".modal .eval-transcript .msg-user", (t) => t.some((m) => m.includes("What is 2 + 3?")));
      await session.waitForTexts(".modal .eval-transcript .msg-assistant", (t) => t.some((m) => m.includes("It is 5, I think.")));
      assert.deepEqual(await session.texts(".modal .eval-transcript button[aria-label='Edit and send again']"), [], "a transcript is read-only");
      await session.screenshot("eval-transcript");
      problems.push(...(await session.axe(".modal")).map((p) => `transcript: ${p}`));
      await session.keys("\uE00C");

      // A chat's turn becomes a prompt case of the suite.
      await session.clickText("[role=tab]", "Chat");
      await session.newChat();
      await session.type(await session.find("textarea[aria-label=Message]"), "please add 4 and 5\uE007");
      await session.waitForTexts(".approval-head", (t) => t.length === 1, 30_000);
      await session.clickText(".approval-actions button", "Allow once");
      await session.waitForTexts(".msg-assistant", (t) => t.some((m) => m.includes("4 + 5 = 9")), 30_000);
      await session.click(await session.find(".msg-user button[aria-label='Save to suite as a prompt case']"));
      await session.waitForTexts(".modal .proposal", (t) => t.some((x) => x.includes("calls local/add")));
      await session.screenshot("save-prompt-case");
      problems.push(...(await session.axe(".modal")).map((p) => `save case: ${p}`));
      await session.clickText(".modal-footer button", "Save case");
      await session.waitForTexts(".toast", (t) => t.some((x) => x.includes("Saved as")));
      const saved = JSON.parse(readFileSync(suite, "utf8"));
      const added = saved.cases[1];
      assert.equal(added.prompt, "please add 4 and 5");
      assert.deepEqual(added.expect.calls, [{ tool: "local/add", arguments: { "/a": { equals: 4 }, "/b": { equals: 5 } } }]);
      assert.equal(added.expect.maxSteps, 2);
      assert.equal(added.servers, undefined, "the suite's own server is not repeated");
      // The Suites room lists it beside the first.
      await session.clickText("[role=tab]", "Suites");
      await session.waitForTexts(".eval-prompts li", (t) => t.length === 2);
    } finally {
      await session.close();
    }
    assert.deepEqual(problems, [], problems.join("\n"));
  });
});
