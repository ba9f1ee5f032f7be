// Adding a provider: Save says it saved (was: "Saving…" forever), and the
// buttons that must save first say so.
import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { Backend } from "../ipc";
import { ToastProvider } from "../design";
import { ProviderSetup } from "./ProviderSetup";

describe("adding a provider", () => {
  it("saves once asked and says so; list and test say they save first", async () => {
    const saveProvider = vi.fn(() => Promise.resolve());
    const backend = {
      saveProvider,
      setProviderKey: () => Promise.resolve(),
      localProviders: () => Promise.resolve([]),
    } as unknown as Backend;
    const onSaved = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <ToastProvider>
          <ProviderSetup backend={backend} onSaved={onSaved} />
        </ToastProvider>
      </QueryClientProvider>,
    );
    expect(saveProvider).not.toHaveBeenCalled();
    expect(screen.getByText("Save and list models")).toBeTruthy();
    expect(screen.getByText("Save and test")).toBeTruthy();
    fireEvent.click(screen.getByText("Save"));
    await waitFor(() => expect(screen.getAllByRole("status").some((s) => s.textContent === "Saved")).toBe(true));
    expect(screen.queryByText("Saving…")).toBeNull();
    expect(saveProvider).toHaveBeenCalledTimes(1);
    expect(onSaved).toHaveBeenCalledTimes(1);
  });

  it("hands a new provider's test result to the room once it is added (the room closes the form)", async () => {
    const backend = {
      saveProvider: () => Promise.resolve(),
      setProviderKey: () => Promise.resolve(),
      localProviders: () => Promise.resolve([]),
      providerModels: () => Promise.resolve(["m1"]),
      testProvider: () => Promise.resolve({ model: "m1", reply: "pong", latency_ms: 12 }),
    } as unknown as Backend;
    const onAdded = vi.fn();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <ToastProvider>
          <ProviderSetup backend={backend} onSaved={() => undefined} onAdded={onAdded} heading={false} />
        </ToastProvider>
      </QueryClientProvider>,
    );
    expect(screen.queryByRole("heading", { name: "Add a provider" })).toBeNull();
    fireEvent.click(screen.getByText("Save and test"));
    await waitFor(() => expect(onAdded).toHaveBeenCalledTimes(1));
    expect(onAdded.mock.calls[0]?.[1]).toContain("m1 answered “pong”");
  });

  it("says where a request will go as the address is typed", async () => {
    const asked = vi.fn((config: { base_url: string | null }) => Promise.resolve(`${config.base_url ?? "https://api.openai.com/v1/"}chat/completions`));
    const backend = {
      saveProvider: () => Promise.resolve(),
      setProviderKey: () => Promise.resolve(),
      localProviders: () => Promise.resolve([]),
      providerRequestUrl: asked,
    } as unknown as Backend;
    render(
      <QueryClientProvider client={new QueryClient()}>
        <ToastProvider>
          <ProviderSetup backend={backend} onSaved={() => undefined} />
        </ToastProvider>
      </QueryClientProvider>,
    );
    expect(await screen.findByText("https://api.openai.com/v1/chat/completions")).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText(/https?:\/\//), { target: { value: "http://127.0.0.1:8080/" } });
    expect(await screen.findByText("http://127.0.0.1:8080/chat/completions")).toBeTruthy();
  });
});
