// The client side of the MCP conformance suite, played by mcpwb.
//
// The suite starts a server for a scenario and runs `node client.mjs <url>`
// with MCP_CONFORMANCE_SCENARIO set; it judges the client only by what
// arrives on the wire. This adapter writes a one-entry mcp.json for the URL
// and runs mcpwb commands: every message the server sees comes from mcpwb.
// MCPWB names the binary (default: target/debug/mcpwb of this checkout).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// MCPWB_THROUGH_TAP=1: mcpwb reaches the scenario's server through
// `mcpwb tap --to URL` (the tap must change nothing the suite judges).
// Not the sign-in scenarios: an OAuth server binds its tokens and resource
// metadata to its own URL, so a client that checks them refuses any
// proxy's (docs/src/tap.md). A revision's whole set runs in one suite
// process, so through the tap these end at once, doing nothing; xtask
// leaves their results out.
let url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
if (process.env.MCPWB_THROUGH_TAP === "1" && scenario.startsWith("auth/")) process.exit(0);
const mcpwb = process.env.MCPWB ?? fileURLToPath(new URL("../../target/debug/mcpwb", import.meta.url));

// A throwaway HOME: no real config, trust record, keychain namespace or log.
const home = mkdtempSync(join(tmpdir(), "mcpwb-conformance-"));
const config = join(home, "mcp.json");
// The revision the suite runs this scenario at: mcpwb speaks that era only
// (a pinned protocolVersion), as the suite judges the wire of that revision.
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION;
const pin = ["2025-11-25", "2026-07-28"].includes(revision) ? { protocolVersion: revision } : {};
const childEnv = { ...process.env, HOME: home, MCPWB_KEYCHAIN: "keyutils", MCPWB_KEYCHAIN_SERVICE: `mcpwb-conformance-${process.pid}` };
let tap = null;
if (process.env.MCPWB_THROUGH_TAP === "1") {
  tap = spawn(mcpwb, ["--json", "tap", "--to", url], { env: childEnv, stdio: ["ignore", "pipe", "inherit"] });
  url = await new Promise((found, failed) => {
    let out = "";
    tap.stdout.on("data", (d) => {
      out += d.toString();
      const line = out.split("\n")[0];
      if (out.includes("\n")) found(JSON.parse(line).url);
    });
    tap.on("exit", (code) => failed(new Error(`mcpwb tap ended (${code})`)));
  });
  console.error(`through the tap: ${url}`);
}
writeFileSync(config, JSON.stringify({ mcpServers: { server: { type: "http", url, ...pin } } }, null, 2));

function run(args, { json = false } = {}) {
  // The adapter wrote the config: it vouches for it (--trust).
  const all = ["--trust", "--config", config, "--timeout", "20", ...(json ? ["--json"] : []), ...args];
  console.error(`$ mcpwb ${all.join(" ")}`);
  const out = spawnSync(mcpwb, all, { encoding: "utf8", env: childEnv, timeout: 60_000 });
  process.stderr.write(out.stderr ?? "");
  process.stderr.write(out.stdout ?? "");
  return out;
}

// The tools as mcpwb lists them (--json: each as the server sent it).
function tools() {
  const listed = run(["tools", "server"], { json: true });
  if (listed.status !== 0) return null;
  const parsed = JSON.parse(listed.stdout);
  return (Array.isArray(parsed) ? parsed : (parsed.tools ?? [])).map((t) => t.tool ?? t);
}

const call = (name, args = {}) => run(["call", "server", name, "--args", JSON.stringify(args)]).status;

// What a person exploring an unknown server does: list the tools, then call
// each one mcpwb offers (or the calls the scenario's context names). A
// tool's own error does not end the run: the scenarios judge the wire.
function listAndCall() {
  const listed = tools();
  if (!listed) return 1;
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
  const calls = context.toolCalls ?? listed.map((t) => ({ name: t.name, arguments: {} }));
  let failed = 0;
  for (const c of calls) {
    const status = call(c.name, c.arguments ?? {});
    // 1: the tool said it failed, 6: the server refused the call; either
    // way the client did its part.
    if (![0, 1, 6].includes(status)) failed = status;
  }
  return failed;
}

