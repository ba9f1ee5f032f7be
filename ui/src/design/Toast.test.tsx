import { describe, expect, it } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { ToastProvider, useToast } from "./Toast";

function Failing() {
  const toast = useToast();
  return (
    <>
      <button onClick={() => toast("The call failed", { tone: "danger", description: "demo is not ready" })}>fail</button>
      <button onClick={() => toast("Saved")}>save</button>
    </>
  );
}

describe("toasts", () => {
  it("shows one toast with a count for the same failure again, beside a different one", () => {
    render(
      <ToastProvider>
        <Failing />
      </ToastProvider>,
    );
    act(() => {
      fireEvent.click(screen.getByText("fail"));
      fireEvent.click(screen.getByText("fail"));
      fireEvent.click(screen.getByText("fail"));
      fireEvent.click(screen.getByText("save"));
    });
    expect(screen.getAllByText("The call failed")).toHaveLength(1);
    expect(screen.getByText("×3")).toBeTruthy();
    expect(screen.getAllByText("Saved")).toHaveLength(1);
  });
});
