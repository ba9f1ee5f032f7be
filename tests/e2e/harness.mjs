// A small W3C WebDriver client and the harness that starts tauri-driver with
// a hermetic environment (temp HOME and XDG folders, temp log folder), so the
// tests never touch the real user config, keychain or app-data folders.
// No npm packages: Node's fetch and node:test are enough.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the e2e tests through \`cargo xtask test\``);
  return value;
}

export const APP_BINARY = () => required("APP_BINARY");
/** The built demo server (DEMO_SERVER), checked to be there. */
export function demoServer() {
  const demo = required("DEMO_SERVER");
  if (!existsSync(demo)) throw new Error(`DEMO_SERVER is ${demo}, which does not exist: build the demo server first`);
  return demo;
}

/** A config file in `dir` with one demo server under `key`, named `name`; its path. */
export function demoConfig(dir, file, name, key = "local") {
  const config = join(dir, file);
  writeFileSync(config, JSON.stringify({ mcpServers: { [key]: { command: demoServer(), args: ["--name", name] } } }));
  return config;
}

export const ARTIFACTS = () => process.env.E2E_ARTIFACTS ?? join(tmpdir(), "mcpwb-e2e");

/** The throwaway homes this test file made: removed when it ends (keep them with E2E_KEEP_HOMES=1). */
const homes = [];
process.on("exit", () => {
  if (process.env.E2E_KEEP_HOMES) return;
  for (const home of homes) removeHome(home);
});

/**
 * Remove a throwaway home. A desktop service the window woke may have
 * mounted a file system in it — the document portal, where
 * xdg-desktop-portal is installed, mounts one at `.cache/doc` (the
 * folder then cannot be removed: EBUSY) — so what is mounted there is
 * let go first. A home that still cannot go is said, not a failed test.
 */
function removeHome(home) {
  let mounts = "";
  try {
    mounts = readFileSync("/proc/self/mounts", "utf8");
  } catch {
    // No /proc: nothing to let go.
  }
  const under = mounts
    .split("\n")
    .map((line) => (line.split(" ")[1] ?? "").replace(/\\040/g, " "))
    .filter((at) => at.startsWith(`${home}/`));
  for (const at of under.reverse()) {
    try {
      execFileSync("fusermount3", ["-u", "-z", at], { stdio: "ignore" });
    } catch {
      try {
        execFileSync("umount", ["-l", at], { stdio: "ignore" });
      } catch {
        // Said below if the home cannot be removed.
      }
    }
  }
  try {
    rmSync(home, { recursive: true, force: true });
  } catch (e) {
    console.error(`# the throwaway home ${home} was left: ${e.message}`);
  }
}

/** A throwaway home for one driver run. */
export function hermeticHome() {
  const home = mkdtempSync(join(tmpdir(), "mcpwb-e2e-home-"));
  homes.push(home);
  const dirs = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local/share"),
    XDG_CACHE_HOME: join(home, ".cache"),
    XDG_STATE_HOME: join(home, ".local/state"),
    MCPWB_LOG_DIR: join(home, "logs"),
  };
  for (const d of Object.values(dirs)) mkdirSync(d, { recursive: true });
  // A stand-in browser first on PATH: what the app asks the desktop to open
  // is written to opened-urls.txt; no real browser is ever started.
  const bin = join(home, "bin");
  mkdirSync(bin);
  mkdirSync(join(home, "saved"));
  const browser = `#!/bin/sh\nprintf '%s\\n' "$*" >> '${join(home, "opened-urls.txt")}'\n`;
  for (const name of ["xdg-open", "gio", "gnome-open", "kde-open", "wslview"]) {
    writeFileSync(join(bin, name), browser, { mode: 0o755 });
  }
  return {
    ...dirs,
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    // Secrets and inputs go to a throwaway keychain namespace, never the user's.
    MCPWB_KEYCHAIN: "keyutils",
    MCPWB_KEYCHAIN_SERVICE: `mcpwb-e2e-${process.pid}-${home.slice(-6)}`,
    // No probing for LLM servers on this machine's ports.
    MCPWB_LOCAL_LLM: "",
    // Exports land here instead of going through a native save dialog.
    MCPWB_SAVE_DIR: join(home, "saved"),
  };
}

