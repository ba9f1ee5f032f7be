// The MCP Registry room: a team's registry (a folder of server.json files,
// MCPWB_REGISTRY=file:…) searched in the window, a server picked, the
// entry it becomes read, its secret given in the form, added — and it
// starts, trusted as written, its secret in the keychain and not the file.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Driver, demoServer, hermeticHome } from "./harness.mjs";

const official = (status, latest, message) => ({
  "io.modelcontextprotocol.registry/official": {
    status,
    ...(message ? { statusMessage: message } : {}),
    publishedAt: "2026-10-01T00:00:00Z",
    updatedAt: "2026-10-01T00:00:00Z",
    isLatest: latest,
  },
});

function demoServerJson(version, addr) {
  return {
    name: "io.github.e2e/demo",
    title: "Demo over HTTP",
    description: "The workbench's demo server, served over streamable HTTP with a token.",
    version,
    remotes: [
      {
        type: "streamable-http",
        url: "http://{host}/mcp",
        variables: { host: { description: "Where it answers", default: addr } },
        headers: [
          {
            name: "Authorization",
            value: "Bearer {token}",
            variables: { token: { description: "Your demo token", isRequired: true, isSecret: true } },
          },
        ],
      },
    ],
  };
}

describe("the MCP Registry room", () => {
  let driver;
  let http;
  let env;
  let addr = "";
  before(async () => {
    const demo = demoServer();
    env = { ...process.env, ...hermeticHome() };
    const portFile = join(env.HOME, "http-addr");
    http = spawn(demo, ["--http", "127.0.0.1:0", "--port-file", portFile, "--token", "e2e-registry-token", "--name", "e2e-registry"], { stdio: "ignore" });
    for (let i = 0; i < 100 && !addr; i++) {
      await sleep(50);
      addr = existsSync(portFile) ? readFileSync(portFile, "utf8").trim() : "";
    }
    assert.ok(addr, "the HTTP demo server started");
    const folder = join(env.HOME, "team-registry");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "demo-1.2.0.json"), JSON.stringify({ server: demoServerJson("1.2.0", addr), _meta: official("active", true) }));
    writeFileSync(join(folder, "demo-1.1.0.json"), JSON.stringify({ server: demoServerJson("1.1.0", addr), _meta: official("deprecated", false, "Use 1.2.0.") }));
    writeFileSync(
      join(folder, "other.json"),
      JSON.stringify({ name: "com.example/notes", description: "Notes kept by a team.", version: "0.4.0", packages: [{ registryType: "npm", identifier: "notes-mcp", version: "0.4.0", transport: { type: "stdio" } }] }),
    );
    env.MCPWB_REGISTRY = `file:${folder}`;
    // A real bundle, packed by the official mcpb CLI: the demo server with a token it asks for.
    const src = join(env.HOME, "bundle-src");
    mkdirSync(join(src, "server"), { recursive: true });
    copyFileSync(demo, join(src, "server/mcp-demo-server"));
    writeFileSync(
      join(src, "manifest.json"),
      JSON.stringify({
        manifest_version: "0.3",
        name: "demo-bundle",
        display_name: "Demo (bundled)",
        version: "0.1.0",
        description: "The demo server, as a bundle",
        author: { name: "Workbench e2e" },
        server: {
          type: "binary",
          entry_point: "server/mcp-demo-server",
          mcp_config: { command: "${__dirname}/server/mcp-demo-server", args: ["--name", "e2e-bundle"], env: { DEMO_TOKEN: "${user_config.token}" } },
        },
        user_config: { token: { type: "string", title: "Token", description: "The token it needs", sensitive: true, required: true } },
      }),
    );
    const mcpb = join(process.env.MCPWB_THIRD_PARTY ?? "", "node_modules/.bin/mcpb");
    execFileSync(mcpb, ["pack", src, join(env.HOME, "demo.mcpb")], { stdio: "ignore" });
    // Signed by the official mcpb CLI, with a certificate from a CA this machine (its store: SSL_CERT_FILE) trusts.
    const pki = join(env.HOME, "pki");
    mkdirSync(pki, { recursive: true });
    const openssl = (...args) => execFileSync("openssl", args, { cwd: pki, stdio: "ignore" });
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-keyout", "ca.key", "-out", "ca.pem", "-subj", "/CN=Workbench e2e CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign");
    writeFileSync(join(pki, "leaf.ext"), "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=codeSigning\n");
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=Workbench e2e Publisher");
    openssl("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "30", "-out", "leaf.pem", "-extfile", "leaf.ext");
    execFileSync(mcpb, ["sign", join(env.HOME, "demo.mcpb"), "--cert", join(pki, "leaf.pem"), "--key", join(pki, "leaf.key")], { stdio: "ignore" });
    // Another bundle, to be put in the first one's place while the person reads it.
    const swapped = JSON.parse(readFileSync(join(src, "manifest.json"), "utf8"));
    swapped.server.mcp_config.args = ["--name", "swapped-in"];
    writeFileSync(join(src, "manifest.json"), JSON.stringify(swapped));
    execFileSync(mcpb, ["pack", src, join(env.HOME, "other.mcpb")], { stdio: "ignore" });
    env.SSL_CERT_FILE = join(pki, "ca.pem");
    env.SSL_CERT_DIR = join(pki, "none");
    env.MCPWB_OPEN_FILE = join(env.HOME, "demo.mcpb");
    // Cursor's own file, with a server of the person's.
    mkdirSync(join(env.HOME, ".cursor"), { recursive: true });
    writeFileSync(join(env.HOME, ".cursor/mcp.json"), '{\n  // mine\n  "mcpServers": { "notes": { "command": "notes-server" } }\n}\n');
    driver = await Driver.start(env);
  });
  after(async () => {
    await driver?.stop();
    http?.kill();
  });

  it("finds a server, shows the entry it becomes, adds it with its secret in the keychain, and it starts", async () => {
    const config = join(env.HOME, "registry.json");
    writeFileSync(config, '{ "mcpServers": {} }\n');
    const session = await driver.session(["--config", config], { trust: false });
    try {
      await session.clickText(".sidebar-actions button", "Registry");
      // Each row by its title (its name where it has none; the name under a title).
      const all = await session.waitForTexts(".registry-row .registry-row-name", (t) => t.length === 2);
      assert.ok(all[0].startsWith("com.example/notes") && all[1].startsWith("Demo over HTTP"), all.join(" | "));
      assert.deepEqual(await session.texts(".registry-row .registry-row-id"), ["io.github.e2e/demo"]);
      await session.type(await session.find("input[aria-label='Search the registry']"), "streamable");
      await session.waitForTexts(".registry-row .registry-row-name", (t) => t.length === 1 && t[0].startsWith("Demo over HTTP"));
      await session.clickText(".registry-row", "Demo over HTTP");
      const [entry] = await session.waitForTexts(".registry-entry", (t) => t.length === 1 && t[0].includes("/mcp"));
      assert.match(entry, new RegExp(`"url": "http://${addr.replace(/\./g, "\\.")}/mcp"`));
      assert.match(entry, /"Authorization": "Bearer \$\{input:demo-token\}"/);
      await session.type(await session.find("input[aria-label='demo-token']"), "e2e-registry-token");
      await session.screenshot("registry-room");
      await session.clickText(".registry-server button", "Add server");
      // Trusted as written: it starts without a trust question.
      await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready", 20_000);
      const written = readFileSync(config, "utf8");
      assert.match(written, /\$\{input:demo-token\}/);
      assert.doesNotMatch(written, /e2e-registry-token/, "the secret is in the keychain, not the file");
      await session.screenshot("registry-added");
    } finally {
      await session.close();
    }
  });

  it("adds a server into another host's file in its shape, a secret written as text only when the person ticks it", async () => {
    const config = join(env.HOME, "registry-host.json");
    writeFileSync(config, '{ "mcpServers": {} }\n');
    const cursor = join(env.HOME, ".cursor/mcp.json");
    const session = await driver.session(["--config", config], { trust: false });
    try {
      await session.clickText(".sidebar-actions button", "Registry");
      await session.clickText(".registry-row", "Demo over HTTP");
      await session.waitForTexts(".registry-entry", (t) => t.length === 1);
      // The select the "Into" label names.
      const into = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; const l = Array.from(document.querySelectorAll('.registry-server label.field-label')).find((x) => x.textContent.trim().startsWith('Into')); done(l ? '#' + CSS.escape(l.htmlFor) : null);",
      );
      assert.ok(into, "an Into choice is offered");
      await session.click(await session.find(into));
      await session.clickText("[role=option]", "cursor:");
      await session.type(await session.find("input[aria-label='demo-token']"), "e2e-cursor-token");
      const [tick] = await session.waitForTexts(".registry-server label.checkbox", (t) => t.some((x) => x.includes("as plain text")));
      assert.match(tick, /Write demo-token into .*\.cursor\/mcp\.json as plain text/);
      const disabled = await session.attribute(await session.find(".registry-server > button"), "disabled");
      assert.notEqual(disabled, null, "Add waits for the person's tick");
      await session.clickText(".registry-server label.checkbox", "Write demo-token into");
      await session.screenshot("registry-into-host");
      await session.clickText(".registry-server > button", "Add server");
      await session.waitForTexts(".toast", (t) => t.some((x) => x.includes("Added demo to cursor")), 10_000);
      const written = readFileSync(cursor, "utf8");
      assert.match(written, /^\{\n {2}\/\/ mine\n/, "the person's bytes kept");
      const v = JSON.parse(written.replace(/^\s*\/\/.*$/gm, ""));
      assert.equal(v.mcpServers.notes.command, "notes-server");
      assert.equal(v.mcpServers.demo.url, `http://${addr}/mcp`);
      assert.equal(v.mcpServers.demo.headers.Authorization, "Bearer e2e-cursor-token");
      assert.doesNotMatch(readFileSync(config, "utf8"), /demo/, "the workbench's own file is unchanged");
    } finally {
      await session.close();
    }
  });

  it("checks a server's folder before publishing, and with consent starts it as each host would", async () => {
    const demo = demoServer();
    const folder = join(env.HOME, "my-server");
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, "manifest.json"),
      JSON.stringify({
        manifest_version: "0.3",
        name: "demo",
        version: "0.1.0",
        description: "The demo",
        author: { name: "e2e" },
        server: { type: "binary", entry_point: demo, mcp_config: { command: demo, args: ["--name", "bundled"] } },
        tools: [{ name: "echo" }, { name: "get_weather" }],
      }),
    );
    writeFileSync(join(folder, "server.json"), JSON.stringify({ name: "demo", description: "The demo", version: "^0.1.0", remotes: [{ type: "sse", url: "https://demo.example.com/sse" }] }));
    const config = join(env.HOME, "publish.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { mine: { command: demo, args: ["--name", "e2e-publish"], cwd: folder } } }));
    const session = await driver.session(["--config", config]);
    try {
      await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready", 20_000);
      await session.clickText(".server-button", "mine");
      await session.clickText(".disclosure-trigger", "Before you publish");
      await session.clickText(".publish-check button", "Check");
      const codes = await session.waitForTexts(".publish-check .doctor-group code", (t) => t.length > 0);
      for (const code of ["publish.name-format", "publish.version-range", "publish.schema-missing"]) assert.ok(codes.includes(code), `${code} not in ${codes.join(", ")}`);
      assert.deepEqual(await session.texts(".publish-run"), [], "nothing started unasked");
      await session.click(await session.find(".publish-check [role=switch]"));
      await session.clickText(".publish-check button", "Check");
      const runs = await session.waitForTexts(".publish-run", (t) => t.length === 4, 60_000);
      assert.equal(runs.filter((r) => r.includes("started, 25 tools; the doctor: 0 errors")).length, 3, runs.join(" | "));
      await session.waitForTexts(".publish-check .doctor-group code", (t) => t.includes("bundle.tools-drift"));
      await session.screenshot("publish-check");
      // The folder's files changed after they were shown (a pull, a build): what they run now is shown, not started.
      const manifest = JSON.parse(readFileSync(join(folder, "manifest.json"), "utf8"));
      manifest.server.mcp_config.args = ["--name", "changed-after-shown"];
      writeFileSync(join(folder, "manifest.json"), JSON.stringify(manifest));
      await session.clickText(".publish-check button", "Check and start");
      await session.waitForTexts(".publish-check .doctor-group code", (t) => t.includes("publish.changed"), 20_000);
      assert.deepEqual(await session.texts(".publish-run"), [], "nothing started unseen");
      const ways = await session.texts(".publish-ways > li code");
      assert.ok(ways.some((w) => w.includes("changed-after-shown")), ways.join(" | "));
      await session.screenshot("publish-changed");
    } finally {
      await session.close();
    }
  });

  it("installs a bundle opened from a file, its signature checked and its secret kept out of mcp.json", async () => {
    const config = join(env.HOME, "bundle.json");
    writeFileSync(config, '{ "mcpServers": {} }\n');
    const session = await driver.session(["--config", config], { trust: false });
    try {
      await session.clickText(".sidebar-actions button", "Registry");
      await session.clickText(".registry-list button", "Install a bundle");
      const [note] = await session.waitForTexts(".bundle-publisher", (t) => t.length === 1);
      assert.match(note, /Published by Workbench e2e, its manifest says\. Signature: signed by Workbench e2e Publisher, verified: its certificate comes from Workbench e2e CA/);
      const [install] = await session.waitForTexts(".bundle-install > button", (t) => t.length === 1);
      assert.equal(install, "Give Token", "a required value is asked before it installs");
      await session.type(await session.find("input[aria-label='token']"), "e2e-bundle-secret");
      await session.screenshot("bundle-install");
      await session.clickText(".bundle-install > button", "Install");
      await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready", 20_000);
      const written = readFileSync(config, "utf8");
      assert.match(written, /demo-bundle/);
      assert.doesNotMatch(written, /e2e-bundle-secret/);
      await session.screenshot("bundle-installed");
    } finally {
      await session.close();
    }
  });

  it("does not install a bundle that changed after it was shown", async () => {
    const config = join(env.HOME, "bundle-swap.json");
    writeFileSync(config, '{ "mcpServers": {} }\n');
    const shown = join(env.HOME, "demo.mcpb");
    const original = readFileSync(shown);
    const session = await driver.session(["--config", config], { trust: false });
    try {
      await session.clickText(".sidebar-actions button", "Registry");
      await session.clickText(".registry-list button", "Install a bundle");
      await session.waitForTexts(".bundle-publisher", (t) => t.length === 1);
      await session.type(await session.find("input[aria-label='token']"), "e2e-swap-secret");
      // Another file put in its place while the person reads what it was.
      copyFileSync(join(env.HOME, "other.mcpb"), shown);
      await session.clickText(".bundle-install > button", "Install");
      const [said] = await session.waitForTexts(".bundle-install [role=alert]", (t) => t.length === 1);
      assert.match(said, /changed since it was shown: nothing was installed/);
      await session.screenshot("bundle-swapped");
      assert.equal(readFileSync(config, "utf8"), '{ "mcpServers": {} }\n', "nothing added");
    } finally {
      writeFileSync(shown, original);
      await session.close();
    }
  });
});
