// Skills (SEP-2640) in the window: the demo server's skills listed in the
// Skills room, one opened (loaded: its SKILL.md checked against the
// listing and rendered as sanitised markdown), a file of it opened and
// checked. Captured light and dark, small and large, axe-checked.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { Driver, demoConfig } from "./harness.mjs";

describe("skills", () => {
  let driver;
  let config;
  before(async () => {
    driver = await Driver.start();
    config = demoConfig(driver.env.HOME, "skills.json", "demo", "demo");
  });
  after(async () => {
    await driver?.stop();
  });

  it("lists a server's skills, loads one checked, and opens its files", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Skills");
      const names = await session.waitForTexts(".tool-list .tool-row .tool-name", (t) => t.includes("pdf-processing"));
      assert.ok(names.some((n) => n.includes("release-notes")), names.join(", "));
      await session.clickText(".tool-list .tool-row", "pdf-processing");
      await session.waitForTexts(".skill-detail .badge", (t) => t.some((x) => x.includes("verified")));
      const body = await session.waitForTexts(".skill-body", (t) => t[0]?.includes("PDF processing"));
      assert.match(body[0], /form guide/);
      await session.clickText(".skill-file button", "Open");
      // The file opened under its row: its name a heading, rendered as
      // SKILL.md is (Markdown), with Close.
      const opened = await session.waitForTexts(".skill-file-open", (t) => t[0]?.includes("Filling PDF forms"));
      assert.match(opened[0], /YYYY-MM-DD/);
      const heading = await session.texts(".skill-file-open h4");
      assert.deepEqual(heading, ["references/FORMS.md"]);
      const problems = await session.views("skills");
      assert.deepEqual(problems, [], problems.join("\n"));
    } finally {
      await session.close();
    }
  });
});
