// The chat in the real window: the scripted LLM (the one stand-in: no model
// runs here) on loopback, the demo server over real pipes. Send a message,
// approve the call the model asks for, see its result card and the answer;
// stop a long call; reopen the app and find the chat.
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Driver, scriptedLlm, scriptedProvider, demoConfig } from "./harness.mjs";


/** Type into the element `css` finds, finding it again if a re-render replaced it. */
async function typeFresh(session, css, text) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await session.type(await session.find(css), text);
    } catch (e) {
      if (attempt >= 5 || !String(e).includes("stale element")) throw e;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

describe("chat", () => {
  let driver;
  let llm;
  let config;
  before(async () => {
    driver = await Driver.start();
    llm = await scriptedLlm(driver.env.HOME, [
      { when: "please echo", text: "I'll ask the server.", tool_calls: [{ name: "local__echo", arguments: { message: "hello from chat" } }], usage: { input: 300, output: 20 } },
      { when: "hello from chat", text: "The server echoed: hello from chat.", usage: { input: 420, output: 12 } },
      { when: "long task", tool_calls: [{ name: "local__long_task", arguments: { steps: 600, step_ms: 50 } }] },
      { when: "demo://snippet.rust", text: "I read the snippet and the readme." },
      { when: "this model does not take images", text: "I was told of an image I cannot see." },
    ]);
    config = demoConfig(driver.env.HOME, "chat.json", "e2e-chat");
    // The provider, as the Settings room would write it.
    scriptedProvider(driver.env, llm.url);
  });
  after(async () => {
    llm?.child.kill("SIGTERM");
    await driver?.stop();
  });

  it("chats, approves a call, shows its result, stops a long call, and keeps the chat across a restart", async () => {
    let session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Chat");
      await session.newChat();
      const box = await session.find("textarea[aria-label=Message]");
      await session.type(box, "please echo hello\uE007");
      // The model asks for a call: the approval card shows server, tool and arguments.
      const [head] = await session.waitForTexts(".approval-head", (t) => t.length === 1, 30_000);
      assert.match(head, /Run echo on local\?/);
      await session.views("chat-approval").then((p) => assert.deepEqual(p, [], p.join("\n")));
      await session.clickText(".approval-actions button", "Allow once");
      await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("The server echoed: hello from chat.")), 30_000);
      const [status] = await session.waitForTexts(".tool-card .tool-card-status", (t) => t.length === 1 && t[0].includes("done"));
      assert.match(status, /done/);
      // The result card: the same result view as a call by hand.
      await session.clickText(".tool-card .disclosure-trigger", "Details");
      const [result] = await session.waitForTexts(".tool-card .result .block-text", (t) => t.length === 1);
      assert.equal(result.trim(), "hello from chat");
      // The context meter: the provider's count of the last request (420 in,
      // 12 out) against the window of a model the table does not know (assumed).
      const [meter] = await session.waitForTexts(".meter-text", (t) => t.length === 1 && /\d/.test(t[0]));
      assert.match(meter, /^432 \/ 8[,.\u00a0]?192 assumed$/);
      const problems = await session.views("chat");
      assert.deepEqual(problems, [], problems.join("\n"));

      // A long call, stopped: the card says cancelled.
      await session.type(await session.find("textarea[aria-label=Message]"), "run the long task\uE007");
      await session.waitForTexts(".approval-head", (t) => t.length === 1, 30_000);
      await session.clickText(".approval-actions button", "Allow once");
      await session.waitForTexts(".tool-card .tool-card-status", (t) => t.some((x) => x.includes("running")), 30_000);
      await session.clickText(".composer button", "Stop");
      await session.waitForTexts(".tool-card .tool-card-status", (t) => t.length === 2 && t[1].includes("cancelled"), 30_000);
    } finally {
      await session.close();
    }

    // The app again: the chat is in the list with its messages.
    session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Chat");
      const titles = await session.waitForTexts(".chat-item .chat-title", (t) => t.length === 1);
      assert.equal(titles[0], "please echo hello");
      await session.clickText(".chat-item-open", "please echo hello");
      await session.waitForTexts(".msg-user .msg-text", (t) => t.length === 2 && t[0] === "please echo hello");
      await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("The server echoed: hello from chat.")));
      // Export lands where the harness saves instead of a native dialog.
      await session.menuPick(".chat-header button[aria-label=More]", "Export as Markdown");
      await session.waitForTexts("[role=status] .toast-title, .toast-title", (t) => t.some((x) => x.includes("Chat exported")));
      assert.ok(existsSync(join(driver.env.MCPWB_SAVE_DIR, "please-echo-hello.md")));
    } finally {
      await session.close();
    }
  });

  it("puts a prompt's messages and a resource into a message with / and @, each attachment shown", async () => {
    const session = await driver.session(["--config", config]);
    try {
      await session.clickText("[role=tab]", "Chat");
      await session.newChat();
      // `/` in an empty box: the chat's prompts; one with arguments asks them.
      await typeFresh(session, "textarea[aria-label=Message]", "/");
      await session.type(await session.find("input[aria-label='Search prompts']"), "review");
      await session.clickText(".picker-item", "Review");
      const fields = await session.findAll(".modal .prompt-detail input");
      assert.equal(fields.length, 2, "language and code");
      await session.type(fields[0], "rust");
      // Enter in the last field inserts, as the Insert button does.
      await session.type(fields[1], "fn main() {}\uE006");
      // Its messages in the box to edit (the model's turn labelled), its
      // embedded resource attached, and why the label is there.
      await session.waitForTexts(".composer .attachment-chip code", (t) => t.includes("demo://snippet.rust"));
      const value = await session.executeAsync("const done = arguments[arguments.length - 1]; done(document.querySelector('textarea[aria-label=Message]').value);");
      assert.match(value, /^User: Review this rust code for bugs\.\n\nAssistant: I will look at correctness first\.$/);
      // `@` at a word's start: a resource, attached as read.
      const box = await session.find("textarea[aria-label=Message]");
      await session.type(box, " @");
      await session.type(await session.find("input[aria-label='Search resources']"), "readme");
      await session.clickText(".picker-item", "Demo README");
      const chips = await session.waitForTexts(".composer .attachment-chip code", (t) => t.length === 2);
      assert.deepEqual(chips, ["demo://snippet.rust", "demo://readme"]);
      const problems = await session.views("chat-attachments");
      assert.deepEqual(problems, [], problems.join("\n"));
      // Sent with the message; the model answers having read both.
      await session.clickText(".composer button", "Send");
      await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("I read the snippet and the readme.")), 30_000);
      const sent = await session.waitForTexts(".msg-user .attachment-chip code", (t) => t.length === 2);
      assert.deepEqual(sent, ["demo://snippet.rust", "demo://readme"]);
      // The chat is named after the prompt it began as, not "User: Review…".
      await session.waitForTexts(".chat-header-title", (t) => t[0] === "review_code");
      await session.waitForTexts(".chat-item.selected .chat-title", (t) => t[0] === "review_code");

      // An image dropped on the box: attached, shown with the message; this
      // model takes no images, so it is told one was left out.
      await session.executeAsync(
        "const done = arguments[arguments.length - 1];" +
          "const bytes = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));" +
          "const dt = new DataTransfer(); dt.items.add(new File([bytes], 'pixel.png', { type: 'image/png' }));" +
          "document.querySelector('textarea[aria-label=Message]').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));" +
          "done(true);",
      );
      await session.waitForTexts(".composer .attachment-chip code", (t) => t.length === 1 && t[0] === "pixel.png");
      // Before it is sent, its chip says this model will not be given it.
      await session.waitForTexts(".composer .attachment-refused", (t) => t.length === 1 && /takes no images: this one will not be sent/.test(t[0]));
      await session.screenshot("chat-image-refused");
      await typeFresh(session, "textarea[aria-label=Message]", "and this picture?\uE007");
      await session.waitForTexts(".msg-assistant .markdown", (t) => t.some((x) => x.includes("I was told of an image I cannot see.")), 30_000);
      const drawn = await session.executeAsync(
        "const done = arguments[arguments.length - 1]; const imgs = Array.from(document.querySelectorAll('.msg-user .attachment-image')); done(imgs.map((i) => [i.alt, i.naturalWidth]));",
      );
      assert.deepEqual(drawn, [["pixel.png", 1]], "the dropped image is drawn with its message");
      await session.screenshot("chat-image");
    } finally {
      await session.close();
    }
  });

  it("without a provider, the chat room says how to add one", async () => {
    const bare = await Driver.start();
    try {
      const session = await bare.session(["--config", config]);
      try {
        await session.clickText("[role=tab]", "Chat");
        const [title] = await session.waitForTexts(".empty-state h2", (t) => t.some((x) => x.includes("Chat with a model")));
        assert.ok(title);
        await session.waitForTexts(".provider-setup h3", (t) => t.includes("Add a provider"));
        const problems = await session.views("chat-onboarding");
        assert.deepEqual(problems, [], problems.join("\n"));
      } finally {
        await session.close();
      }
    } finally {
      await bare.stop();
    }
  });
});