/** A loopback port nothing listens on now. */
/**
 * Start the scripted LLM (the one stand-in: no model runs here) with these
 * turns, its script kept in `dir`; resolves to { child, url }.
 */
export function scriptedLlm(dir, turns, name = "script.json") {
  const bin = required("SCRIPTED_LLM");
  const script = join(dir, name);
  writeFileSync(script, JSON.stringify({ turns }));
  const child = spawn(bin, ["--script", script, "--listen", "127.0.0.1:0"], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.once("exit", (code) => reject(new Error(`scripted-llm exited with ${code}`)));
  });
}

/**
 * The agent's settings as the Settings room would write them: the scripted
 * LLM at `url` as the provider, and `agent` fields beside it.
 */
export function scriptedProvider(env, url, agent = {}) {
  const dir = join(env.XDG_CONFIG_HOME, "mcp-workbench");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "settings.json"),
    JSON.stringify({ agent: { providers: [{ id: "scripted", kind: "open_ai_compatible", base_url: `${url}/v1/`, default_model: "scripted-model" }], ...agent } }),
  );
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Make the page paint a few frames (see `Session.screenshot`): a one-pixel
 * square in the corner, all but transparent, changes colour and goes away.
 * A change that draws nothing (an outline colour without an outline) is not
 * painted, and does not do.
 */
const REPAINT = `
  const dot = document.createElement("div");
  dot.setAttribute("aria-hidden", "true");
  dot.style.cssText = "position:fixed;right:0;bottom:0;width:1px;height:1px;pointer-events:none;z-index:2147483647";
  document.body.append(dot);
  let frame = 0;
  const step = () => {
    dot.style.background = frame % 2 ? "rgba(0,0,0,0.01)" : "rgba(255,255,255,0.01)";
    if (++frame < 12) requestAnimationFrame(step);
    else dot.remove();
  };
  requestAnimationFrame(step);`;

/** How much of the driver's output is kept for a failure's message: its
 * end. A driver whose WebKitWebDriver could not listen printed a line per
 * attempt to reach it, hundreds of MB in 20 s, and the whole string broke
 * the next test (`Invalid string length`). */
const DRIVER_OUTPUT_KEPT = 64 * 1024;

/**
 * This test file's own X display: an Xvfb of its own, started with the
 * file's first driver and ended with the file. Files run two at a time,
 * and on a shared display a window opening for the other file took the
 * focus: an open list (a Radix Select) closes when its window loses it,
 * and a key pressed meanwhile went nowhere (CI: a list gone before it was
 * measured, keyboard picks played again). Its number is the one Xvfb says
 * it took (`-displayfd`), never a guess.
 */
let ownDisplay;
function privateDisplay() {
  ownDisplay ??= new Promise((resolve, reject) => {
    const x = spawn("Xvfb", ["-displayfd", "3", "-screen", "0", "1920x1200x24", "-nolisten", "tcp"], {
      stdio: ["ignore", "ignore", "ignore", "pipe"],
    });
    let said = "";
    x.stdio[3].on("data", (d) => {
      said += d;
      if (!said.includes("\n")) return;
      resolve(`:${said.trim()}`);
      // Nothing more to read: the file's process may end with Xvfb running
      // (and ends it as it does).
      x.stdio[3].destroy();
      x.unref();
    });
    x.once("error", reject);
    x.once("exit", (code) => reject(new Error(`Xvfb ended (${code}) before it said which display it took`)));
    process.on("exit", () => x.kill());
  });
  return ownDisplay;
}

export class Driver {
  constructor(child, port, env) {
    this.child = child;
    this.port = port;
    this.env = env;
    this.output = "";
  }

