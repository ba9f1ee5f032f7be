// Picking an option of the design system's Select as a person does with
// the keyboard: open it on its button, then Enter on the option.
import { fireEvent, screen } from "@testing-library/react";

export function pick(trigger: HTMLElement, option: string | RegExp) {
  fireEvent.keyDown(trigger, { key: "Enter" });
  fireEvent.keyDown(screen.getByRole("option", { name: option }), { key: "Enter" });
}
