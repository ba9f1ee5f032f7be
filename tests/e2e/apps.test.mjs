// MCP Apps in the real window: the demo server's counter App renders after
// a call from the tool panel and from the chat, on its own origin behind the
// sandbox proxy; its button's tools/call is approved and its result reaches
// the App; a link asks first, with the whole address; the App cannot reach
// the window's IPC, Tauri's globals or the window's DOM; a request to a
// domain it did not declare is blocked and shown in the App panel.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, scriptedLlm, scriptedProvider, demoConfig } from "./harness.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));


/**
 * Click an App's button until its answer shows (a click into a nested frame
 * is now and then not delivered); only for buttons that may run twice.
 */
async function clickUntil(session, css, answer) {
  for (let attempt = 1; ; attempt++) {
    await session.click(await session.find(css));
    try {
      return await session.waitForTexts("#answer", (t) => answer(t[0] ?? ""), 4_000);
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
}

/**
 * Into the App's own document (the window → the sandbox proxy → the App).
 * A frame drawn anew between being found and entered (the chat laying out
 * the turn's answer) is found again.
 */
async function intoApp(session, scope = "") {
  for (let attempt = 1; ; attempt++) {
    try {
      await session.leaveFrames();
      await session.enterFrame(await session.find(`${scope} .app-host iframe.app-frame`, 20_000));
      await session.enterFrame(await session.find("iframe", 15_000));
      return;
    } catch (e) {
      if (attempt >= 3 || !String(e).includes("stale element")) throw e;
    }
  }
}

describe("apps", () => {
  let driver;
  let llm;
  let config;
  before(async () => {
    driver = await Driver.start();
    llm = await scriptedLlm(driver.env.HOME, [
      { when: "show the counter", text: "Here is the counter.", tool_calls: [{ name: "demo__counter_app", arguments: { note: "from chat" } }] },
      { when: "The counter is", text: "The App shows the counter." },
      { when: "counter App says", text: "Thanks, App." },
      // Arguments streamed slowly: the App shows while they are written.
      // It stops partway until the test has seen the App show the input so far.
      { when: "write it slowly", delay_ms: 80, hold: { after: 5, until: join(driver.env.HOME, "go-on-writing") }, tool_calls: [{ name: "demo__counter_app", arguments: { note: "a note the model takes its time to write, six characters at a time" } }] },
      { when: "The counter is 0", text: "Written." },
      // The published budget App, twice in one chat, a long answer between.
      { when: "show the budget", tool_calls: [{ name: "budget__get-budget-data", arguments: {} }] },
      { when: "show the budget", text: "Here is the budget." },
      { when: "budget once more", tool_calls: [{ name: "budget__get-budget-data", arguments: {} }] },
      { when: "budget once more", text: `Here it is again.\n\n${Array.from({ length: 120 }, (_, i) => `Line ${i + 1} of a long answer.`).join("\n\n")}` },
    ]);
    config = demoConfig(driver.env.HOME, "apps.json", "e2e-apps", "demo");
    // The provider, as the Settings room would write it.
    scriptedProvider(driver.env, llm.url);
  });
  after(async () => {
    llm?.child.kill("SIGTERM");
    await driver?.stop();
  });

  it("renders the App after a call from the tool panel, isolated, its calls approved, links asked, undeclared domains blocked", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.waitForTexts(".tool-row", (t) => t.length >= 5);
      await session.type(await session.find("input[aria-label='Search tools']"), "counter_app\uE007");
      await session.waitForTexts(".tool-panel h2 code", (t) => t.includes("demo__counter_app"));
      await session.clickText(".run-bar button", "Run");

      // The App: its handshake done, the tool's input and result shown, on its own origin.
      await intoApp(session);
      await session.waitForTexts("#status", (t) => t[0] === "Showing the tool's result", 20_000);
      assert.deepEqual(await session.texts("#host"), ["MCP Workbench"]);
      assert.deepEqual(await session.texts("#count"), ["0"]);
      const [origin] = await session.texts("#origin");
      assert.match(origin, /^mcpapp:\/\/a[0-9a-f]{16}$/, "each App on an origin of its own");

      // Nothing of the window is within reach.
      await session.click(await session.find("#escape"));
      const tried = await session.waitForTexts("#escaped li", (t) => t.length === 4, 10_000);
      assert.deepEqual(
        tried,
        ["window.__TAURI__: blocked", "window.__TAURI_INTERNALS__: blocked", "the window's DOM: blocked", "the window's IPC: blocked"],
      );

      // A domain it did not declare: blocked by its CSP.
      await clickUntil(session, "#undeclared", (a) => a === "undeclared fetch blocked");

      // Its button calls an App-only tool: the person is asked first.
      await session.click(await session.find("#bump"));
      await session.leaveFrames();
      const [head] = await session.waitForTexts(".app-approval .approval-head", (t) => t.length === 1, 15_000);
      assert.match(head, /Run app_bump on demo\?/);
      // The stop_server the App sent to Tauri's IPC with a guessed key did
      // nothing: the demo server still runs.
      assert.equal((await session.findAll(".state.ready")).length, 1, "the demo server is still ready");
      assert.equal((await session.findAll(".state.muted")).length, 0);
      await session.screenshot("app-approval");
      await session.clickText(".app-approval .approval-actions button", "Allow once");
      await intoApp(session);
      await session.waitForTexts("#answer", (t) => t[0] === "bumped to 1", 15_000);
      assert.deepEqual(await session.texts("#count"), ["1"]);

      // A tool only the model may call: refused to the App.
      await clickUntil(session, "#modelonly", (a) => /^refused: .*not visible to apps/.test(a));

      // Fullscreen when it asks, and back inline.
      await session.click(await session.find("#fullscreen"));
      await session.waitForTexts("#mode", (t) => t[0] === "fullscreen", 10_000);
      await session.leaveFrames();
      await session.find(".app-host.app-mode-fullscreen");
      await session.screenshot("app-fullscreen");
      await session.clickText(".app-mode-bar button", "Back inline");
      await intoApp(session);
      await session.waitForTexts("#mode", (t) => t[0] === "inline", 10_000);

      // A link: the whole address shown before anything opens; cancelled here.
      await session.click(await session.find("#link"));
      await session.leaveFrames();
      const [url] = await session.waitForTexts(".app-link-url", (t) => t.length === 1, 10_000);
      assert.equal(url, "https://modelcontextprotocol.io/extensions/apps");
      await session.screenshot("app-link");
      await session.clickText("[role=dialog] button", "Cancel");
      await intoApp(session);
      await session.waitForTexts("#answer", (t) => t[0] === "link refused: Link opening denied by user", 10_000);

      // The App panel: the blocked request with what to declare, the messages both ways.
      await session.leaveFrames();
      await session.clickText(".app-panel button", "App panel");
      await session.clickText(".app-panel .segmented-item", "CSP");
      const violations = await session.waitForTexts(".app-violations li", (t) => t.some((v) => v.includes("undeclared.example.org")), 10_000);
      const blocked = violations.find((v) => v.includes("undeclared.example.org"));
      assert.match(blocked, /connectDomains: \["https:\/\/undeclared\.example\.org"\]/);
      const [policy] = await session.texts(".app-csp-policy");
      assert.match(policy, /connect-src https:\/\/api\.example\.com;/);
      await session.executeAsync("const done = arguments[arguments.length - 1]; document.querySelector('.app-panel').scrollIntoView(); requestAnimationFrame(() => done(true));");
      await session.screenshot("app-panel-csp");
      await session.clickText(".app-panel .segmented-item", "Messages");
      const methods = await session.texts(".app-log-method");
      for (const m of ["ui/initialize", "ui/notifications/initialized", "ui/notifications/tool-input", "ui/notifications/tool-result", "tools/call", "ui/open-link"]) {
        assert.ok(methods.includes(m), `${m} in the App panel: ${methods}`);
      }
      assert.deepEqual(await session.axe(".tool-panel"), [], "axe clean outside the frame");

      // Dark, as the App sees it when the window switches.
      await session.screenshot("app-light");
      await session.click(await session.find("button[aria-label='Dark theme']"));
      await intoApp(session);
      await session.waitForTexts("#theme", (t) => t[0] === "dark", 10_000);
      await session.leaveFrames();
      await session.screenshot("app-dark");
      await session.click(await session.find("button[aria-label='Light theme']"));

      // The window made narrower: the App is told its new width.
      await intoApp(session);
      const [wide] = await session.waitForTexts("#width", (t) => /^\d+$/.test(t[0] ?? ""), 10_000);
      await session.leaveFrames();
      await session.resize(1000, 800);
      await intoApp(session);
      await session.waitForTexts("#width", (t) => /^\d+$/.test(t[0] ?? "") && Number(t[0]) < Number(wide), 10_000);
      await session.leaveFrames();
      await session.resize(1280, 900);

      // The App's call is in History (origin app) and its messages in Traffic.
      await session.clickText("[role=tab]", "History");
      await session.waitForTexts(".history-row", (t) => t.some((r) => r.includes("app_bump") && /\bapp\b/.test(r)), 15_000);
      // Opened in History, the call shows its App again (with that call's result).
      await session.executeAsync(
        "const done = arguments[arguments.length - 1]; const row = [...document.querySelectorAll('.history-row')].find((r) => r.innerText.includes('app_bump')); row.click(); done(true);",
      );
      await intoApp(session, ".history-detail");
      await session.waitForTexts("#count", (t) => t[0] === "1", 15_000);
      await session.leaveFrames();
      await session.clickText("[role=tab]", "Traffic");
      const dirs = await session.waitForTexts(".traffic-row .t-dir", (t) => t.includes("App →") && t.includes("→ App"), 15_000);
      assert.ok(dirs.length > 0);
      // The App bridge's rows read whole: direction and id not cut to "A…".
      const cut = await session.cmd("POST", "/execute/sync", {
        script:
          "return [...document.querySelectorAll('.traffic-row')].filter((r) => /App/.test(r.querySelector('.t-dir')?.innerText || '')).flatMap((r) => [...r.querySelectorAll('.t-dir, .t-id')]).filter((c) => c.scrollWidth > c.clientWidth + 1).map((c) => c.innerText);",
        args: [],
      });
      assert.deepEqual(cut, [], "cells cut short");
    } finally {
      await session.leaveFrames().catch(() => undefined);
      await session.close();
    }
  });

  it("renders the App in the chat; its message becomes the chat's next message", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Chat");
      await session.newChat();
      await session.type(await session.find("textarea[aria-label=Message]"), "show the counter\uE007");
      await session.waitForTexts(".approval-head", (t) => t.length === 1, 30_000);
      await session.clickText(".approval-actions button", "Allow once");
      await intoApp(session, ".tool-card");
      await session.waitForTexts("#status", (t) => t[0] === "Showing the tool's result", 20_000);
      assert.deepEqual(await session.texts("#input"), ['{"note":"from chat"}']);
      const [before] = await session.texts("#origin");
      await session.leaveFrames();
      await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("The App shows the counter.")), 30_000);
      await intoApp(session, ".tool-card");
      await session.waitForTexts("#status", (t) => t[0] === "Showing the tool's result", 20_000);
      // The App stays the same App when the turn's answer is stored.
      assert.deepEqual(await session.texts("#origin"), [before]);
      // The App's message waits for the person: shown, sent only on Send.
      // A click that lands while the chat below is still laying out the
      // turn's answer can miss the button: pressed again, as a person would.
      for (let attempt = 1; ; attempt++) {
        await session.click(await session.find("#message"));
        await session.leaveFrames();
        try {
          await session.waitForTexts(".app-message-ask .app-message-text", (t) => t.some((x) => x.includes("The counter App says the count is")), attempt < 3 ? 5_000 : 15_000);
          break;
        } catch (e) {
          if (attempt >= 3) throw e;
          await intoApp(session, ".tool-card");
        }
      }
      assert.equal((await session.texts(".msg-user")).filter((x) => x.includes("The counter App says")).length, 0, "sent before the person said so");
      await session.screenshot("app-message-ask");
      await session.clickText(".app-message-ask button", "Send");
      await session.waitForTexts(".msg-user", (t) => t.some((x) => x.includes("The counter App says the count is")), 15_000);
      await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("Thanks, App.")), 30_000);
      await session.screenshot("app-chat");

      // While the model writes a call's arguments, its App already shows them.
      // Focus was left on the App's button: a person clicks the box first.
      const box = await session.find("textarea[aria-label=Message]");
      await session.click(box);
      await session.type(box, "write it slowly\uE007");
      await intoApp(session, ".tool-card.writing");
      await session.waitForTexts("#status", (t) => t[0] === "The model is writing the input", 20_000);
      const [sofar] = await session.texts("#input");
      assert.ok(sofar.startsWith('{"note":"a') && !sofar.includes("six characters"), `the input so far: ${sofar}`);
      await session.leaveFrames();
      writeFileSync(join(driver.env.HOME, "go-on-writing"), "");
      await session.waitForTexts(".approval-head", (t) => t.length === 1, 60_000);
      await session.clickText(".approval-actions button", "Allow once");
      await session.clickText("[role=tab]", "Traffic");
      const methods = await session.waitForTexts(".traffic-row .t-method", (t) => t.includes("ui/notifications/tool-input-partial"), 15_000);
      assert.ok(methods.includes("ui/notifications/tool-input"), "the whole input follows the partial ones");
    } finally {
      await session.leaveFrames().catch(() => undefined);
      await session.close();
    }
  });

  // A published example App (npm, installed by cargo xtask test): built on
  // the ext-apps SDK, it must complete the handshake and call its server.
  const published = join(process.env.MCPWB_THIRD_PARTY ?? "", "node_modules/.bin/mcp-server-basic-vanillajs");
  it("renders a published example App and its call to its server comes back", { skip: !existsSync(published) && "the third-party servers are not installed (cargo xtask test installs them)" }, async () => {
    const cfg = join(driver.env.HOME, "published.json");
    writeFileSync(cfg, JSON.stringify({ mcpServers: { basic: { command: published, args: ["--stdio"] } } }));
    const session = await driver.session(["--config", cfg]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.waitForTexts(".tool-row", (t) => t.some((r) => r.includes("get-time")), 30_000);
      await session.type(await session.find("input[aria-label='Search tools']"), "get-time\uE007");
      await session.waitForTexts(".tool-panel h2 code", (t) => t.includes("basic__get-time"), 30_000);
      await session.clickText(".run-bar button", "Run");
      await intoApp(session);
      // The SDK's App shows the time the tool returned once it has the result.
      const [first] = await session.waitForTexts("#server-time", (t) => /\d{4}-\d\d-\d\dT/.test(t[0] ?? ""), 20_000);
      await session.click(await session.find("#get-time-btn"));
      await session.leaveFrames();
      // get-time is a tool the App may call: the person is asked.
      await session.waitForTexts(".app-approval .approval-head", (t) => t.length === 1, 15_000);
      await session.clickText(".app-approval .approval-actions button", "Allow once");
      await intoApp(session);
      await session.waitForTexts("#server-time", (t) => (t[0] ?? "") !== first && /\d{4}-/.test(t[0] ?? ""), 15_000);
      await session.leaveFrames();
      await session.clickText(".app-panel button", "App panel");
      const methods = await session.texts(".app-log-method");
      for (const m of ["ui/initialize", "ui/notifications/initialized", "ui/notifications/tool-result", "tools/call"]) {
        assert.ok(methods.includes(m), `${m} in the App panel: ${methods}`);
      }
      await session.screenshot("app-published");
    } finally {
      await session.leaveFrames().catch(() => undefined);
      await session.close();
    }
  });

  // The walk's play with the published budget App: the person moves a
  // slider (by keyboard, inside the App), a second budget App and a long
  // answer push the first far out of view; back in view, it is the same
  // App with the person's allocation, not a fresh one.
  const budget = join(process.env.MCPWB_THIRD_PARTY ?? "", "node_modules/.bin/mcp-budget-allocator-server");
  it("keeps an App the person used alive in a long chat", { skip: !existsSync(budget) && "the third-party servers are not installed (cargo xtask test installs them)" }, async () => {
    const cfg = join(driver.env.HOME, "budget.json");
    writeFileSync(cfg, JSON.stringify({ mcpServers: { budget: { command: budget, args: ["--stdio"] } } }));
    const session = await driver.session(["--config", cfg]);
    try {
      await session.clickText("[role=tab]", "Chat");
      await session.newChat();
      await session.type(await session.find("textarea[aria-label=Message]"), "show the budget\uE007");
      await session.waitForTexts(".approval-head", (t) => t.length === 1, 30_000);
      await session.clickText(".approval-actions button", "Allow once");
      await intoApp(session, ".tool-card");
      const [before] = await session.waitForTexts("#status-bar", (t) => /Allocated/.test(t[0] ?? "") && !/\$0 \/ \$0/.test(t[0] ?? ""), 30_000);
      // The person moves the first slider with the keyboard.
      // The App may draw its sliders again when the call's result follows
      // its input (a slider found before that is gone): found again, tried
      // again, as a person whose first press did nothing would.
      let moved;
      for (let attempt = 1; !moved; attempt++) {
        const slider = await session.find("#sliders-container input[type=range]");
        await session.click(slider);
        for (let i = 0; i < 8; i++) await session.keys("\uE014");
        try {
          [moved] = await session.waitForTexts("#status-bar", (t) => (t[0] ?? "") !== before, attempt < 3 ? 4_000 : 10_000);
        } catch (e) {
          if (attempt >= 3) throw e;
        }
      }
      await session.leaveFrames();
      // A second budget App and a long answer.
      const box = await session.find("textarea[aria-label=Message]");
      await session.click(box);
      await session.type(box, "budget once more\uE007");
      await session.waitForTexts(".approval-head", (t) => t.length === 1, 30_000);
      await session.clickText(".approval-actions button", "Allow once");
      await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("Line 120 of a long answer.")), 30_000);
      // The first App far out of view, long enough to be given up if it could be.
      await session.executeAsync("const done = arguments[arguments.length - 1]; const c = document.querySelector('.conversation'); c.scrollTop = c.scrollHeight; setTimeout(done, 2500);");
      // The second App, never used, may be given up out of view; the first, used, never.
      const given = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; done(Array.from(document.querySelectorAll('.tool-card')).map((c) => !!c.querySelector('.app-loading')));",
      );
      assert.equal(given[0], false, `the App the person used was unloaded: ${JSON.stringify(given)}`);
      await session.executeAsync("const done = arguments[arguments.length - 1]; document.querySelector('.conversation').scrollTop = 0; setTimeout(done, 800);");
      await intoApp(session, ".tool-card");
      const [back] = await session.waitForTexts("#status-bar", (t) => /Allocated/.test(t[0] ?? ""), 15_000);
      assert.equal(back, moved, "the App the person used kept its state");
      await session.leaveFrames();
      await session.screenshot("app-kept");
    } finally {
      await session.leaveFrames().catch(() => undefined);
      await session.close();
    }
  });

  // The SDK's React example and its debug server (every capability): each
  // App rendered, its handshake done, no console errors.
  for (const [bin, tool] of [
    ["mcp-server-basic-react", "get-time"],
    ["mcp-server-debug", "debug-tool"],
  ]) {
    const path = join(process.env.MCPWB_THIRD_PARTY ?? "", "node_modules/.bin", bin);
    it(`renders the published ${bin} App without console errors`, { skip: !existsSync(path) && "the third-party servers are not installed (cargo xtask test installs them)" }, async () => {
      const cfg = join(driver.env.HOME, `${bin}.json`);
      writeFileSync(cfg, JSON.stringify({ mcpServers: { pub: { command: path, args: ["--stdio"] } } }));
      const session = await driver.session(["--config", cfg]);
      try {
        await session.clickText("[role=tab]", "Tools");
        await session.waitForTexts(".tool-row", (t) => t.some((r) => r.includes(tool)), 30_000);
        await session.type(await session.find("input[aria-label='Search tools']"), `${tool}\uE007`);
        await session.waitForTexts(".tool-panel h2 code", (t) => t.includes(`pub__${tool}`), 15_000);
        await session.clickText(".run-bar button", "Run");
        const [ready] = await session.waitForTexts(".app-panel .badge", (t) => t.some((b) => b.startsWith("ready in")), 30_000).then((t) => t.filter((b) => b.startsWith("ready in")));
        assert.match(ready, /^ready in \d+ ms$/);
        await sleep(1000);
        await session.clickText(".app-panel button", "App panel");
        await session.clickText(".app-panel .segmented-item", "Console");
        const lines = await session.texts(".app-console li");
        assert.deepEqual(lines.filter((l) => l.startsWith("error")), [], `no console errors: ${lines}`);
        await session.screenshot(`app-${bin}`);
      } finally {
        await session.leaveFrames().catch(() => undefined);
        await session.close();
      }
    });
  }
});
