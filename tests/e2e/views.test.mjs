// Every room of the window, as a person first sees it with a working
// server: captured in light and dark at 900×600 and 1200×800 (into
// target/e2e/ for a person to look at), and checked with axe-core — no
// serious or critical accessibility violation anywhere.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Driver, freePort, demoServer } from "./harness.mjs";

describe("every view", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    const demo = demoServer();
    config = join(driver.env.HOME, "views.json");
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: {
          demo: { command: demo, args: ["--name", "demo"] },
          broken: { command: demo, args: ["--name", "broken", "--fault", "exit-at-start"] },
        },
      }),
    );
  });
  after(async () => {
    await driver?.stop();
  });

  it("passes the accessibility check in every room, light and dark, small and large", async () => {
    const session = await driver.session(["--config", config]);
    const problems = [];
    const check = async (name) => problems.push(...(await session.views(name)).map((p) => `${name}: ${p}`));
    try {
      await session.clickText("[role=tab]", "Tools");
      await session.waitForTexts(".tool-row", (t) => t.length >= 5);
      await session.click(await session.find(".tool-row[data-qualified='demo__all_content_types']"));
      await session.clickText(".run-bar button", "Run");
      await session.waitForTexts(".result-status", (t) => t.length === 1 && t[0].startsWith("Done"));
      await check("tools");
      await session.clickText("[role=tab]", "Resources");
      await check("resources");
      await session.clickText("[role=tab]", "Prompts");
      await check("prompts");
      await session.clickText("[role=tab]", "Traffic");
      await session.waitForTexts(".traffic-row .t-method", (t) => t.length > 3);
      await check("traffic");
      await session.clickText(".server-button", "demo");
      await session.waitForTexts(".server-panel h2", (t) => t.length === 1);
      await check("server");
      await session.clickText(".server-button", "broken");
      await session.waitForTexts(".server-panel h2", (t) => t.length === 1 && t[0].startsWith("broken"));
      // Its failures are kept with their codes, once it is back or not.
      await session.clickText(".server-panel .disclosure-trigger", "Events");
      await session.waitForTexts(".server-life li", (t) => t.some((x) => x.includes("failed") && x.includes("exited")));
      await check("server-failed");
      await session.clickText(".sidebar-actions button", "Add server");
      await check("add-server");
      // A field's own button is as wide as its words, not a full-width bar.
      const widths = await session.cmd("POST", "/execute/sync", {
        script:
          "const b = [...document.querySelectorAll('fieldset.field > button')].find((x) => x.textContent.trim() === 'Add argument'); return b ? [b.getBoundingClientRect().width, b.parentElement.getBoundingClientRect().width] : null;",
        args: [],
      });
      assert.ok(widths && widths[0] < widths[1] / 2, `Add argument is ${widths?.[0]} of ${widths?.[1]} px`);
      await session.clickText(".sidebar-actions button", "Edit mcp.json");
      await session.find(".cm-content");
      await check("edit-config");
      await session.clickText(".sidebar-actions button", "Import");
      await check("import");
      await session.clickText(".sidebar-actions button", "Bridge");
      await session.replaceText(await session.find(".bridge-switch input[type=text]"), String(await freePort()));
      await session.click(await session.find(".bridge-switch [role=switch]"));
      await session.waitForTexts(".bridge-url", (t) => t.length === 1);
      await check("bridge");
      await session.click(await session.find(".header-tools button[aria-label=Settings]"));
      await session.waitForTexts(".settings h1", (t) => t.includes("Settings"));
      await check("settings");
      assert.deepEqual(problems, [], problems.join("\n"));
    } finally {
      await session.close();
    }
  });

  it("on a first start, one click adds an example server that answers", async () => {
    const fresh = join(driver.env.HOME, "fresh", "mcp.json");
    const session = await driver.session(["--config", fresh]);
    try {
      await session.waitForTexts(".empty-state h2", (t) => t.includes("Welcome: no mcp.json yet"));
      const problems = await session.views("first-start");
      assert.deepEqual(problems, [], problems.join("\n"));
      await session.clickText(".first-start-actions button", "Add an example server");
      await session.waitForTexts(".server .badge.state", (t) => t.length === 1 && t[0] === "ready", 30_000);
      // Its lists arrive just after it is ready: what it offers then shows.
      await session.waitForTexts(".server-counts", (t) => t.length === 1 && /^25 tools · 7 resources · 2 templates · 3 prompts$/.test(t[0]));
    } finally {
      await session.close();
    }
  });
});
