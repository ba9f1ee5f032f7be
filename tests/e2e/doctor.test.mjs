// The server author's loop in the window: the doctor's badge in the sidebar,
// its findings in the server's panel, and after a watched file changes, the
// server reloaded with what changed in its surface and its new tools marked.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, demoServer } from "./harness.mjs";

const SERVER = readFileSync(new URL("../fixtures/tools_from_file.py", import.meta.url), "utf8");

const tool = (name, extra = {}) => ({
  name,
  title: name,
  description: `The ${name} tool`,
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  annotations: { readOnlyHint: true },
  ...extra,
});

describe("the doctor and reload on change", () => {
  let driver;
  let config;
  let folder;
  before(async () => {
    driver = await Driver.start();
    const demo = demoServer();
    folder = join(driver.env.HOME, "py-server");
    await import("node:fs").then((fs) => fs.mkdirSync(folder, { recursive: true }));
    writeFileSync(join(folder, "server.py"), SERVER);
    writeFileSync(join(folder, "tools.json"), JSON.stringify([tool("hello")]));
    config = join(driver.env.HOME, "doctor.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          demo: { command: demo, args: ["--name", "demo"] },
          planted: { command: demo, args: ["--fault", "doctor-names"] },
          py: { command: "python3", args: ["server.py"], cwd: folder, dev: { watch: "*.json" } },
        },
      }),
    );
  });
  after(async () => {
    await driver?.stop();
  });

  it("counts a server's findings in the sidebar and explains each in its panel", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.waitForTexts(".doctor-badge", (t) => t.length >= 1);
      const badges = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; done(Array.from(document.querySelectorAll('.doctor-badge')).map((b) => b.textContent));",
      );
      assert.ok(badges.some((b) => /^Doctor: \d+ kinds? of error(, \d+ kinds? of warning)? in \d+ items?$/.test(b)), badges.join(", "));
      // The badge opens the server's Doctor on what it counted (a first run).
      const owner = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; const b = Array.from(document.querySelectorAll('li.server')).find((li) => li.querySelector('.server-name')?.textContent === 'planted')?.querySelector('.doctor-badge'); if (b) b.click(); done(Boolean(b));",
      );
      assert.ok(owner, "the planted server has a doctor badge");
      await session.waitForTexts(".server-panel h2", (t) => t.length === 1 && t[0].startsWith("planted"));
      const codes = await session.waitForTexts(".doctor-findings[aria-label=Findings] .doctor-group-head code", (t) => t.length >= 3);
      for (const code of ["name.invalid", "name.duplicate", "name.case-only"]) assert.ok(codes.includes(code), codes.join(", "));
      const items = await session.texts(".doctor-group[data-code='name.invalid'] .doctor-item");
      assert.deepEqual(items, ["tool has space"]);
      const problems = await session.views("doctor");
      assert.deepEqual(problems, [], problems.join("\n"));
      // With both eras: how each real client finds its era, as a table.
      await session.clickText(".doctor-options label", "Try both protocol eras");
      await session.clickText(".doctor-options button", "Run again");
      const clients = await session.waitForTexts(".doctor-clients tbody th", (t) => t.length === 5, 60_000);
      assert.deepEqual(clients, ["TypeScript SDK", "Python SDK", "A client that waits", "A 2025 client offering a newer version", "A 2025 client"]);
      await session.screenshot("doctor-clients");
    } finally {
      await session.close();
    }
  });

  it("reloads a server when a watched file changes, re-runs the open tool's call and shows what changed", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.pick(".list-filters [aria-label=Server]", "py");
      await session.click(await session.find(".tool-row[data-qualified='py__hello']"));
      await session.click(await session.find(".run-bar [role=switch]"));
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".result-status", (t) => t.length === 1 && t[0].startsWith("Done"));
      writeFileSync(
        join(folder, "tools.json"),
        JSON.stringify([tool("hello", { inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] } }), tool("bye", { description: "" })]),
      );
      const verdict = await session.waitForTexts(".rerun-verdict", (t) => t.length === 1, 20_000);
      assert.equal(verdict[0], "after the reload: the result changed");
      const marked = await session.waitForTexts(".tool-row[data-qualified^='py'] .tool-mark", (t) => t.length >= 2);
      assert.deepEqual([...marked].sort(), ["changed", "new"]);
      await session.screenshot("tools-rerun-marked");
      await session.clickText(".server-button", "py");
      await session.waitForTexts(".server-panel h2", (t) => t.length === 1 && t[0].startsWith("py"));
      const changes = await session.waitForTexts(".surface-changes li", (t) => t.length >= 2, 20_000);
      assert.ok(changes.some((c) => c.includes("breaking") && c.includes("tool hello")), changes.join("\n"));
      assert.ok(changes.some((c) => c.includes("tool bye") && c.includes("it was added")), changes.join("\n"));
      const news = await session.texts(".surface-change .doctor-group-head code");
      assert.ok(news.includes("text.no-description"), news.join(", "));
      const problems = await session.views("surface-change");
      assert.deepEqual(problems, [], problems.join("\n"));
    } finally {
      await session.close();
    }
  });
});
