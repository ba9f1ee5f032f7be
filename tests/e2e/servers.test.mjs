// The real app in a real WebKit window: what the window shows comes from the
// Rust core reading mcp.json through a typed Tauri command.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Driver } from "./harness.mjs";

const EXAMPLE = resolve(import.meta.dirname, "../../mcp.example.json");

describe("server list", () => {
  let driver;
  before(async () => {
    driver = await Driver.start();
  });
  after(async () => {
    await driver?.stop();
  });

  it("shows both demo servers of mcp.example.json, read by the Rust core", async () => {
    const session = await driver.session(["--config", EXAMPLE]);
    try {
      const names = await session.waitForTexts(".server-name", (t) => t.length >= 2 && t.every((x) => x !== ""));
      assert.deepEqual(names, ["demo-stdio", "demo-http"]);
      const badges = await session.texts(".server .badge");
      assert.deepEqual(badges, ["stdio", "HTTP"]);
      const path = await session.texts(".config-path");
      assert.deepEqual(path, [EXAMPLE]);
      const png = await session.screenshot("main-window");
      assert.ok(statSync(png).size > 8_000, "the screenshot has content");
    } finally {
      await session.close();
    }
  });

  it("shows a broken mcp.json's error at line:column and leaves the file untouched", async () => {
    const broken = join(driver.env.HOME, "broken.json");
    const text = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": {}\n  }\n}\n';
    writeFileSync(broken, text);
    const session = await driver.session(["--config", broken]);
    try {
      const [message] = await session.waitForTexts("[role=alert] .error-message", (t) => t.length === 1 && t[0] !== "");
      assert.match(message, new RegExp(`${broken.replace(/[.]/g, "\\.")}:3:\\d+`));
      await session.screenshot("broken-config");
      assert.equal(readFileSync(broken, "utf8"), text);
    } finally {
      await session.close();
    }
  });
});
