import { describe, expect, it } from "vitest";
import type { TurnCase } from "../ipc/history";
import { defaultChoices, promptCaseOf } from "./SavePromptCase";

const turn: TurnCase = {
  prompt: "Add 2 and 3, then echo the sum",
  servers: ["demo"],
  calls: [
    { tool: "demo/add", arguments: { a: 2, b: 3 } },
    { tool: "demo/echo", arguments: { "a/b~c": "5" } },
  ],
  steps: 3,
  answer: "The sum is 5.",
  model: "openai:gpt-5-mini",
};

describe("a chat's turn as a prompt case", () => {
  it("proposes its calls with their arguments, the steps it took, and reads back as the suite's format", () => {
    const c = defaultChoices(turn);
    expect(c.name).toBe("Add 2 and 3, then echo");
    expect(promptCaseOf(turn, c)).toEqual({
      name: "Add 2 and 3, then echo",
      prompt: turn.prompt,
      servers: ["demo"],
      expect: {
        calls: [
          { tool: "demo/add", arguments: { "/a": { equals: 2 }, "/b": { equals: 3 } } },
          { tool: "demo/echo", arguments: { "/a~1b~0c": { equals: "5" } } },
        ],
        maxSteps: 3,
      },
      runs: 3,
    });
  });

  it("keeps what the person ticked: a call without its arguments, order, an answer, a pass rate", () => {
    const c = { ...defaultChoices(turn), inOrder: true, maxSteps: false, answerContains: " 5 ", runs: 1, passRate: 0.8 };
    c.calls = [{ keep: true, withArguments: false }, { keep: false, withArguments: true }];
    expect(promptCaseOf(turn, c)).toEqual({
      name: c.name,
      prompt: turn.prompt,
      servers: ["demo"],
      expect: { calls: [{ tool: "demo/add" }], answer: { contains: "5" } },
      passRate: 0.8,
    });
  });
});
