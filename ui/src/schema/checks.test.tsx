// The arguments check before sending, on the demo's create_order schema:
// the same whole-schema check for every caller (issue: an empty required
// name and a postcode breaking its pattern went out), and a nullable object
// that renders its fields (was an empty box).
import { describe, expect, it } from "vitest";
import { render, screen } from "@testing-library/react";
import { SchemaForm } from "./SchemaForm";
import { problems, type Schema } from "./model";

const address: Schema = {
  type: "object",
  properties: {
    street: { type: "string", minLength: 1 },
    city: { type: "string" },
    postcode: { type: "string", pattern: "^[A-Z0-9 -]{3,10}$" },
  },
  required: ["street", "city"],
};
const order: Schema = {
  type: "object",
  $defs: { address },
  properties: {
    customer: { type: "object", properties: { name: { type: "string" }, email: { type: "string", format: "email" }, address: { $ref: "#/$defs/address" } }, required: ["name", "email"] },
    items: { type: "array", minItems: 1, items: { type: "object", properties: { sku: { type: "string" }, quantity: { type: "integer", minimum: 1, maximum: 99 } }, required: ["sku"] } },
    priority: { type: "string", enum: ["low", "normal", "high"] },
    billing_address: { anyOf: [{ $ref: "#/$defs/address" }, { type: "null" }] },
  },
  required: ["customer", "items"],
};

describe("arguments checked against the whole schema", () => {
  it("finds empty required fields, patterns, bounds, enums and nested problems", () => {
    const found = problems(
      order,
      {
        customer: { name: "", email: "not-an-email", address: { street: "", city: "Utrecht", postcode: "lower case" } },
        items: [{ sku: "a", quantity: 0 }, { quantity: 2.5 }],
        priority: "urgent",
        billing_address: { street: "Main 1", city: "X", postcode: "!!" },
      },
      order,
    );
    expect(found).toEqual([
      "customer/name: required",
      "customer/email: not an email address",
      "customer/address/street: required",
      "customer/address/postcode: does not match the pattern ^[A-Z0-9 -]{3,10}$",
      "items/1/quantity: at least 1",
      "items/2/sku: required",
      "items/2/quantity: an integer is expected, not a number",
      "priority: one of \"low\", \"normal\", \"high\"",
      "billing_address/postcode: does not match the pattern ^[A-Z0-9 -]{3,10}$",
    ]);
    expect(problems(order, { customer: { name: "Ada", email: "a@b.c" }, items: [] }, order)).toEqual(["items: at least 1 item"]);
    expect(problems(order, { customer: { name: "Ada", email: "a@b.c" }, items: [{ sku: "x" }], billing_address: null }, order)).toEqual([]);
  });

  it("renders a nullable object's fields so it can be filled", () => {
    const schema: Schema = { type: "object", $defs: { address }, properties: { billing_address: { anyOf: [{ $ref: "#/$defs/address" }, { type: "null" }] } } };
    render(<SchemaForm schema={schema} value={{}} onChange={() => {}} />);
    expect(screen.getByLabelText(/street/)).toBeTruthy();
    expect(screen.getByLabelText(/postcode/)).toBeTruthy();
    expect(screen.getByLabelText("null")).toBeTruthy();
  });
});
