// The window's memory at rest beside the MCP Inspector's, as a person has
// each: one server configured, a fresh home, PSS 15 s after launch, median of
// three launches of each taken in turn. The workbench: its process and its
// WebKit helpers (the MCP server it runs is not counted). The Inspector: its
// node process and one Chromium window on its page (each Chromium process:
// browser, GPU, network, renderer, zygotes); at that moment its server is not
// connected (it connects on a click), so it runs no server either. Measured
// (not asserted) by `cargo xtask bench` on the release build under Xvfb,
// which installs the Inspector (npm) and Chromium (Debian) for it; without
// them only the workbench's side is printed. Beside both, WebKitGTK alone:
// its MiniBrowser on about:blank — the floor any WebKitGTK window stands on.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { APP_BINARY, demoConfig, hermeticHome } from "./harness.mjs";
import { alive, breakdown, descendants, memory, pss } from "./procs.mjs";

const ROUNDS = Number(process.env.MEMORY_ROUNDS ?? 3);
const AT_MS = 15_000;
const INSPECTOR = process.env.INSPECTOR_LAUNCHER;
// WebKitGTK's own minimal browser (in libwebkit2gtk-4.1-0, which the app
// runs on): on about:blank, what any WebKitGTK window costs here.
const MINIBROWSER = process.env.MINIBROWSER ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const CHROMIUM = process.env.CHROMIUM ?? "chromium";

const env = { ...process.env, ...hermeticHome() };
const config = demoConfig(env.HOME, "memory.json", "demo", "demo");

/** Ends `child` and everything under it, and waits until they are gone. */
async function end(child) {
  const tree = [child.pid, ...descendants(child.pid).map((c) => c.pid)];
  for (const pid of tree.reverse()) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      // gone already
    }
  }
  for (let waited = 0; waited < 10_000 && tree.some(alive); waited += 50) await sleep(50);
  for (const pid of tree.filter(alive)) process.kill(pid, "SIGKILL");
}

const sum = (pids) =>
  pids.reduce((total, pid) => {
    try {
      return total + pss(pid);
    } catch {
      return total; // exited meanwhile
    }
  }, 0);

async function workbench() {
  const app = spawn(APP_BINARY(), ["--trust", "--config", config], { env, stdio: "ignore" });
  try {
    await sleep(AT_MS);
    const m = memory(app.pid);
    return { own: m.app, browser: m.webkit, ...breakdown(app.pid) };
  } finally {
    await end(app);
  }
}

