import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { AskDialog } from "./AskDialog";
import { tauriBackend } from "../ipc";

const elicitation = {
  id: 7,
  server: "demo",
  kind: "elicitation",
  params: {
    message: "Who are you?",
    requestedSchema: {
      type: "object",
      properties: { name: { type: "string", title: "Your name" }, subscribe: { type: "boolean", default: false } },
      required: ["name"],
    },
  },
};

function answering(pending: unknown[], opened: unknown[] = [], openFails = false) {
  const answers: unknown[] = [];
  mockIPC(
    (cmd, args) => {
      if (cmd === "pending_asks") return pending;
      if (cmd === "open_ask_url") {
        if (openFails) throw { code: "refused", message: "file:///x is not a web address (http or https); it was not opened" };
        opened.push(args);
        return null;
      }
      if (cmd === "answer_ask") {
        answers.push(args);
        return null;
      }
      throw new Error(`unexpected ${cmd}`);
    },
    { shouldMockEvents: true },
  );
  return answers;
}

describe("asks from servers", () => {
  it("an elicitation is a form; accepting sends what was filled in", async () => {
    const answers = answering([elicitation]);
    render(<AskDialog backend={tauriBackend} />);
    expect(await screen.findByText("Who are you?")).toBeTruthy();
    fireEvent.change(screen.getByLabelText(/Your name/), { target: { value: "Ada" } });
    fireEvent.click(screen.getByText("Accept"));
    await waitFor(() => expect(answers).toHaveLength(1));
    expect(answers[0]).toEqual({ id: 7, result: { action: "accept", content: { subscribe: false, name: "Ada" } }, refusal: null });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("a sampling request is answered by hand, and a closed ask goes away", async () => {
    const answers = answering([]);
    render(<AskDialog backend={tauriBackend} />);
    await emit("ask-received", {
      ask: { id: 9, server: "demo", kind: "sampling", params: { messages: [{ role: "user", content: { type: "text", text: "6 x 7?" } }], maxTokens: 20 } },
    });
    expect(await screen.findByText("6 x 7?")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Answer"), { target: { value: "42" } });
    fireEvent.click(screen.getByText("Send answer"));
    await waitFor(() => expect(answers).toHaveLength(1));
    expect(answers[0]).toMatchObject({ id: 9, result: { role: "assistant", content: { type: "text", text: "42" } } });
    await emit("ask-received", { ask: { ...elicitation, id: 10 } });
    expect(await screen.findByText("Who are you?")).toBeTruthy();
    await emit("ask-closed", { id: 10 });
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });

  it("a URL-mode elicitation opens nothing until asked, then opens and accepts", async () => {
    const opened: unknown[] = [];
    const url = { id: 11, server: "demo", kind: "elicitation", params: { mode: "url", message: "Sign in", url: "https://example.com/auth" } };
    const answers = answering([url], opened);
    render(<AskDialog backend={tauriBackend} />);
    expect(await screen.findByText("https://example.com/auth")).toBeTruthy();
    expect(opened).toHaveLength(0);
    fireEvent.click(screen.getByText("Open in browser"));
    await waitFor(() => expect(answers).toHaveLength(1));
    expect(opened).toEqual([{ id: 11 }]);
    expect(answers[0]).toEqual({ id: 11, result: { action: "accept" }, refusal: null });
  });

  it("when the address cannot be opened the reason shows and nothing is answered", async () => {
    const url = { id: 12, server: "demo", kind: "elicitation", params: { mode: "url", message: "Sign in", url: "file:///x" } };
    const answers = answering([url], [], true);
    render(<AskDialog backend={tauriBackend} />);
    fireEvent.click(await screen.findByText("Open in browser"));
    expect((await screen.findByRole("alert")).textContent).toContain("not a web address");
    expect(answers).toHaveLength(0);
    expect(screen.getByRole("dialog")).toBeTruthy();
  });

  it("a sampling request is edited, answered by the model, the reply edited, then sent", async () => {
    const answers: unknown[] = [];
    const sampled: unknown[] = [];
    mockIPC(
      (cmd, args) => {
        if (cmd === "pending_asks") return [];
        if (cmd === "sample_with_model") {
          sampled.push((args as { params: unknown }).params);
          return { role: "assistant", content: { type: "text", text: "six" }, model: "gpt-test", stopReason: "endTurn" };
        }
        if (cmd === "sampling_model") return { provider: "openai", model: "gpt-test", why: "the server's hint \"gpt\" is part of its name" };
        if (cmd === "answer_ask") {
          answers.push(args);
          return null;
        }
        throw new Error(`unexpected ${cmd}`);
      },
      { shouldMockEvents: true },
    );
    render(<AskDialog backend={tauriBackend} />);
    await emit("ask-received", {
      ask: {
        id: 21,
        server: "demo",
        kind: "sampling",
        params: { messages: [{ role: "user", content: { type: "text", text: "2 + 2?" } }], maxTokens: 20, systemPrompt: "Be brief.", modelPreferences: { hints: [{ name: "gpt" }] } },
      },
    });
    const message = await screen.findByLabelText("Message 1 (user)");
    // Which configured model answers, and why, before the person asks it.
    expect((await screen.findByText("openai:gpt-test")).closest("p")?.textContent).toContain('the server\'s hint "gpt" is part of its name');
    fireEvent.change(message, { target: { value: "3 + 3?" } });
    fireEvent.click(screen.getByText("Ask the model"));
    await waitFor(() => expect((screen.getByLabelText("Answer") as HTMLTextAreaElement).value).toBe("six"));
    expect(sampled[0]).toMatchObject({ messages: [{ role: "user", content: { type: "text", text: "3 + 3?" } }], maxTokens: 20, systemPrompt: "Be brief." });
    expect((screen.getByLabelText("Model name reported") as HTMLInputElement).value).toBe("gpt-test");
    fireEvent.change(screen.getByLabelText("Answer"), { target: { value: "six (checked)" } });
    fireEvent.click(screen.getByText("Send answer"));
    await waitFor(() => expect(answers).toHaveLength(1));
    expect(answers[0]).toMatchObject({ id: 21, result: { content: { type: "text", text: "six (checked)" }, model: "gpt-test" } });
  });
});

describe("a server that keeps asking", () => {
  it("declines all of its asks at once, or stops it", async () => {
    const calls: [string, unknown][] = [];
    mockIPC(
      (cmd, args) => {
        calls.push([cmd, args]);
        if (cmd === "pending_asks") return [elicitation, { ...elicitation, id: 8 }, { ...elicitation, id: 9, server: "other" }];
        if (cmd === "decline_server_asks") return 2;
        if (cmd === "stop_server") return null;
        throw new Error(`unexpected ${cmd}`);
      },
      { shouldMockEvents: true },
    );
    render(<AskDialog backend={tauriBackend} />);
    expect(await screen.findByText("2 more waiting")).toBeTruthy();
    fireEvent.click(screen.getByText("Decline all from demo"));
    await waitFor(() => expect(calls.some(([c, a]) => c === "decline_server_asks" && (a as { server: string }).server === "demo")).toBe(true));
    // Only the other server's ask is left.
    expect(await screen.findByText("Stop other")).toBeTruthy();
    expect(screen.queryByText("1 more waiting")).toBeNull();
    fireEvent.click(screen.getByText("Stop other"));
    await waitFor(() => expect(calls.some(([c, a]) => c === "stop_server" && (a as { name: string }).name === "other")).toBe(true));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
  });
});
