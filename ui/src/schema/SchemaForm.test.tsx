import { describe, expect, it } from "vitest";
import { useState } from "react";
import { fireEvent, render, screen, within } from "@testing-library/react";
import { SchemaForm } from "./SchemaForm";
import { initialValue, problems, widgetFor, type Json, type Schema } from "./model";
import { pick } from "../test/select";

/** Render the form and expose the JSON it currently produces. */
function Harness({ schema }: { schema: Schema }) {
  const [value, setValue] = useState<Json | undefined>(() => initialValue(schema, schema));
  return (
    <>
      <SchemaForm schema={schema} value={value} onChange={setValue} />
      <output data-testid="json">{JSON.stringify(value ?? null)}</output>
    </>
  );
}

const json = () => JSON.parse(screen.getByTestId("json").textContent ?? "null") as Json;
const obj = (properties: Schema, required: string[] = []): Schema => ({ type: "object", properties, required });

type Case = {
  name: string;
  schema: Schema;
  /** The widget each top-level property gets. */
  widgets: Record<string, string>;
  /** What the form produces before any input. */
  initial: Json;
  /** Interact, then expect this JSON. */
  act?: () => void;
  after?: Json;
};

const cases: Case[] = [
  {
    name: "strings with formats, defaults and required marks",
    schema: obj(
      {
        name: { type: "string", default: "ada" },
        email: { type: "string", format: "email" },
        site: { type: "string", format: "uri" },
        day: { type: "string", format: "date" },
      },
      ["name"],
    ),
    widgets: { name: "text", email: "email", site: "url", day: "date" },
    initial: { name: "ada" },
    act: () => fireEvent.change(screen.getByLabelText("email"), { target: { value: "a@b.c" } }),
    after: { name: "ada", email: "a@b.c" },
  },
  {
    name: "numbers and integers with bounds",
    schema: obj({ ratio: { type: "number", minimum: 0, maximum: 1 }, count: { type: "integer", minimum: 1 } }, ["count"]),
    widgets: { ratio: "number", count: "integer" },
    initial: {},
    act: () => {
      fireEvent.change(screen.getByLabelText(/count/), { target: { value: "7" } });
      fireEvent.change(screen.getByLabelText("ratio"), { target: { value: "0.5" } });
    },
    after: { count: 7, ratio: 0.5 },
  },
  {
    name: "booleans and enums",
    schema: obj({ loud: { type: "boolean" }, level: { type: "string", enum: ["low", "high"] } }, ["loud"]),
    widgets: { loud: "checkbox", level: "select" },
    initial: { loud: false },
    act: () => {
      fireEvent.click(screen.getByLabelText(/loud/));
      pick(screen.getByLabelText("level"), "high");
    },
    after: { loud: true, level: "high" },
  },
  {
    name: "arrays of scalars and of objects",
    schema: obj({
      tags: { type: "array", items: { type: "string" } },
      points: { type: "array", items: obj({ x: { type: "number" }, y: { type: "number", default: 0 } }, ["x"]) },
    }),
    widgets: { tags: "list", points: "list" },
    initial: {},
    act: () => {
      fireEvent.click(screen.getByText("Add to tags"));
      fireEvent.change(screen.getByLabelText("Item 1"), { target: { value: "red" } });
      fireEvent.click(screen.getByText("Add to points"));
      fireEvent.change(screen.getByLabelText(/^x/), { target: { value: "3" } });
    },
    after: { tags: ["red"], points: [{ y: 0, x: 3 }] },
  },
  {
    name: "nested objects, $ref and $defs",
    schema: {
      type: "object",
      $defs: { address: obj({ city: { type: "string" }, zip: { type: "string" } }, ["city"]) },
      properties: { home: { $ref: "#/$defs/address" } },
      required: ["home"],
    },
    widgets: { home: "object" },
    initial: { home: {} },
    act: () => fireEvent.change(screen.getByLabelText(/city/), { target: { value: "Oslo" } }),
    after: { home: { city: "Oslo" } },
  },
  {
    name: "oneOf picks a variant and its fields",
    schema: obj(
      {
        shape: {
          oneOf: [
            { title: "circle", ...obj({ kind: { const: "circle" }, r: { type: "number" } }, ["kind"]) },
            { title: "square", ...obj({ kind: { const: "square" }, side: { type: "number" } }, ["kind"]) },
          ],
        },
      },
      ["shape"],
    ),
    widgets: { shape: "variants" },
    initial: { shape: { kind: "circle" } },
    act: () => {
      pick(screen.getByLabelText("shape: kind"), "square");
      fireEvent.change(screen.getByLabelText("side"), { target: { value: "2" } });
    },
    after: { shape: { kind: "square", side: 2 } },
  },
  {
    name: "titled enums, legacy enumNames and multi-select lists",
    schema: obj({
      size: { oneOf: [{ const: "s", title: "Small" }, { const: "l", title: "Large" }] },
      color: { type: "string", enum: ["r", "g"], enumNames: ["Red", "Green"] },
      days: { type: "array", items: { type: "string", enum: ["mon", "tue", "wed"] } },
    }),
    widgets: { size: "select", color: "select", days: "multiselect" },
    initial: {},
    act: () => {
      // The titles are what the person picks from.
      pick(screen.getByLabelText("size"), "Large");
      pick(screen.getByLabelText("color"), "Red");
      fireEvent.click(screen.getByLabelText("wed"));
      fireEvent.click(screen.getByLabelText("mon"));
    },
    after: { size: "l", color: "r", days: ["mon", "wed"] },
  },
  {
    name: "list items move up and down and are named by position",
    schema: obj({ steps: { type: "array", items: { type: "string" }, default: ["a", "b", "c"] } }),
    widgets: { steps: "list" },
    initial: { steps: ["a", "b", "c"] },
    act: () => {
      fireEvent.click(screen.getByLabelText("Move item 3 up"));
      fireEvent.click(screen.getByLabelText("Remove item 1 of steps"));
    },
    after: { steps: ["c", "b"] },
  },
  {
    name: "nullable values can be set to null",
    schema: obj({ note: { type: ["string", "null"] }, limit: { anyOf: [{ type: "integer" }, { type: "null" }] } }),
    widgets: { note: "text", limit: "integer" },
    initial: {},
    act: () => {
      const note = screen.getByLabelText("note").closest(".nullable") as HTMLElement;
      expect(within(note).getByTitle("Send note as null")).toBeTruthy();
      fireEvent.click(within(note).getByLabelText("null"));
    },
    after: { note: null },
  },
];

