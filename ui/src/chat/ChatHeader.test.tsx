import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ToastProvider } from "../design";
import { ChatHeader } from "./ChatHeader";

describe("the chat's header", () => {
  it("counts a tool the running turn loaded at once, not when the turn ends", async () => {
    const tool = (name: string) => ({ name, server: "demo", tool: name.split("__")[1], offered: false });
    const backend = {
      listProviders: async () => [],
      providerModels: async () => [],
      chatTools: async () => ({ tools: [tool("demo__echo"), tool("demo__add")], deferred: true, notes: [], context: { used: 300, window: 8192, window_known: false, tools: 0 } }),
    } as never;
    const chat = { session: { id: "c1", title: "A chat", provider: "scripted", model: "m", system_prompt: "", usage: { input: 0, output: 0, cached: 0 } }, messages: [], running: false, pending: [] } as never;
    render(
      <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
        <ToastProvider>
          <ChatHeader wb={{} as never} backend={backend} chat={chat} liveUsage={null} running onChanged={() => {}} loaded={["demo__echo"]} />
        </ToastProvider>
      </QueryClientProvider>,
    );
    expect(await screen.findByText(/1 loaded of 2/)).toBeTruthy();
  });
});