  /**
   * Keep `child`'s output (its end) in `this.output`, and see when its
   * WebKitWebDriver could not listen on the port it was given (taken between
   * our pick and its start): tauri-driver stays up, and a session asked of
   * it waits for nothing.
   */
  follow(child) {
    this.broken = false;
    const keep = (d) => {
      this.output += d;
      if (this.output.length > 2 * DRIVER_OUTPUT_KEPT) this.output = this.output.slice(-DRIVER_OUTPUT_KEPT);
      if (!this.broken && this.output.slice(-4096 - d.length).includes("Unable to listen for HTTP server")) {
        this.broken = true;
        this.onBroken?.();
      }
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
  }

  static async start(home = { ...process.env, ...hermeticHome() }) {
    const env = { ...home, DISPLAY: await privateDisplay() };
    // Ports the system says are free now (a random pick once collided with
    // a port in use, and the driver exited before the first session).
    const [port, native] = [await freePort(), await freePort()];
    const child = spawn(required("TAURI_DRIVER"), ["--port", String(port), "--native-port", String(native)], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const driver = new Driver(child, port, env);
    driver.follow(child);
    return driver;
  }

  /**
   * Start the driver again (same home, new ports) if it is no longer
   * running or its WebKitWebDriver could not listen. Says whether it did.
   */
  async revive() {
    if (this.broken) await this.stop();
    if (this.child.exitCode === null && this.child.signalCode === null && !this.broken) return false;
    const why = this.broken ? "its WebKitWebDriver could not listen" : `it exited (${this.child.exitCode ?? this.child.signalCode})`;
    console.log(`tauri-driver: ${why}: ${this.output.trim().slice(-2000)}; starting it again on new ports`);
    const fresh = await Driver.start(this.env);
    fresh.child.stdout.removeAllListeners("data");
    fresh.child.stderr.removeAllListeners("data");
    Object.assign(this, { child: fresh.child, port: fresh.port, output: "" });
    this.follow(fresh.child);
    return true;
  }

  /**
   * Open a session on the app with these command-line arguments; retried while the driver starts.
   * The configs the tests write stand for the person's own: `--trust` is passed unless `trust: false`
   * (a test of consent itself).
   */
  async session(args = [], { trust = true } = {}) {
    const caps = {
      capabilities: {
        alwaysMatch: { "tauri:options": { application: APP_BINARY(), args: trust ? ["--trust", ...args] : args } },
      },
    };
    let deadline = Date.now() + 20_000;
    let lastError;
    while (Date.now() < deadline) {
      // A driver started again for a port taken under it has its 20 s anew.
      if (await this.revive()) deadline = Date.now() + 20_000;
      const broken = new AbortController();
      this.onBroken = () => broken.abort(new Error("WebKitWebDriver could not listen on its port"));
      if (this.broken) this.onBroken();
      try {
        const res = await fetch(`http://127.0.0.1:${this.port}/session`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(caps),
          signal: AbortSignal.any([broken.signal, AbortSignal.timeout(20_000)]),
        });
        const body = await res.json();
        if (res.ok && body.value?.sessionId) return new Session(this.port, body.value.sessionId, this.env.DISPLAY);
        lastError = new Error(JSON.stringify(body));
      } catch (e) {
        lastError = e;
      }
      await sleep(250);
    }
    throw new Error(`no WebDriver session within 20 s: ${lastError}\n--- driver output ---\n${this.output}`);
  }

  /** SIGTERM, never SIGKILL: a killed driver orphans WebKitWebDriver. */
  async stop() {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once("exit", r));
    this.child.kill("SIGTERM");
    const done = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
    if (!done) {
      console.log("tauri-driver ignored SIGTERM for 5 s; killing it");
      this.child.kill("SIGKILL");
    }
    this.child.stdout.destroy();
    this.child.stderr.destroy();
  }
}

export class Session {
  constructor(port, id, display) {
    this.base = `http://127.0.0.1:${port}/session/${id}`;
    this.display = display;
  }

