import { describe, expect, it } from "vitest";
import { useState } from "react";
import { fireEvent, render, screen } from "@testing-library/react";
import { Select, optionsOf } from "./Select";
import { pick } from "../test/select";

function Filter({ initial = "" }: { initial?: string }) {
  const [server, setServer] = useState(initial);
  return (
    <>
      <label>
        Server
        <Select value={server} onChange={setServer}>
          <option value="">All servers</option>
          <option>demo</option>
          <option value="py" disabled>
            py (stopped)
          </option>
          <option value="other">
            other ({2} tools)
          </option>
        </Select>
      </label>
      <output>{JSON.stringify(server)}</output>
    </>
  );
}

describe("the design system's select", () => {
  it("reads its options from <option> children: a value-less option's value is its text", () => {
    expect(
      optionsOf([
        <option key="a" value="">
          All
        </option>,
        <option key="b">demo</option>,
        <option key="c" value={3}>
          three ({3})
        </option>,
        null,
      ]),
    ).toEqual([
      { value: "", label: "All", disabled: undefined },
      { value: "demo", label: "demo", disabled: undefined },
      { value: "3", label: "three (3)", disabled: undefined },
    ]);
  });

  it("shows the picked option's label, opens on the keyboard, and picks — the empty value too", () => {
    render(<Filter />);
    const button = screen.getByLabelText("Server");
    expect(button.getAttribute("role")).toBe("combobox");
    expect(button.textContent).toBe("All servers");
    expect(screen.queryByRole("listbox")).toBeNull();

    fireEvent.keyDown(button, { key: "Enter" });
    const options = screen.getAllByRole("option");
    expect(options.map((o) => o.textContent)).toEqual(["All servers", "demo", "py (stopped)", "other (2 tools)"]);
    expect(options[0]?.dataset.state).toBe("checked");
    expect(options[2]?.getAttribute("aria-disabled")).toBe("true");
    fireEvent.keyDown(screen.getByRole("option", { name: "demo" }), { key: "Enter" });
    expect(screen.queryByRole("listbox")).toBeNull();
    expect(screen.getByRole("status").textContent).toBe('"demo"');
    expect(button.textContent).toBe("demo");

    pick(button, "All servers");
    expect(screen.getByRole("status").textContent).toBe('""');
    expect(button.textContent).toBe("All servers");
  });

  it("a value that is none of the options shows the placeholder, not another option", () => {
    render(<Filter initial="gone" />);
    expect(screen.getByLabelText("Server").textContent).toBe("—");
  });
});
