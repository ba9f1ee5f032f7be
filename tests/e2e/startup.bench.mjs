// The window's start, measured (not asserted) as a person launches it (no
// WebDriver attached): launch → painted and launch → interactive (the server
// list shown and the main thread answering at once), as the app logs them,
// with 14 real servers configured beside the same with one; and the idle
// memory (PSS) of the app and its WebKit processes once every server is
// ready. Run by `cargo xtask bench` against the release build under Xvfb.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { APP_BINARY, hermeticHome } from "./harness.mjs";
import { alive, descendants, memory } from "./procs.mjs";

const ROUNDS = Number(process.env.STARTUP_ROUNDS ?? 5);
const SIZES = [1, 14];

function log(dir) {
  if (!existsSync(dir)) return "";
  return readdirSync(dir)
    .map((f) => readFileSync(join(dir, f), "utf8"))
    .join("\n");
}

// One throwaway home for every launch: the first one meets empty caches
// (fonts, WebKit) as a first start does; it is reported on its own and the
// others are launches as a person has them every day.
const env = { ...process.env, ...hermeticHome() };

/**
 * What a person sees: the X screen's top-left grabbed every 20 ms by one
 * small process (onscreen.py, one X connection for the whole launch) until it
 * shows text — many colours (anti-aliased glyphs), where an unmapped screen
 * or a blank window has a handful. An ImageMagick `import` per grab, as this
 * bench first did, took most of a core while the app started and delayed what
 * it measured. Resolves once the probe is connected to `{ seen }`, where
 * `seen(t0)` resolves to ms since `t0`, or null (no X, no text in time).
 */
async function onScreen() {
  const probe = spawn("python3", [join(import.meta.dirname, "onscreen.py"), "900", "240", "60"], { stdio: ["ignore", "pipe", "ignore"] });
  const lines = createInterface({ input: probe.stdout })[Symbol.asyncIterator]();
  // The next line the probe prints, or null once it has exited.
  const next = async () => (await lines.next()).value ?? null;
  if ((await next()) !== "ready") return { seen: async () => null, stop: () => undefined };
  return {
    seen: async (t0) => {
      const at = await next();
      return at === null ? null : Number(at) - t0;
    },
    stop: () => probe.kill(),
  };
}

// A real corpus when the third-party servers are installed (`cargo xtask
// bench` installs them): beside the demo server (Rust), the reference
// server-everything (node) and a server on the official Python SDK — node and
// Python start-ups are what compete with the window for two cores.
const everything = process.env.MCPWB_THIRD_PARTY && join(process.env.MCPWB_THIRD_PARTY, "node_modules/.bin/mcp-server-everything");
const python = process.env.MCPWB_PYTHON;
const PY_SERVER = `from mcp.server.mcpserver import MCPServer
server = MCPServer("py-bench")

@server.tool()
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}"

server.run()
`;
const KINDS = ["demo", ...(everything && existsSync(everything) ? ["node"] : []), ...(python && existsSync(python) ? ["python"] : [])];

/** The n servers of a launch: the first is the demo server, then the kinds in turn. */
function corpus(demo, n) {
  const script = join(env.HOME, "py_server.py");
  writeFileSync(script, PY_SERVER);
  const servers = {};
  for (let i = 0; i < n; i++) {
    const kind = KINDS[i % KINDS.length];
    servers[`${kind}-${i + 1}`] =
      kind === "node" ? { command: everything } : kind === "python" ? { command: python, args: [script] } : { command: demo, args: ["--name", `demo-${i + 1}`] };
  }
  return servers;
}

