// mcp.json from the window: add a server through the form (tried first),
// use it at once; a raw edit that does not parse is refused and the file
// stays as it was.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, demoServer, demoConfig } from "./harness.mjs";

describe("editing mcp.json in the window", () => {
  let driver;
  let demo;
  before(async () => {
    driver = await Driver.start();
    demo = demoServer();
  });
  after(async () => {
    await driver?.stop();
  });

  it("adds a server through the form, tries it, saves it, and runs one of its tools", async () => {
    const config = join(driver.env.HOME, "add.json");
    writeFileSync(config, '// my servers\n{\n  "mcpServers": {}\n}\n');
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText(".sidebar-actions button", "Add server");
      await session.type(await session.find("input[aria-label='Name']"), "added");
      await session.type(await session.find("input[aria-label='Command']"), demo);
      await session.clickText(".server-form button", "Add argument");
      await session.type(await session.find("input[aria-label='Argument 1']"), "--name");
      await session.clickText(".server-form button", "Add argument");
      await session.type(await session.find("input[aria-label='Argument 2']"), "e2e-added");
      await session.clickText(".server-form button", "Try it");
      const [trial] = await session.waitForTexts("[aria-label=Trial]", (t) => t.length === 1, 30_000);
      assert.match(trial, /^Connected: e2e-added 0\.1\.0 · protocol 2026-07-28 · \d+ tools/);
      // Counted as the panel counts them: templates apart from resources.
      assert.match(trial, /25 tools, 7 resources, 2 templates, 3 prompts/);
      // The report is no wider than the form's fields.
      const [report, field] = (
        await session.cmd("POST", "/execute/sync", {
          script: "return [document.querySelector('[aria-label=Trial]'), document.querySelector('.server-form .field')].map((e) => e.getBoundingClientRect().width);",
          args: [],
        })
      ).map(Math.round);
      assert.ok(report <= field, `Try it's report is ${report} px, the fields ${field} px`);
      await session.screenshot("add-server-form");
      await session.clickText(".server-form button", "Save");
      // The file watch picks the save up and the server connects.
      await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready", 20_000);
      const text = readFileSync(config, "utf8");
      assert.ok(text.startsWith("// my servers\n"), text);
      assert.deepEqual(JSON.parse(text.replace(/^\/\/.*\n/, "")).mcpServers.added, { command: demo, args: ["--name", "e2e-added"] });
      await session.screenshot("server-panel");
      await session.clickText("[role=tab]", "Tools");
      await session.type(await session.find("input[aria-label='Search tools']"), "echo");
      await session.click(await session.find(".tool-row[data-qualified='added__echo']"));
      await session.type(await session.find(".tool-panel input[type=text]"), "from the new server");
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".result .block-text", (t) => t.length === 1 && t[0].includes("from the new server"));
      await session.clickText("[role=tab]", "Traffic");
      await session.waitForTexts(".traffic-row .t-method", (t) => t.includes("tools/call"));
    } finally {
      await session.close();
    }
  });

  it("with a project folder, shows where each server comes from and adds one to the project's file", async () => {
    const config = demoConfig(driver.env.HOME, "user-with-project.json", "e2e-mine", "mine");
    const project = join(driver.env.HOME, "project");
    mkdirSync(project, { recursive: true });
    const projectFile = join(project, ".mcp.json");
    writeFileSync(projectFile, '// the team\'s servers\n{ "mcpServers": { "team": { "command": "' + demo + '", "args": ["--name", "e2e-team"], "env": { "PYTHONPATH": "/tmp/planted" }, "autoApprove": ["echo"] } } }\n');
    const session = await driver.session(["--config", config, "--project", project], { trust: false });
    try {
      // Nothing runs as found: the user's file was written outside the
      // workbench, the project's came with the folder.
      await session.waitForTexts(".server .badge.state", (t) => t.length === 2 && t.every((s) => s === "untrusted"), 20_000);
      await session.clickText(".server-button", "mine");
      await session.waitForTexts(".trust-card .trust-target", (t) => t.length === 1 && t[0] === `${demo} --name e2e-mine`);
      await session.clickText(".trust-card button", "Trust and start");
      await session.waitForTexts(".server .badge.state", (t) => t.length === 2 && t[0] === "ready" && t[1] === "untrusted", 20_000);
      await session.clickText(".server-button", "team");
      const [target] = await session.waitForTexts(".trust-card .trust-target", (t) => t.length === 1);
      assert.equal(target, `${demo} --name e2e-team`);
      // What changes what runs, and what it would let run unasked, stand out.
      const flagged = await session.texts(".trust-card .trust-flag");
      assert.ok(flagged.some((f) => f.includes("PYTHONPATH=/tmp/planted") && f.includes("changes what runs")), flagged.join(" | "));
      assert.ok(flagged.some((f) => f.includes("echo") && f.includes("switches approval off")), flagged.join(" | "));
      const problems = await session.views("trust");
      assert.deepEqual(problems, [], problems.join("\n"));
      await session.clickText(".trust-card button", "Trust and start");
      await session.waitForTexts(".server .badge.state", (t) => t.length === 2 && t.every((s) => s === "ready"), 20_000);
      const names = await session.waitForTexts(".server .server-name", (t) => t.length === 2);
      const scopes = await session.waitForTexts(".server [class*=scope-]", (t) => t.length === 2);
      assert.deepEqual(Object.fromEntries(names.map((n, i) => [n, scopes[i]])), { mine: "user", team: "project" });
      await session.clickText(".sidebar-actions button", "Add server");
      await session.type(await session.find("input[aria-label='Name']"), "shared");
      await session.type(await session.find("input[aria-label='Command']"), demo);
      await session.pick("[aria-label='Save to']", "This project's .mcp.json");
      await session.clickText(".server-form button", "Save");
      await session.waitForTexts(".server .server-name", (t) => t.includes("shared"), 20_000);
      const written = readFileSync(projectFile, "utf8");
      assert.match(written, /^\/\/ the team's servers/, "the project file keeps its comment");
      assert.match(written, /"shared"/);
      assert.doesNotMatch(readFileSync(config, "utf8"), /shared/, "the user's file is unchanged");
      await session.screenshot("project-scope");
    } finally {
      await session.close();
    }
  });

  it("refuses to save raw text that does not parse, says where, and leaves the file as it was", async () => {
    const config = join(driver.env.HOME, "raw.json");
    const original = '{\n  // a comment\n  "mcpServers": {}\n}\n';
    writeFileSync(config, original);
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText(".sidebar-actions button", "Edit mcp.json");
      const editor = await session.find(".cm-content");
      await session.click(editor);
      // Select everything (Ctrl+A), then type text with a missing value.
      await session.type(editor, "\uE009a\uE000");
      await session.type(editor, '{ "mcpServers": { "x": } }');
      await session.clickText(".raw-editor button", "Save");
      const [message] = await session.waitForTexts(".raw-editor [role=alert] .error-message", (t) => t.length === 1);
      assert.match(message, /raw\.json:1:\d+/);
      await session.screenshot("raw-editor-error");
      assert.equal(readFileSync(config, "utf8"), original);
    } finally {
      await session.close();
    }
  });
  it("asks for an ${input:...} once, keeps it in the keychain, and the server starts", async () => {
    const config = join(driver.env.HOME, "inputs.json");
    writeFileSync(
      config,
      JSON.stringify({
        inputs: [{ type: "promptString", id: "e2e-token", description: "Token for the demo", password: true }],
        mcpServers: { needy: { command: demo, args: ["--name", "needy"], env: { DEMO_TOKEN: "${input:e2e-token}" } } },
      }),
    );
    const session = await driver.session(["--config", config]);
    try {
      const [state] = await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] !== "starting" && t[0] !== "…");
      assert.notEqual(state, "ready", "it cannot start without the input");
      const field = await session.find("input[aria-label='Input e2e-token']");
      assert.equal(await session.attribute(field, "type"), "password");
      await session.type(field, "t0ken");
      await session.screenshot("input-needed");
      await session.clickText("[aria-label='Inputs needed'] button", "Remember");
      await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready", 20_000);
      assert.ok(!readFileSync(config, "utf8").includes("t0ken"), "the value is not written to the file");
    } finally {
      await session.close();
    }
  });
});