async function inspector() {
  const home = mkdtempSync(join(tmpdir(), "inspector-home-"));
  const started = Date.now();
  const node = spawn(process.execPath, [INSPECTOR, "--web", "--config", config], {
    env: { ...env, HOME: home, MCP_AUTO_OPEN_ENABLED: "false", MCP_INSPECTOR_SECRET_STORE: "memory" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  let out = "";
  node.stdout.on("data", (d) => (out += d));
  let chromium = null;
  try {
    let url = null;
    while (!url && Date.now() - started < AT_MS) {
      url = /http:\/\/127\.0\.0\.1:\d+\S*API_TOKEN=\S+/.exec(out)?.[0] ?? null;
      await sleep(50);
    }
    if (!url) throw new Error(`the Inspector did not say its address:\n${out}`);
    const sandbox = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
    chromium = spawn(CHROMIUM, [...sandbox, "--no-first-run", "--no-default-browser-check", `--user-data-dir=${join(home, "chromium")}`, url], {
      env: { ...env, HOME: home },
      stdio: "ignore",
    });
    await sleep(Math.max(0, AT_MS - (Date.now() - started)));
    const own = sum([node.pid, ...descendants(node.pid).map((c) => c.pid)]);
    const browser = sum([chromium.pid, ...descendants(chromium.pid).map((c) => c.pid)]);
    return { own, browser };
  } finally {
    if (chromium) await end(chromium);
    await end(node);
  }
}

// Without a GPU the app paints on the CPU (src-tauri/src/startup.rs): its
// own process then holds the page's pixels (1200x800x4: 3.7 MiB) where with
// GL they are WebKit's. MiniBrowser is set against it painting the same way,
// and, beside that, as it starts by itself (GL on Mesa's llvmpipe here).
const NO_GPU = !(() => {
  try {
    return readdirSync("/dev/dri").some((n) => n.startsWith("renderD"));
  } catch {
    return false;
  }
})();
const PAINTS_AS_THE_APP = NO_GPU ? { GDK_GL: "disable", WEBKIT_SKIA_ENABLE_CPU_RENDERING: "1" } : {};

/** WebKitGTK alone: MiniBrowser on about:blank — its own process (the
 * UI process a WebKitGTK window needs: GTK, the view) and its WebKit
 * processes; `paint`: the rendering environment it starts in. */
async function webkitAlone(paint = PAINTS_AS_THE_APP) {
  const browser = spawn(MINIBROWSER, ["about:blank"], { env: { ...env, ...paint }, stdio: "ignore" });
  try {
    await sleep(AT_MS);
    const m = memory(browser.pid);
    return { own: m.app, browser: m.webkit, ...breakdown(browser.pid) };
  } finally {
    await end(browser);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (kb) => `${(kb / 1024).toFixed(0)} MiB`;
const peer = INSPECTOR && existsSync(INSPECTOR);
if (!peer) console.log("memory: the MCP Inspector is not installed (INSPECTOR_LAUNCHER; `cargo xtask bench` installs it): the workbench only");

const ours = [];
const theirs = [];
for (let r = 0; r < ROUNDS; r++) {
  // Taken in turn, the order flipping, so a slow moment falls on both.
  const pair = r % 2 === 0 || !peer ? [workbench, ...(peer ? [inspector] : [])] : [inspector, workbench];
  for (const f of pair) (f === workbench ? ours : theirs).push(await f());
}
const floor = [];
const floorGl = [];
if (existsSync(MINIBROWSER))
  for (let r = 0; r < ROUNDS; r++) {
    floor.push(await webkitAlone());
    if (NO_GPU) floorGl.push(await webkitAlone({}));
  }
const total = (xs) => median(xs.map((x) => x.own + x.browser));
const part = (xs, k) => median(xs.map((x) => x[k]));
console.log(`idle memory, one server, PSS ${AT_MS / 1000} s after launch (the build shipped: the app profile; Xvfb, median of ${ROUNDS}):`);
console.log(`  MCP Workbench ${mib(total(ours))} (its process ${mib(part(ours, "own"))}, WebKit ${mib(part(ours, "browser"))}; each: ${ours.map((x) => mib(x.own + x.browser)).join(", ")})`);
if (peer) {
  console.log(`  MCP Inspector ${mib(total(theirs))} (node ${mib(part(theirs, "own"))}, Chromium ${mib(part(theirs, "browser"))}; each: ${theirs.map((x) => mib(x.own + x.browser)).join(", ")})`);
  console.log(`  workbench / Inspector: ${(total(ours) / total(theirs)).toFixed(2)}x (goal <= 0.33x)`);
}
if (floor.length) {
  const f = total(floor);
  const against = peer ? `: ${(f / total(theirs)).toFixed(2)}x of the Inspector by itself` : "";
  console.log(`  WebKitGTK alone (its MiniBrowser on about:blank, with its WebKit processes) ${mib(f)}${against}; the workbench costs ${mib(total(ours) - f)} more`);
  // The app's own process against the UI process any WebKitGTK window
  // needs: what the core, its threads, the store and the catalog hold.
  const own = part(ours, "own");
  const mini = part(floor, "own");
  const over = own - mini;
  const how = NO_GPU ? ", both painting on the CPU as the app does without a GPU" : "";
  console.log(
    `  the app's own process ${mib(own)} against MiniBrowser's ${mib(mini)}${how}: ${mib(over)} over (${(own / mini).toFixed(2)}x; target <= +25 MiB: ${over <= 25 * 1024 ? "met" : "not met"})`,
  );
  if (floorGl.length) {
    const gl = part(floorGl, "own");
    console.log(`    (MiniBrowser as it starts by itself, GL on Mesa's llvmpipe: its process ${mib(gl)}, the app ${mib(own - gl)} over it)`);
  }
  // Where the difference lies: the app's own executable (its code is
  // mapped in runs around each page start-up touches) and anonymous memory.
  console.log(
    `    of which its executable's pages ${mib(part(ours, "exe"))} (MiniBrowser's ${mib(part(floor, "exe"))}), anonymous ${mib(part(ours, "anon"))} (MiniBrowser's ${mib(part(floor, "anon"))})`,
  );
  // What the shipped build's link said of the start-up order (xtask's startup_order).
  const order = join(dirname(APP_BINARY()), "startup-order.report");
  console.log(`    ${existsSync(order) ? readFileSync(order, "utf8").trim() : "startup order: not applied (no report beside the app)"}`);
}