async function launch(demo, n) {
  const servers = corpus(demo, n);
  const config = join(env.HOME, `startup-${n}.json`);
  writeFileSync(config, JSON.stringify({ mcpServers: servers }));
  const probe = await onScreen();
  const t0 = Date.now();
  const app = spawn(APP_BINARY(), ["--trust", "--config", config], { env, stdio: "ignore" });
  const seen = probe.seen(t0);
  try {
    const deadline = Date.now() + 60_000;
    let text = "";
    const stage = (name) => {
      const m = new RegExp(`window ${name} (\\d+) ms after launch \\((\\d+) ms in the page\\)`).exec(text);
      return m ? { ms: Number(m[1]), page: Number(m[2]) } : null;
    };
    const ready = () => (text.match(/server state server=\S+ state=Ready/g) ?? []).length;
    while (Date.now() < deadline && (stage("interactive") === null || ready() < n)) {
      await sleep(100);
      text = log(env.MCPWB_LOG_DIR);
    }
    if (stage("interactive") === null || ready() < n) throw new Error(`the window or its servers did not come up:\n${text}`);
    await sleep(5_000);
    writeFileSync(join(env.MCPWB_LOG_DIR, "..", `log-${n}-${Date.now()}.txt`), text);
    for (const f of readdirSync(env.MCPWB_LOG_DIR)) writeFileSync(join(env.MCPWB_LOG_DIR, f), "");
    const [painted, interactive] = [stage("painted"), stage("interactive")];
    const screen = (await Promise.race([seen, sleep(1_000).then(() => null)])) ?? NaN;
    const setUp = Number(/set up (\d+) ms after launch/.exec(text)?.[1] ?? NaN);
    return { setUp, painted: painted.ms, page: painted.page, interactive: interactive.ms, screen, ...memory(app.pid) };
  } finally {
    probe.stop();
    // The next launch starts once this one's servers are gone too: node and
    // Python servers still shutting down would take the two cores from it.
    const tree = descendants(app.pid).map((c) => c.pid);
    const exited = new Promise((r) => app.once("exit", r));
    app.kill("SIGTERM");
    await Promise.race([exited, sleep(10_000).then(() => app.kill("SIGKILL"))]);
    for (let waited = 0; waited < 10_000 && tree.some(alive); waited += 50) await sleep(50);
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mib = (kb) => `${(kb / 1024).toFixed(1)} MiB`;

const demo = process.env.DEMO_SERVER;
const first = await launch(demo, SIZES[1]);
const runs = Object.fromEntries(SIZES.map((n) => [n, []]));
// Alternated, so a slow moment of the machine does not land on one size only.
for (let r = 0; r < ROUNDS; r++) {
  for (const n of SIZES) runs[n].push(await launch(demo, n));
}
console.log(`the window's start (the build shipped: the app profile; Xvfb, no WebDriver; median of ${ROUNDS}; servers: ${KINDS.join(", ")} in turn; memory: PSS once every server is ready and 5 s idle)`);
console.log("servers  set up    on screen  painted (in page)  interactive  (each run)                 app PSS     WebKit PSS  total");
const row = {};
for (const n of SIZES) {
  const pick = (k) => median(runs[n].map((x) => x[k]));
  row[n] = { setUp: pick("setUp"), screen: pick("screen"), painted: pick("painted"), page: pick("page"), interactive: pick("interactive"), app: pick("app"), webkit: pick("webkit") };
  const x = row[n];
  const each = runs[n].map((r) => r.interactive).join(" ");
  console.log(`${String(n).padEnd(9)}${`${x.setUp} ms`.padEnd(10)}${`${x.screen} ms`.padEnd(11)}${`${x.painted} ms (${x.page})`.padEnd(19)}${`${x.interactive} ms`.padEnd(13)}${`(${each})`.padEnd(27)}${mib(x.app).padEnd(12)}${mib(x.webkit).padEnd(12)}${mib(x.app + x.webkit)}`);
}
console.log(`first launch ever (empty caches), ${SIZES[1]} servers: on screen ${first.screen} ms, painted ${first.painted} ms, interactive ${first.interactive} ms (target: on screen within 2,000 ms: ${first.screen <= 2000 ? "met" : "not met"})`);
const [one, many] = [row[SIZES[0]], row[SIZES[1]]];
console.log(
  `14 servers against 1: on screen ×${(many.screen / one.screen).toFixed(2)}, interactive ×${(many.interactive / one.interactive).toFixed(2)}, memory ×${((many.app + many.webkit) / (one.app + one.webkit)).toFixed(2)} (targets with 14, warm: on screen within 1,000 ms: ${many.screen <= 1000 ? "met" : "not met"}; interactive within 1,000 ms: ${many.interactive <= 1000 ? "met" : "not met"})`,
);
// The first frame, warm: within half a second with one server and with 14.
const FIRST_FRAME = 500;
console.log(
  `first frame on screen, warm: ${one.screen} ms with ${SIZES[0]} server, ${many.screen} ms with ${SIZES[1]} (target: within ${FIRST_FRAME} ms with each: ${one.screen <= FIRST_FRAME && many.screen <= FIRST_FRAME ? "met" : "not met"})`,
);
