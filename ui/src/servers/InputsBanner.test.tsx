import { describe, expect, it } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { mockIPC } from "@tauri-apps/api/mocks";
import { tauriBackend } from "../ipc";
import { InputsBanner } from "./InputsBanner";

describe("inputs servers need", () => {
  it("asks once, masked when declared as a password, and the banner goes away", async () => {
    let given: unknown = null;
    mockIPC((cmd, args) => {
      if (cmd === "needed_inputs") return given ? [] : [{ id: "api-key", description: "API key", password: true, servers: ["github"] }];
      if (cmd === "provide_input") {
        given = args;
        return null;
      }
      throw new Error(`unexpected ${cmd}`);
    });
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={client}>
        <InputsBanner backend={tauriBackend} />
      </QueryClientProvider>,
    );
    const field = (await screen.findByLabelText("Input api-key")) as HTMLInputElement;
    expect(field.type).toBe("password");
    expect(screen.getByText("(for github)")).toBeTruthy();
    fireEvent.change(field, { target: { value: "s3cret" } });
    fireEvent.click(screen.getByText("Remember"));
    await waitFor(() => expect(given).toEqual({ id: "api-key", value: "s3cret", servers: ["github"] }));
    await waitFor(() => expect(screen.queryByRole("region")).toBeNull());
  });
});
