// Tools by hand in the real window: pick a tool of a real demo server, fill
// the form generated from its schema, run it, see the result and the
// messages it took; cancel a long call.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, demoServer } from "./harness.mjs";

describe("tools", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    const demo = demoServer();
    config = join(driver.env.HOME, "tools.json");
    // "old" speaks the 2025-11-25 protocol, where servers ask the client
    // (elicitation, sampling) with requests of their own.
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          local: { command: demo, args: ["--name", "e2e-tools"] },
          old: { command: demo, args: ["--name", "e2e-old", "--legacy"] },
          // Tasks in the 2025-11-25 form (a hand-written server).
          tasks25: { command: demo, args: ["--tasks-2025"] },
        },
      }),
    );
  });
  after(async () => {
    await driver?.stop();
  });

  it("runs a tool from its form and shows the result and its traffic", async () => {
    const session = await driver.session(["--config", config]);
    try {
      // The window opens on the view used last; start from Tools.
      await session.clickText("[role=tab]", "Tools");
      await session.waitForTexts(".tool-row", (t) => t.length >= 5);
      // The list is one Tab stop, whatever the number of server groups.
      const stops = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; done(document.querySelectorAll('.tool-scroller [tabindex=\"0\"]').length);",
      );
      assert.equal(stops, 1);
      const search = await session.find("input[aria-label='Search tools']");
      // Enter in the search opens the match and puts the cursor in its first field.
      await session.type(search, "echo\uE007");
      await session.waitForTexts(".tool-panel h2 code", (t) => t.includes("local__echo"));
      const focused = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; const a = document.activeElement; done(Boolean(a && a.closest('.tool-panel') && a.matches('input')));",
      );
      assert.ok(focused, "the first field of the opened tool has the focus");
      const message = await session.find(".tool-panel input[type=text]");
      await session.type(message, "hello from e2e");
      await session.clickText(".run-bar button", "Run");
      const [text] = await session.waitForTexts(".result .block-text", (t) => t.length === 1 && t[0].includes("hello from e2e"));
      assert.equal(text.trim(), "hello from e2e");
      const [status] = await session.texts(".result-status");
      assert.match(status, /^Done in \d+ ms$/);
      await session.screenshot("tool-result");
      // The call, copied as a request: on the system clipboard another
      // program reads (xclip here, on the window's own display).
      await session.clickText(".run-bar button", "Copy as JSON-RPC");
      await session.waitForTexts(".toast-title", (t) => t.some((x) => x.includes("Copied the JSON-RPC request")));
      const copied = JSON.parse(
        execFileSync("xclip", ["-o", "-selection", "clipboard"], { env: { ...process.env, DISPLAY: session.display }, timeout: 10_000 }).toString(),
      );
      assert.deepEqual(copied.params, { name: "echo", arguments: { message: "hello from e2e" } });
      await session.clickText("[role=tab]", "Traffic");
      const methods = await session.waitForTexts(".traffic-row .t-method", (t) => t.filter((m) => m === "tools/call").length >= 2);
      assert.ok(methods.includes("initialize") || methods.includes("server/discover"), `handshake shown: ${methods}`);
      await session.screenshot("traffic");
    } finally {
      await session.close();
    }
  });

  it("filters by server from the design system's list, by keyboard and by mouse", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.waitForTexts(".tool-row", (t) => t.length >= 5);
      const rowServers = () =>
        session.executeAsync(
          "const done = arguments[arguments.length - 1]; done([...new Set(Array.from(document.querySelectorAll('.tool-row')).map((r) => r.dataset.qualified.split('__')[0]))]);",
        );
      // The value of `read` once `done` holds of it (or after 5 s).
      const settle = async (read, done) => {
        const deadline = Date.now() + 5_000;
        for (;;) {
          const v = await read();
          if (done(v) || Date.now() > deadline) return v;
          await new Promise((r) => setTimeout(r, 150));
        }
      };
      const trigger = ".list-filters [aria-label=Server]";
      assert.equal((await session.texts(trigger))[0].trim(), "All servers");
      // Every server's tools are in before the list is used: a server whose
      // tools arrive while the list is open redraws it (seen closing it).
      const searchSays = () =>
        session.executeAsync("const done = arguments[arguments.length - 1]; done(document.querySelector('.tools-search input, input[placeholder^=\"Search\"]')?.placeholder ?? '');");
      // local and old (the demo's 25 each) and tasks25's 5.
      assert.equal(await settle(searchSays, (p) => p === "Search 55 tools"), "Search 55 tools");
      // The keyboard: focus the button, arrow down opens the list on the
      // current option, arrow down twice more and Enter picks the third.
      // An arrow pressed while the list redraws (a server's lists arriving)
      // can go unseen (one CI run): pressed again, as a person would.
      const open = async (attempt) => {
        await session.cmd("POST", "/execute/sync", { script: "document.querySelector(arguments[0]).focus(); return true;", args: [trigger] });
        await session.keys("\uE015");
        try {
          return await session.waitForTexts("[role=option]", (t) => t.length === 4, 4_000);
        } catch (e) {
          if (attempt >= 2) throw e;
          return open(attempt + 1);
        }
      };
      // The list takes the focus on the current option a frame after it is
      // drawn: a key pressed before that is not the list's. Each arrow moves
      // the highlight by one, seen before the next key.
      const highlighted = (label) => session.waitForTexts("[role=option][data-highlighted]", (t) => t.length === 1 && t[0].trim() === label);
      // Opened and measured where it is drawn. Another test's window opening
      // on the same display takes the focus, and an open list closes when
      // its window loses it (one CI run, with a file more running beside
      // this one): a list gone before it was measured is opened again.
      const openAndPlace = async (attempt) => {
        const options = await open(0);
        await highlighted("All servers");
        const placed = await session.cmd("POST", "/execute/sync", {
          script:
            "const shown = document.querySelector('[role=listbox]'); if (!shown) return null; const list = shown.getBoundingClientRect(); const b = document.querySelector(arguments[0]).getBoundingClientRect();" +
            "return { inside: list.left >= 0 && list.right <= innerWidth && list.bottom <= innerHeight, below: list.top >= b.bottom - 1, wide: list.width >= b.width - 1, bg: getComputedStyle(document.querySelector('.select-content')).backgroundColor };",
          args: [trigger],
        });
        if (placed !== null || attempt >= 2) return { options, placed };
        console.log("the list closed before it was measured (its window lost the focus): opened again");
        return openAndPlace(attempt + 1);
      };
      const { options, placed } = await openAndPlace(0);
      assert.deepEqual(options.map((o) => o.trim()), ["All servers", "local", "old", "tasks25"]);
      // Drawn inside the window, under its button, in the design's look (not the platform's popup).
      assert.ok(placed, "the list stayed open to be measured in one of three tries");
      assert.deepEqual({ ...placed, bg: undefined }, { inside: true, below: true, wide: true, bg: undefined });
      assert.notEqual(placed.bg, "rgba(0, 0, 0, 0)");
      await session.screenshot("select-open-light");
      // Two arrows and Enter. Under a full run (two windows at once) the
      // open list has been seen to lose its highlight between keys; then
      // the list is closed and the keys are played once more from the start.
      const pick = async () => {
        await session.keys("\uE015");
        await highlighted("local");
        await session.keys("\uE015");
        await highlighted("old");
        await session.keys("\uE007");
      };
      try {
        await pick();
      } catch (first) {
        console.log(`the keyboard pick is played again: ${first.message}`);
        await session.keys("\uE00C");
        await session.waitForTexts("[role=listbox]", (t) => t.length === 0);
        await session.cmd("POST", "/execute/sync", { script: "document.querySelector(arguments[0]).focus(); return true;", args: [trigger] });
        await session.keys("\uE015");
        await highlighted("All servers");
        await pick();
      }
      await session.waitForTexts("[role=listbox]", (t) => t.length === 0);
      assert.equal((await session.texts(trigger))[0].trim(), "old");
      assert.deepEqual(await settle(rowServers, (s) => s.length === 1), ["old"]);
      // Enter gave the focus back to the button.
      const focused = () =>
        session.cmd("POST", "/execute/sync", { script: "return document.activeElement === document.querySelector(arguments[0]);", args: [trigger] });
      assert.ok(await settle(focused, (f) => f === true), "the focus returns to the button after Enter");
      // Escape closes without picking; the focus is back on the button. (An
      // arrow can go unseen under a full run: `open` presses it again.)
      await open(0);
      await highlighted("old");
      await session.keys("\uE00C");
      await session.waitForTexts("[role=listbox]", (t) => t.length === 0);
      assert.ok(await focused(), "the focus returns to the button");
      // The mouse, in the dark theme.
      await session.theme("dark");
      // A click while the window redraws in the new theme can go unseen:
      // clicked again, as a person would.
      for (let attempt = 0; ; attempt++) {
        await session.click(await session.find(trigger));
        try {
          await session.waitForTexts("[role=option]", (t) => t.length === 4, 4_000);
          break;
        } catch (e) {
          if (attempt >= 2) throw e;
        }
      }
      await session.screenshot("select-open-dark");
      await session.keys("\uE00C");
      await session.pick(trigger, "All servers");
      assert.ok((await settle(rowServers, (s) => s.includes("local"))).includes("local"));
      assert.equal((await session.texts(trigger))[0].trim(), "All servers");
    } finally {
      await session.close();
    }
  });

  it("cancels a long call: the server is told and the window says so", async () => {
    const session = await driver.session(["--config", config]);
    try {
      // The window opens on the view used last; start from Tools.
      await session.clickText("[role=tab]", "Tools");
      await session.click(await session.find(".tool-row[data-qualified='local__long_task']"));
      await session.clickText(".tool-panel .toolbar button", "JSON");
      const raw = await session.find("textarea.raw-args");
      assert.equal(await session.replaceText(raw, '{"steps": 100, "step_ms": 200}'), '{"steps": 100, "step_ms": 200}');
      const started = Date.now();
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".run-bar .elapsed", (t) => t.length === 1);
      await session.find(".run-bar progress");
      await session.clickText(".run-bar button", "Cancel");
      // The person's own Cancel: said plainly, not as an error in red.
      const [message] = await session.waitForTexts(".tool-panel .call-cancelled", (t) => t.length === 1);
      assert.match(message, /Cancelled at your request/);
      assert.equal((await session.texts(".tool-panel [role=alert] .error-message")).length, 0);
      assert.ok(Date.now() - started < 15_000, "the call ended well before its 20 s of work");
      await session.screenshot("tool-cancelled");
    } finally {
      await session.close();
    }
  });
  it("keeps a long call alive while it reports progress, and cuts it when the person says progress does not count", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.click(await session.find(".tool-row[data-qualified='local__long_task']"));
      await session.clickText(".tool-panel .toolbar button", "JSON");
      const raw = await session.find("textarea.raw-args");
      await session.replaceText(raw, '{"steps": 5, "step_ms": 400}');
      // A 1 s timeout for a call of 2 s that reports progress every 0.4 s.
      await session.clickText(".call-limits button", "Time limits");
      const timeout = await session.find(".call-limits input");
      assert.equal(await session.replaceText(timeout, "1"), "1");
      await session.waitForTexts(".call-limits .disclosure-title", (t) => t.some((x) => x.includes("timeout 1 s")));
      await session.clickText(".run-bar button", "Run");
      const [done] = await session.waitForTexts(".tool-panel .result-status", (t) => t.length === 1, 20_000);
      // Past a second it is said in seconds ("Done in 2.6 s").
      assert.match(done, /^Done in \d+\.\d s/);
      assert.ok(Number(done.match(/([\d.]+) s/)[1]) > 1.5, `the call ran past its 1 s timeout: ${done}`);
      await session.screenshot("tool-time-limits");
      // Progress no longer resets it: the same call is cut at 1 s.
      await session.clickText(".call-limits label", "Progress resets the timeout");
      await session.waitForTexts(".call-limits .disclosure-title", (t) => t.some((x) => x.includes("progress does not reset")));
      await session.clickText(".run-bar button", "Run");
      const [cut] = await session.waitForTexts(".tool-panel [role=alert] .error-message", (t) => t.length === 1, 20_000);
      assert.match(cut, /no answer within 1\.0 s/);
    } finally {
      await session.close();
    }
  });
  it("follows a task live: its approval asked midway, its result; cancelling tells the server", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      // The 2026-07-28 extension: the server makes a task and asks for input in it.
      await session.type(await session.find("input[aria-label='Search tools']"), "task_approval");
      await session.click(await session.find(".tool-row[data-qualified='local__task_approval']"));
      await session.waitForTexts(".tool-panel .badge-tasks", (t) => t.includes("runs as a task"));
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".task-strip .task-strip-lead", (t) => t.includes("Running as a task"));
      const [title] = await session.waitForTexts("[role=dialog] h2", (t) => t.length === 1);
      assert.match(title, /^local asks you for input/);
      await session.click(await session.find("[role=dialog] input[type=checkbox]"));
      await session.screenshot("task-input");
      await session.clickText("[role=dialog] button", "Accept");
      const [text] = await session.waitForTexts(".result .block-text", (t) => t.length === 1);
      assert.equal(text.trim(), "approved and done");
      await session.waitForTexts(".task-strip .task-status", (t) => t.includes("completed"));
      const [lead] = await session.texts(".task-strip .task-strip-lead");
      assert.equal(lead, "Ran as a task");
      await session.screenshot("task-completed");
      // History keeps the task the call ran as.
      await session.clickText("[role=tab]", "History");
      const rows = await session.waitForTexts(".history-row .history-tool", (t) => t.includes("local/task_approval"));
      const all = await session.findAll(".history-row");
      await session.click(all[rows.indexOf("local/task_approval")]);
      await session.waitForTexts(".call-detail .task-strip .task-status", (t) => t.includes("completed"));
      await session.clickText("[role=tab]", "Tools");

      // "Ask for a task" where it changes something: an optional tool of a
      // 2025-11-25 server (a 2026-07-28 server chooses by itself).
      const search = await session.find("input[aria-label='Search tools']");
      await session.replaceText(search, "task_report");
      const switchOf = async (qualified) => {
        await session.click(await session.find(`.tool-row[data-qualified='${qualified}']`));
        await session.waitForTexts(".tool-panel h2 code", (t) => t.includes(qualified));
        return (await session.texts(".run-bar .switch-row label")).some((l) => l.startsWith("Ask for a task"));
      };
      assert.equal(await switchOf("local__task_report"), false);
      assert.equal(await switchOf("tasks25__task_report"), true);

      // The 2025-11-25 form: a long task, cancelled from the panel.
      await session.replaceText(search, "task_batch");
      await session.click(await session.find(".tool-row[data-qualified='tasks25__task_batch']"));
      await session.clickText(".tool-panel .toolbar button", "JSON");
      const raw = await session.find("textarea.raw-args");
      await session.replaceText(raw, '{"steps": 100, "step_ms": 200}');
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".task-strip .task-message", (t) => t.some((m) => /step \d+ of 100/.test(m)));
      await session.clickText(".run-bar button", "Cancel task");
      const [message] = await session.waitForTexts(".tool-panel .call-cancelled", (t) => t.length === 1);
      assert.match(message, /Cancelled at your request: the server was asked to stop the task/);
      await session.waitForTexts(".task-strip .task-status", (t) => t.includes("cancelled"));
      // The server agrees: its list (tasks/list) has the task cancelled.
      await session.clickText(".server .server-name", "tasks25");
      await session.clickText(".panel-section .disclosure-trigger", "Tasks");
      await session.waitForTexts("ol[aria-label=Tasks] li", (t) => t.some((r) => r.includes("cancelled")));
      await session.screenshot("tasks-list");
    } finally {
      await session.close();
    }
  });

  it("subscribes to a 2026-07-28 server's resource: its update comes on the listen stream", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Resources");
      const pick = (uri, server) =>
        session.executeAsync(
          "const [uri, server, done] = arguments; const row = Array.from(document.querySelectorAll(`.tool-row[data-uri='${uri}']`)).find((r) => r.querySelector('.tool-meta').innerText.startsWith(server)); if (row) row.click(); done(Boolean(row));",
          [uri, server],
        );
      let picked = false;
      for (let i = 0; i < 50 && !picked; i += 1) {
        picked = await pick("demo://counter", "local");
        if (!picked) await new Promise((r) => setTimeout(r, 200));
      }
      assert.ok(picked, "local's demo://counter is listed");
      await session.clickText(".run-bar button", "Read");
      const [before] = await session.waitForTexts(".resource-detail .resource-content pre", (t) => t.length === 1 && /^\d+$/.test(t[0]));
      await session.clickText(".run-bar button", "Subscribe");
      await session.waitForTexts(".tool-row.selected .badge", (t) => t.includes("subscribed"));
      await session.clickText("[role=tab]", "Tools");
      const search = await session.find("input[aria-label='Search tools']");
      await session.replaceText(search, "increment_counter");
      await session.click(await session.find(".tool-row[data-qualified='local__increment_counter']"));
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".result .block-text", (t) => t.length === 1);
      await session.clickText("[role=tab]", "Resources");
      // The open resource was read again on the server's word: it shows what it holds now.
      await session.waitForTexts(".resource-detail .resource-content pre", (t) => t[0] === String(Number(before) + 1));
      const [said] = await session.waitForTexts(".resource-detail [role=status]", (t) => t.length === 1);
      assert.match(said, /^Read again at .*: the server said it changed\.$/);
      const badges = await session.waitForTexts(".tool-row.selected .badge", (t) => t.includes("subscribed"));
      assert.ok(!badges.includes("updated"), `read since it changed: ${badges}`);
      await session.screenshot("resource-updated");
    } finally {
      await session.close();
    }
  });

  it("answers a server's elicitation in a form and the tool gets the answer", async () => {
    const session = await driver.session(["--config", config]);
    try {
      // The window opens on the view used last; start from Tools.
      await session.clickText("[role=tab]", "Tools");
      await session.type(await session.find("input[aria-label='Search tools']"), "ask_user");
      await session.click(await session.find(".tool-row[data-qualified='old__ask_user']"));
      await session.clickText(".run-bar button", "Run");
      const [title] = await session.waitForTexts("[role=dialog] h2", (t) => t.length === 1);
      assert.match(title, /^old asks you for input/);
      await session.type(await session.find("[role=dialog] input[type=text]"), "Ada");
      await session.screenshot("elicitation");
      await session.clickText("[role=dialog] button", "Accept");
      const [text] = await session.waitForTexts(".result .block-text", (t) => t.length === 1 && t[0].includes("action"));
      assert.match(text, /action: accept; content: .*"name":"Ada"/);
    } finally {
      await session.close();
    }
  });
  // "local" speaks 2026-07-28: the server cannot ask by itself, so its tool
  // answers input_required and the window is asked in its place.
  it("opens a URL elicitation's address in the browser only when the user chooses to", async () => {
    const session = await driver.session(["--config", config]);
    const opened = join(driver.env.HOME, "opened-urls.txt");
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.type(await session.find("input[aria-label='Search tools']"), "sign_in");
      await session.click(await session.find(".tool-row[data-qualified='local__sign_in']"));
      await session.clickText(".run-bar button", "Run");
      const [address] = await session.waitForTexts("[role=dialog] .ask-url code", (t) => t.length === 1);
      assert.equal(address, "https://example.com/mcp-demo/sign-in");
      assert.ok(!existsSync(opened), "nothing was opened before the user chose to");
      await session.screenshot("elicitation-url");
      await session.clickText("[role=dialog] button", "Open in browser");
      const [text] = await session.waitForTexts(".result .block-text", (t) => t.length === 1 && t[0].includes("action"));
      assert.equal(text.trim(), "action: accept");
      assert.equal(readFileSync(opened, "utf8").trim(), "https://example.com/mcp-demo/sign-in");
    } finally {
      await session.close();
    }
  });

  it("checks the form before sending, and sends anyway when asked (the server's own check answers)", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.type(await session.find("input[aria-label='Search tools']"), "create_order");
      await session.click(await session.find(".tool-row[data-qualified='local__create_order']"));
      await session.clickText(".run-bar button", "Run");
      const [blocked] = await session.waitForTexts(".run-problems", (t) => t.length === 1);
      assert.match(blocked, /customer\/name: required/);
      assert.match(blocked, /customer\/email: required/);
      await session.clickText(".run-problems button", "Send anyway");
      // The server answers for itself: an error result (no item), or a JSON-RPC error.
      await session.waitForTexts(".tool-panel .result-status, .tool-panel [role=alert] .error-message", (t) => t.length >= 1, 20_000);
    } finally {
      await session.close();
    }
  });
});