const scenarios = {
  initialize: () => run(["tools", "server"]).status,
  tools_call: () => call("add_numbers", { a: 5, b: 3 }),
  "sse-retry": () => call("test_reconnection"),
  "elicitation-sep1034-client-defaults": () =>
    run(["--elicitation", "defaults", "call", "server", "test_client_elicitation_defaults", "--args", "{}"]).status,
  // The schema mcpwb listed, handed back as it was shown.
  "json-schema-2020-12-preservation": () => {
    const focal = tools()?.find((t) => t.name === "json_schema_2020_12_tool");
    return focal ? call("json_schema_echo", { schema: focal.inputSchema }) : 1;
  },
  "json-schema-ref-no-deref": () => run(["tools", "server"]).status,
  // Skills (SEP-2640): listed without reading a file; one loaded and checked
  // (a SKILL.md not as listed is rejected: exit 1, its files not read).
  "sep-2640-client-no-prefetch": () => run(["skills", "server"]).status,
  "sep-2640-client-verify-digest": () => (run(["skill", "server", "pdf-processing", "--verify"]).status === 1 ? 0 : 1),
  "sep-2640-client-verify-size": () => (run(["skill", "server", "pdf-processing", "--verify"]).status === 1 ? 0 : 1),
  "sep-2640-client-verify-frontmatter": () => (run(["skill", "server", "pdf-processing", "--verify"]).status === 1 ? 0 : 1),
};

// A stand-in browser for one mcpwb run: each sign-in address mcpwb prints
// is opened, and the authorization server's redirect followed back to
// mcpwb's loopback listener.
function runWithBrowser(args, env = childEnv) {
  console.error(`$ mcpwb ${args.join(" ")}`);
  const child = spawn(mcpwb, args, { env });
  let err = "";
  let opened = 0;
  let out = "";
  child.stdout.on("data", (d) => {
    out += d.toString();
    process.stderr.write(d);
  });
  child.stderr.on("data", async (d) => {
    err += d.toString();
    process.stderr.write(d);
    const all = [...err.matchAll(/Open this address to sign in:\s+(\S+)/g)];
    while (opened < all.length) {
      const address = all[opened++][1];
      try {
        const page = await fetch(address, { redirect: "manual" });
        const back = page.headers.get("location");
        if (back) await fetch(back);
        else console.error(`the sign-in page answered ${page.status} without a redirect`);
      } catch (e) {
        console.error(`the stand-in browser failed: ${e}`);
      }
    }
  });
  return new Promise((done) => child.on("close", (status) => done({ status, stdout: out })));
}

// Sign in as a person would with `mcpwb auth login --no-browser`, then use
// the server with `--sign-in=print`: a 401 or a 403 insufficient_scope in
// the session is answered by signing in again (step-up), as a person at a
// terminal would. The tokens live in a throwaway keychain namespace.
async function signIn() {
  // The client's identity as a person writes it in the entry's "oauth"
  // block (the secret through a reference, never in the file).
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}");
  const oauth = { clientMetadataUrl: "https://conformance-test.local/client-metadata.json" };
  if (context.client_id) oauth.clientId = context.client_id;
  if (context.client_secret) oauth.clientSecret = "${CONFORMANCE_CLIENT_SECRET}";
  writeFileSync(config, JSON.stringify({ mcpServers: { server: { type: "http", url, oauth } } }, null, 2));
  childEnv.CONFORMANCE_CLIENT_SECRET = context.client_secret ?? "";
  const args = ["--trust", "--config", config, "auth", "login", "server", "--no-browser"];
  const login = await runWithBrowser(args);
  if (login.status !== 0) return login.status;
  const using = ["--trust", "--config", config, "--timeout", "20", "--sign-in=print"];
  try {
    const listed = await runWithBrowser([...using, "--json", "tools", "server"]);
    if (listed.status !== 0) return listed.status;
    const parsed = JSON.parse(listed.stdout);
    const tools = (Array.isArray(parsed) ? parsed : (parsed.tools ?? [])).map((t) => t.tool ?? t);
    if (tools[0]) {
      const called = await runWithBrowser([...using, "call", "server", tools[0].name, "--args", "{}"]);
      if (![0, 1, 6].includes(called.status)) return called.status;
    }
    return 0;
  } finally {
    run(["auth", "logout", "server"]);
  }
}

let status;
try {
  status = await (scenario.startsWith("auth/") ? signIn() : (scenarios[scenario] ?? listAndCall)());
} finally {
  tap?.kill("SIGTERM");
  rmSync(home, { recursive: true, force: true });
}
process.exit(status ?? 1);