describe("the schema form", () => {
  for (const c of cases) {
    it(c.name, () => {
      const props = (c.schema.properties ?? {}) as Record<string, Schema>;
      for (const [key, widget] of Object.entries(c.widgets)) {
        expect(widgetFor(props[key] ?? {}, c.schema), key).toBe(widget);
      }
      render(<Harness schema={c.schema} />);
      expect(json()).toEqual(c.initial);
      if (c.act) {
        c.act();
        expect(json()).toEqual(c.after);
      }
    });
  }

  it("marks required fields and gives numbers their bounds", () => {
    render(<Harness schema={obj({ n: { type: "integer", minimum: 1, maximum: 9 }, s: { type: "string" } }, ["n"])} />);
    const n = screen.getByLabelText(/^n/) as HTMLInputElement;
    expect(n.min).toBe("1");
    expect(n.max).toBe("9");
    expect(screen.getAllByLabelText("required")).toHaveLength(1);
  });

  it("takes any JSON where the schema gives no shape", () => {
    render(<Harness schema={obj({ extra: {} })} />);
    fireEvent.change(screen.getByLabelText("extra"), { target: { value: '{"a": [1, 2]}' } });
    expect(json()).toEqual({ extra: { a: [1, 2] } });
    fireEvent.change(screen.getByLabelText("extra"), { target: { value: "{oops" } });
    expect(screen.getByText(/Not JSON/)).toBeTruthy();
    expect(json()).toEqual({ extra: { a: [1, 2] } });
  });

  it("says when a string does not fit its format", () => {
    render(<Harness schema={obj({ email: { type: "string", format: "email" }, when: { type: "string", format: "date-time" } })} />);
    fireEvent.change(screen.getByLabelText("email"), { target: { value: "not-an-address" } });
    expect(screen.getByText("not an email address")).toBeTruthy();
    fireEvent.change(screen.getByLabelText("when"), { target: { value: "2026-11-23T10:00:00Z" } });
    expect(screen.queryByText(/not a date and time/)).toBeNull();
  });

  it("lists what is wrong before sending: required fields and formats, nested too", () => {
    const schema = obj(
      {
        to: { type: "string", format: "email" },
        site: { type: "string", format: "uri" },
        meta: obj({ day: { type: "string", format: "date" }, id: { type: "string" } }, ["id"]),
      },
      ["to", "meta"],
    );
    expect(problems(schema, { site: "nowhere", meta: { day: "2026-13-45" } }, schema)).toEqual([
      "to: required",
      "site: not an absolute URI (scheme:rest)",
      "meta/id: required",
      "meta/day: not a date (YYYY-MM-DD)",
    ]);
    expect(problems(schema, { to: "a@b.io", meta: { id: "x" } }, schema)).toEqual([]);
  });

  it("shows an example in an empty field, never a word that reads as a value", () => {
    render(<Harness schema={obj({ to: { type: "string", format: "email" }, code: { type: "string", examples: ["ABC"] }, when: { type: "string", format: "date-time" } })} />);
    expect((screen.getByLabelText("to") as HTMLInputElement).placeholder).toBe("e.g. someone@example.com");
    expect((screen.getByLabelText("code") as HTMLInputElement).placeholder).toBe("e.g. ABC");
    expect((screen.getByLabelText("when") as HTMLInputElement).placeholder).toBe("e.g. 2026-01-31T09:30:00Z");
    expect(json()).toEqual({});
  });
});
