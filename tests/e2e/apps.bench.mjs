// MCP Apps in the window, measured (not asserted): how soon an App is up
// after its tool's result arrives — the first time (its resource read) and
// then (read once, kept) — and how a chat with twenty Apps scrolls against
// the same chat with twenty plain tool cards (the baseline, same run).
// Run by `cargo xtask bench` (release build, Xvfb, WebDriver).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, scriptedLlm, scriptedProvider } from "./harness.mjs";

const ROUNDS = Number(process.env.APPS_ROUNDS ?? 10);
const APPS = 20;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];


/** Scroll the chat from top to bottom a step a frame; the frames' intervals in ms. */
async function scrollFrames(session) {
  return session.executeAsync(
    "const done = arguments[arguments.length - 1];" +
      "const box = document.querySelector('.conversation') || document.querySelector('.chat-pane [class*=scroll]');" +
      "box.scrollTop = 0; const times = []; let last = performance.now();" +
      "const step = () => { const now = performance.now(); times.push(now - last); last = now;" +
      "  if (box.scrollTop + box.clientHeight >= box.scrollHeight - 2 || times.length > 600) { done(times.slice(1)); return; }" +
      "  box.scrollTop += 40; requestAnimationFrame(step); };" +
      "requestAnimationFrame(step);",
    [],
    120_000,
  );
}

async function chatWith(session, prompt, cards) {
  await session.clickText("[role=tab]", "Chat");
  await session.clickText(".chat-list-head button", "New chat");
  // The new chat's composer may be drawn again just after it appears.
  await sleep(500);
  for (let attempt = 1; ; attempt++) {
    try {
      await session.type(await session.find("textarea[aria-label=Message]"), `${prompt}\uE007`);
      break;
    } catch (e) {
      if (attempt === 3) throw e;
      await sleep(300);
    }
  }
  await session.waitForTexts(cards, (t) => t.length >= APPS, 120_000);
  await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("All done.")), 120_000);
  await sleep(2000);
}

const driver = await Driver.start();
let llm;
try {
  const demo = process.env.DEMO_SERVER;
  const calls = (tool, args) => Array.from({ length: APPS }, (_, i) => ({ name: `demo__${tool}`, arguments: args(i) }));
  llm = await scriptedLlm(driver.env.HOME, [
    { when: "twenty apps", tool_calls: calls("counter_app", (i) => ({ note: `app ${i}` })) },
    { when: "twenty cards", tool_calls: calls("echo", (i) => ({ message: `card ${i}` })) },
    { when: "The counter is", text: "All done." },
    { when: "card 19", text: "All done." },
  ]);
  const config = join(driver.env.HOME, "bench.json");
  writeFileSync(config, JSON.stringify({ mcpServers: { demo: { command: demo, args: ["--name", "bench"] } } }));
  scriptedProvider(driver.env, llm.url, { tool_policies: { "demo/counter_app": "allow", "demo/echo": "allow" } });
  const session = await driver.session(["--config", config]);
  try {
    // 1. From the result to the App's initialized, in the tool panel.
    await session.clickText("[role=tab]", "Tools");
    await session.waitForTexts(".tool-row", (t) => t.length >= 5, 30_000);
    await session.type(await session.find("input[aria-label='Search tools']"), "counter_app\uE007");
    await session.waitForTexts(".tool-panel h2 code", (t) => t.includes("demo__counter_app"));
    const ready = [];
    for (let i = 0; i < ROUNDS; i++) {
      await session.clickText(".run-bar button", "Run");
      const ms = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; const seen = document.querySelector('.app-host')?.dataset.readyMs; const t = setInterval(() => { const el = document.querySelector('.app-host'); if (el && el.dataset.readyMs && el.dataset.readyMs !== seen) { clearInterval(t); done(Number(el.dataset.readyMs)); } }, 10);",
        [],
        30_000,
      );
      ready.push(ms);
      await sleep(300);
    }
    console.log(`App up after its result: first ${ready[0]} ms (resource read ahead), then median ${median(ready.slice(1))} ms, p90 ${pct(ready.slice(1), 0.9)} ms over ${ROUNDS - 1} (target < 300 ms)`);

    // 2. Twenty Apps in one chat against twenty plain cards.
    await session.resize(1280, 900);
    await chatWith(session, "twenty cards", ".tool-card");
    const plain = await scrollFrames(session);
    await chatWith(session, "twenty apps", ".tool-card .app-host");
    const withApps = await scrollFrames(session);
    // Those in view open again once the scrolling stopped.
    await sleep(1500);
    const live = await session.executeAsync("const done = arguments[arguments.length - 1]; done(document.querySelectorAll('.chat-pane iframe.app-frame').length);");
    const row = (name, xs) => `${name}: ${xs.length} frames, median ${median(xs).toFixed(1)} ms, p95 ${pct(xs, 0.95).toFixed(1)} ms, worst ${Math.max(...xs).toFixed(1)} ms`;
    console.log(row("scrolling 20 plain tool cards (baseline)", plain));
    console.log(row("scrolling 20 Apps", withApps));
    console.log(`p95 frame with Apps / baseline: ${(pct(withApps, 0.95) / pct(plain, 0.95)).toFixed(2)}; App frames alive at the bottom once still: ${live} of ${APPS} (the rest unloaded out of view)`);
  } finally {
    await session.close();
  }
} finally {
  llm?.child.kill("SIGTERM");
  await driver.stop();
}