  async cmd(method, path, body, timeoutMs = 20_000) {
    // No WebDriver command may hang the suite: each gets 20 s.
    const t0 = Date.now();
    const res = await fetch(this.base + path, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const json = await res.json();
    // WD_TRACE=1: each command's time on stderr, to find where a slow test waits.
    if (process.env.WD_TRACE) {
      const what = body?.script ? ` ${body.script.trim().slice(0, 60).replace(/\s+/g, " ")}` : "";
      console.error(`WD ${Date.now() - t0} ms ${method} ${path.replace(/[0-9A-F-]{36}/gi, "*")}${what}`);
    }
    if (!res.ok) throw new Error(`${method} ${path}: ${JSON.stringify(json.value)}`);
    return json.value;
  }

  async findAll(css) {
    const found = await this.cmd("POST", "/elements", { using: "css selector", value: css });
    return found.map((e) => e[ELEMENT]);
  }

  async text(el) {
    return this.cmd("GET", `/element/${el}/text`);
  }

  async click(el) {
    return this.cmd("POST", `/element/${el}/click`, {});
  }

  /** Type into an element as a person would (real key events). */
  async type(el, text) {
    return this.cmd("POST", `/element/${el}/value`, { text });
  }

  async clear(el) {
    return this.cmd("POST", `/element/${el}/clear`, {});
  }

  /**
   * Replace a field's text by typing, and check it holds exactly that: on a
   * loaded machine a clear can land before the page's own update and leave
   * the old text in front. Tries again a few times.
   */
  async replaceText(el, text) {
    for (let attempt = 1; ; attempt++) {
      await this.clear(el);
      await this.type(el, text);
      await sleep(100);
      const value = await this.cmd("POST", "/execute/sync", { script: "return arguments[0].value;", args: [{ [ELEMENT]: el }] });
      if (value === text || attempt === 3) return value;
    }
  }

  /** Look inside an iframe (its element) from now on. */
  async enterFrame(el) {
    return this.cmd("POST", "/frame", { id: { [ELEMENT]: el } });
  }

  /** Back to the window's own document. */
  async leaveFrames() {
    return this.cmd("POST", "/frame", { id: null });
  }

  /** The first element matching `css`, waiting for it to appear. */
  async find(css, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        const [el] = await this.findAll(css);
        if (el) return el;
      } catch {
        // still rendering
      }
      await sleep(150);
    }
    throw new Error(`timed out waiting for ${css}`);
  }

  /** Click the first `css` element whose text is `text` (buttons, tabs), waiting for it. */
  async clickText(css, text, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const clicked = await this.cmd("POST", "/execute/sync", {
        script:
          // Only what is on screen: rooms kept alive out of sight do not count.
          "const el = Array.from(document.querySelectorAll(arguments[0])).find((e) => e.getClientRects().length > 0 && e.innerText.trim().startsWith(arguments[1]) && !e.disabled);" +
          "if (!el) return false; el.click(); return true;",
        args: [css, text],
      }).catch(() => false);
      if (clicked) return;
      await sleep(150);
    }
    throw new Error(`no ${css} reading "${text}"`);
  }

  /**
   * In the Chat room: start a chat and wait until it is the one open (the
   * chat open before stays on screen until the list knows the new one, so a
   * box found too early would be the old chat's).
   */
  async newChat() {
    await this.clickText(".chat-list-head button", "New chat");
    await this.waitForTexts(".chat-item.selected .chat-title", (t) => t.length === 1 && t[0] === "New chat");
    await this.waitForTexts(".chat-header-title", (t) => t.length === 1 && t[0] === "New chat");
  }

  /**
   * Open the menu behind `triggerCss` and pick `item`. A click that lands
   * while the page is still laying out can miss the trigger: try again.
   */
  async menuPick(triggerCss, item) {
    for (let attempt = 1; ; attempt++) {
      await this.click(await this.find(triggerCss));
      try {
        return await this.clickText(".menu-item", item, 3_000);
      } catch (e) {
        if (attempt === 3) throw e;
        await this.cmd("POST", "/execute/sync", { script: "document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));", args: [] });
      }
    }
  }

  /**
   * Pick `option` in the design system's Select whose button is `triggerCss`,
   * with real clicks (the list picks on the pointer's release, as for a
   * person; a script's click() would not).
   */
  async pick(triggerCss, option) {
    for (let attempt = 1; ; attempt++) {
      await this.click(await this.find(triggerCss));
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline) {
        try {
          for (const el of await this.findAll("[role=option]")) {
            if ((await this.text(el)).trim() === option) {
              await this.click(el);
              return;
            }
          }
        } catch (e) {
          // The options were drawn again while read (servers still coming
          // up change the list): read them afresh.
          if (!String(e).includes("stale element")) throw e;
        }
        await sleep(150);
      }
      if (attempt === 3) throw new Error(`no option "${option}" under ${triggerCss}`);
      await this.keys("\uE00C");
    }
  }

  /** Press keys (WebDriver key codes, e.g. "\uE015" arrow down) on whatever has the focus. */
  async keys(text) {
    const actions = [...text].flatMap((value) => [
      { type: "keyDown", value },
      { type: "keyUp", value },
    ]);
    await this.cmd("POST", "/actions", { actions: [{ type: "key", id: "keyboard", actions }] });
    await this.cmd("DELETE", "/actions");
  }

  /**
   * Run an async script (it calls `arguments[arguments.length - 1]` with its
   * result). WebKitWebDriver once answered "Could not parse script result"
   * for a plain object while another window was busy: that answer is asked
   * again, once.
   */
  async executeAsync(script, args = [], timeoutMs = 60_000) {
    try {
      return await this.cmd("POST", "/execute/async", { script, args }, timeoutMs);
    } catch (e) {
      if (!String(e.message).includes("Could not parse script result")) throw e;
      console.log(`WebKitWebDriver: ${e.message}; running the script again`);
      return this.cmd("POST", "/execute/async", { script, args }, timeoutMs);
    }
  }

  async attribute(el, name) {
    return this.cmd("GET", `/element/${el}/attribute/${name}`);
  }

  /**
   * The rendered text (innerText) of all elements matching `css`, in one round
   * trip. (WebKitWebDriver's element-text endpoint returns "" in this app, whose
   * prototypes are frozen; a script reading innerText sees what a person sees.)
   */
  async texts(css) {
    return this.cmd("POST", "/execute/sync", {
      // Only elements on screen (a room kept alive out of sight is not seen).
      script: "return Array.from(document.querySelectorAll(arguments[0])).filter((e) => e.getClientRects().length > 0).map((e) => e.innerText);",
      args: [css],
    });
  }

  /** Poll until `predicate(texts of css)` holds; return those texts. */
  async waitForTexts(css, predicate, timeoutMs = 15_000) {
    const deadline = Date.now() + timeoutMs;
    let last = [];
    while (Date.now() < deadline) {
      try {
        last = await this.texts(css);
        if (predicate(last)) return last;
      } catch {
        // the page may still be loading
      }
      await sleep(150);
    }
    // What the window showed when it gave up, for whoever reads the failure.
    const shot = await this.screenshot(`timeout-${css.replace(/[^a-z0-9]+/gi, "_")}`).catch(() => "none");
    throw new Error(`timed out waiting on ${css}; last seen: ${JSON.stringify(last)} (window: ${shot})`);
  }

  /**
   * Save a PNG of the window under the artifacts folder; returns its path.
   * WebKit's snapshot answers after the page's next rendering update; when
   * the window paints on the CPU (no GPU: the app sets `GDK_GL=disable`) an
   * idle page has none, and the snapshot waits until something changes — so
   * the page is made to paint a few frames first (without it each screenshot
   * waited out its 8 s). Each attempt is bounded all the same and the last
   * resort is a grab of the X display.
   */
  async screenshot(name) {
    const dir = ARTIFACTS();
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${name}.png`);
    let png = Buffer.alloc(0);
    for (let attempt = 0; attempt < 4 && png.length <= 8_000; attempt++) {
      // Give WebKit a beat to paint what the DOM already holds.
      await sleep(300 + attempt * 400);
      try {
        await this.cmd("POST", "/execute/sync", { script: REPAINT, args: [] });
        png = Buffer.from(await this.cmd("GET", "/screenshot", undefined, 8_000), "base64");
      } catch (e) {
        // A stalled snapshot does not recover: grab the display instead.
        console.log(`WebKit screenshot failed: ${e.message}`);
        break;
      }
    }
    if (png.length > 8_000) {
      writeFileSync(path, png);
    } else {
      execFileSync("import", ["-window", "root", path], { timeout: 15_000, env: { ...process.env, DISPLAY: this.display ?? process.env.DISPLAY } });
      console.log("screenshot taken from the X display (WebKit's snapshot did not answer)");
    }
    console.log(`screenshot: ${path}`);
    return path;
  }

  /**
   * Serious and critical accessibility violations on the page (axe-core),
   * or within the element `within` selects (a dialog, whose page behind
   * it is covered), as "rule: target" strings. axe is injected from the
   * UI's node_modules.
   */
  async axe(within = null) {
    const loaded = await this.cmd("POST", "/execute/sync", { script: "return typeof window.axe !== 'undefined';", args: [] });
    if (!loaded) {
      const source = readFileSync(new URL("../../ui/node_modules/axe-core/axe.min.js", import.meta.url), "utf8");
      await this.cmd("POST", "/execute/sync", { script: `${source}; return true;`, args: [] }, 60_000);
    }
    // Checked once the page is still: a fade under the pointer (a message's
    // actions shown on hover) measured halfway has half its contrast.
    // Finite animations and transitions are waited for (at most 1 s);
    // endless ones (a spinner) are not.
    return this.executeAsync(
      "const done = arguments[arguments.length - 1];" +
        "const root = arguments[0] ? document.querySelector(arguments[0]) : document;" +
        "const moving = document.getAnimations().filter((a) => a.effect && a.effect.getComputedTiming().endTime !== Infinity);" +
        "Promise.race([Promise.all(moving.map((a) => a.finished.catch(() => null))), new Promise((r) => setTimeout(r, 1000))]).then(() =>" +
        "window.axe.run(root, { resultTypes: ['violations'], iframes: false })).then(" +
        "(r) => done(r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')" +
        ".flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${v.help}`))), (e) => done([`axe failed: ${e}`]));",
      [within],
    );
  }

  /** Whether the page itself scrolls (only rooms' own areas should). */
  async windowScrolls() {
    return this.cmd("POST", "/execute/sync", {
      script: "const e = document.scrollingElement; return e.scrollHeight > e.clientHeight + 1 || e.scrollWidth > e.clientWidth + 1;",
      args: [],
    });
  }

  /** The room bar's tabs that do not fit in it (scrolled or clipped away). */
  async cutTabs() {
    return this.cmd("POST", "/execute/sync", {
      script:
        "const bar = document.querySelector('.room-bar'); if (!bar) return [];" +
        "const b = bar.getBoundingClientRect();" +
        "return Array.from(bar.querySelectorAll('.room-tab')).filter((t) => { const r = t.getBoundingClientRect();" +
        " return r.left < b.left - 1 || r.right > b.right + 1; }).map((t) => t.title || t.innerText);",
      args: [],
    });
  }

  /** Resize the window (WebDriver window rect). */
  async resize(width, height) {
    await this.cmd("POST", "/window/rect", { width, height });
  }

  /** Force the light or dark theme (as the theme switch does). */
  async theme(which) {
    await this.cmd("POST", "/execute/sync", {
      script: "localStorage.setItem('mcpwb.theme', arguments[0]); document.documentElement.dataset.theme = arguments[0]; return true;",
      args: [which],
    });
  }

  /**
   * Screenshots of the current view in light and dark at 900×600 and
   * 1200×800 (the first window's size) (for a person to look at), its accessibility checked (no
   * serious or critical violations) and no room tab cut off, at each size.
   */
  async views(name) {
    const problems = [];
    for (const [w, h] of [
      [900, 600],
      [1200, 800],
    ]) {
      await this.resize(w, h);
      // Let the window repaint at its new size before the first picture
      // (one was caught half drawn).
      await this.executeAsync("const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 150)));");
      for (const theme of ["light", "dark"]) {
        await this.theme(theme);
        await this.screenshot(`${name}-${theme}-${w}x${h}`);
      }
      problems.push(...(await this.axe()).map((p) => `${w}x${h}: ${p}`));
      problems.push(...(await this.cutTabs()).map((t) => `${w}x${h}: the room tab "${t}" is cut off`));
      if (await this.windowScrolls()) problems.push(`${w}x${h}: the window itself scrolls (the header scrolls away)`);
    }
    await this.theme("light");
    await this.resize(1280, 900);
    return problems;
  }

  async close() {
    try {
      await this.cmd("DELETE", "");
    } catch {
      // already gone
    }
  }
}
