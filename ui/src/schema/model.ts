// JSON Schema (as tools send it) → what the form shows. Pure functions, so
// the table of schemas in model.test.ts pins every decision.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = { [key: string]: unknown };

export type Widget =
  | "text"
  | "textarea"
  | "email"
  | "url"
  | "date"
  | "datetime"
  | "time"
  | "number"
  | "integer"
  | "checkbox"
  | "select"
  | "multiselect"
  | "list"
  | "object"
  | "variants"
  | "json";

const isObject = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);

/** Resolved `$ref`s per root schema: a hostile schema that names the same
 * definition many times over (allOf of allOf …) is resolved once per name. */
const resolvedRefs = new WeakMap<Schema, Map<string, Schema>>();
/** Deeper than this, a schema is shown as JSON (an empty schema here). */
const MAX_DEPTH = 128;

/** Follow `#/...` references within `root` (cycles end as an empty schema). */
export function resolve(schema: unknown, root: Schema, seen: Set<string> = new Set(), depth = 0): Schema {
  if (!isObject(schema) || depth > MAX_DEPTH) return {};
  const ref = schema.$ref;
  if (typeof ref === "string" && ref.startsWith("#")) {
    if (seen.has(ref)) return {};
    let cache = resolvedRefs.get(root);
    if (!cache) resolvedRefs.set(root, (cache = new Map()));
    const { $ref: _r, ...own } = schema;
    void _r;
    const known = cache.get(ref);
    if (known) return { ...known, ...own };
    const target = ref
      .slice(1)
      .split("/")
      .filter(Boolean)
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), root);
    const resolved = resolve(target, root, new Set([...seen, ref]), depth + 1);
    cache.set(ref, resolved);
    return { ...resolved, ...own };
  }
  if (Array.isArray(schema.allOf)) {
    const merged: Schema = { ...schema };
    delete merged.allOf;
    for (const part of schema.allOf) {
      const r = resolve(part, root, seen, depth + 1);
      merged.properties = { ...(merged.properties as Schema | undefined), ...(r.properties as Schema | undefined) };
      merged.required = [...((merged.required as string[]) ?? []), ...((r.required as string[]) ?? [])];
      for (const [k, v] of Object.entries(r)) if (!(k in merged)) merged[k] = v;
    }
    return merged;
  }
  return single(schema, root, seen, depth);
}

/**
 * `{anyOf: [X, {type: "null"}]}` (one alternative besides null, no type or
 * properties of its own) is X that may be null: the form shows X's fields
 * and a null switch, and checks X (was: an empty box that could not be filled).
 */
function single(schema: Schema, root: Schema, seen: Set<string>, depth: number): Schema {
  const key = Array.isArray(schema.anyOf) ? "anyOf" : Array.isArray(schema.oneOf) ? "oneOf" : null;
  if (!key || schema.type !== undefined || schema.properties !== undefined) return schema;
  const list = schema[key] as unknown[];
  const alts = list.filter((v) => !(isObject(v) && v.type === "null"));
  if (alts.length !== 1) return schema;
  const { [key]: _alts, ...own } = schema;
  void _alts;
  const inner = resolve(alts[0], root, seen, depth + 1);
  return { ...inner, ...own, ...(alts.length < list.length ? { nullable: true } : {}) };
}

/** The schema's types, and whether null is one of them. */
export function types(schema: Schema): { types: string[]; nullable: boolean } {
  const raw = schema.type;
  const list = Array.isArray(raw) ? raw.map(String) : typeof raw === "string" ? [raw] : [];
  const variants = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
  const nullVariant = Array.isArray(variants) && variants.some((v) => isObject(v) && v.type === "null");
  return {
    types: list.filter((t) => t !== "null"),
    nullable: list.includes("null") || nullVariant || schema.nullable === true,
  };
}

/** The alternatives of a oneOf/anyOf, without a bare `{type: "null"}`. */
export function variantsOf(schema: Schema, root: Schema): Schema[] {
  const list = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (!Array.isArray(list)) return [];
  return list.map((v) => resolve(v, root)).filter((v) => v.type !== "null");
}

/**
 * The choices of an enum-like schema, with their labels: `enum` (labels from
 * the legacy `enumNames`), a `const`, or a oneOf/anyOf whose every
 * alternative is a `const` (labels from their `title`). Null when not one.
 */
export function choices(schemaIn: Schema, root: Schema): { value: Json; label: string }[] | null {
  const schema = resolve(schemaIn, root);
  const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? (schema.enumNames as unknown[]) : [];
    return (schema.enum as Json[]).map((value, i) => ({ value, label: typeof names[i] === "string" ? (names[i] as string) : show(value) }));
  }
  if (schema.const !== undefined) return [{ value: schema.const as Json, label: typeof schema.title === "string" ? schema.title : show(schema.const) }];
  const list = (schema.oneOf ?? schema.anyOf) as unknown[] | undefined;
  if (Array.isArray(list) && list.length > 0) {
    const alts = list.map((v) => resolve(v, root)).filter((v) => v.type !== "null");
    if (alts.length > 0 && alts.every((v) => v.const !== undefined)) {
      return alts.map((v) => ({ value: v.const as Json, label: typeof v.title === "string" ? v.title : show(v.const) }));
    }
  }
  return null;
}

export function widgetFor(schemaIn: Schema, root: Schema): Widget {
  const schema = resolve(schemaIn, root);
  if (choices(schema, root)) return "select";
  if (types(schema).types[0] === "array" && schema.items && choices(schema.items as Schema, root)) return "multiselect";
  const variants = variantsOf(schema, root);
  if (variants.length > 1) return "variants";
  if (variants.length === 1 && !schema.type) return widgetFor(variants[0] ?? {}, root);
  const { types: t } = types(schema);
  const kind = t[0] ?? (schema.properties ? "object" : schema.items ? "array" : "");
  switch (kind) {
    case "string":
      switch (schema.format) {
        case "email":
          return "email";
        case "uri":
        case "url":
          return "url";
        case "date":
          return "date";
        case "date-time":
          return "datetime";
        case "time":
          return "time";
        default:
          return typeof schema.maxLength === "number" && schema.maxLength > 200 ? "textarea" : "text";
      }
    case "number":
      return "number";
    case "integer":
      return "integer";
    case "boolean":
      return "checkbox";
    case "array":
      return "list";
    case "object":
      return schema.properties ? "object" : "json";
    default:
      return "json";
  }
}

/** The value a fresh form starts with: defaults, and what required objects need. */
export function initialValue(schemaIn: Schema, root: Schema, required = true): Json | undefined {
  const schema = resolve(schemaIn, root);
  if (schema.default !== undefined) return schema.default as Json;
  if (schema.const !== undefined) return schema.const as Json;
  const widget = widgetFor(schema, root);
  if (widget === "object") {
    const out: { [k: string]: Json } = {};
    const req = new Set((schema.required as string[]) ?? []);
    for (const [k, sub] of Object.entries((schema.properties as Schema) ?? {})) {
      const v = initialValue(sub as Schema, root, req.has(k));
      if (v !== undefined) out[k] = v;
    }
    return required || Object.keys(out).length > 0 ? out : undefined;
  }
  if (widget === "variants") {
    return initialValue(variantsOf(schema, root)[0] ?? {}, root, required);
  }
  if (widget === "checkbox" && required) return false;
  if (widget === "list" && required) return [];
  return undefined;
}

/** Which alternative of a oneOf/anyOf a value fits best (by type and keys). */
export function pickVariant(variants: Schema[], value: Json | undefined, root: Schema): number {
  const score = (v: Schema): number => {
    const s = resolve(v, root);
    const { types: t } = types(s);
    if (value === undefined) return 0;
    const actual = value === null ? "null" : Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
    if (s.const !== undefined) return s.const === value ? 10 : -1;
    if (Array.isArray(s.enum)) return s.enum.includes(value) ? 8 : -1;
    if (t.length && !t.includes(actual) && !(actual === "integer" && t.includes("number"))) return -1;
    if (actual === "object" && s.properties && typeof value === "object" && value !== null) {
      const keys = Object.keys(value);
      const props = s.properties as Schema;
      const consts = Object.entries(props).filter(([, p]) => isObject(p) && p.const !== undefined);
      for (const [k, p] of consts) if ((value as Record<string, Json>)[k] !== (p as Schema).const) return -1;
      return 1 + keys.filter((k) => k in props).length;
    }
    return 1;
  };
  let best = 0;
  let bestScore = -Infinity;
  variants.forEach((v, i) => {
    const s = score(v);
    if (s > bestScore) {
      best = i;
      bestScore = s;
    }
  });
  return best;
}

/** A short label for an alternative. */
export function variantLabel(v: Schema, i: number): string {
  if (typeof v.title === "string") return v.title;
  const props = v.properties as Schema | undefined;
  const tag = props && Object.values(props).find((p) => isObject(p) && p.const !== undefined);
  if (tag) return String((tag as Schema).const);
  const { types: t } = types(v);
  return t.length ? t.join(" | ") : `option ${i + 1}`;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

/** Why a string does not fit the schema's `format` (null: it fits, or no format). */
export function formatProblem(schema: Schema, value: unknown): string | null {
  if (typeof value !== "string" || value === "") return null;
  switch (schema.format) {
    case "email":
      return EMAIL.test(value) ? null : "not an email address";
    case "uri":
    case "url":
      try {
        new URL(value);
        return null;
      } catch {
        return "not an absolute URI (scheme:rest)";
      }
    case "date":
      return DATE.test(value) && !Number.isNaN(Date.parse(value)) ? null : "not a date (YYYY-MM-DD)";
    case "date-time":
      return DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? null : "not a date and time (YYYY-MM-DDTHH:MM:SS)";
    default:
      return null;
  }
}

/** What is wrong with one value against its own schema's keywords (not its children). */
function keywordProblems(schema: Schema, value: Json): string[] {
  const out: string[] = [];
  const { types: t, nullable } = types(schema);
  if (value === null) return nullable || t.length === 0 || t.includes("null") ? [] : ["null is not allowed"];
  const kind = Array.isArray(value) ? "array" : typeof value === "number" ? (Number.isInteger(value) ? "integer" : "number") : typeof value;
  if (t.length > 0 && !t.some((x) => x === kind || (x === "number" && kind === "integer"))) {
    const a = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);
    return [`${a(t.join(" or "))} is expected, not ${a(kind)}`];
  }
  if (Array.isArray(schema.enum) && !(schema.enum as Json[]).some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    out.push(`one of ${(schema.enum as Json[]).map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) out.push(`must be ${JSON.stringify(schema.const)}`);
  if (typeof value === "string") {
    const format = formatProblem(schema, value);
    if (format) out.push(format);
    if (typeof schema.minLength === "number" && [...value].length < schema.minLength) out.push(`at least ${schema.minLength} characters`);
    if (typeof schema.maxLength === "number" && [...value].length > schema.maxLength) out.push(`at most ${schema.maxLength} characters`);
    if (typeof schema.pattern === "string") {
      try {
        if (!new RegExp(schema.pattern, "u").test(value)) out.push(`does not match the pattern ${schema.pattern}`);
      } catch {
        // A pattern JavaScript cannot read: the server checks it.
      }
    }
  }
  if (typeof value === "number") {
    const n = (k: string) => (typeof schema[k] === "number" ? (schema[k] as number) : null);
    const [min, max, xmin, xmax, step] = [n("minimum"), n("maximum"), n("exclusiveMinimum"), n("exclusiveMaximum"), n("multipleOf")];
    if (min !== null && value < min) out.push(`at least ${min}`);
    if (max !== null && value > max) out.push(`at most ${max}`);
    if (xmin !== null && value <= xmin) out.push(`more than ${xmin}`);
    if (xmax !== null && value >= xmax) out.push(`less than ${xmax}`);
    if (step !== null && step > 0 && Math.abs(value / step - Math.round(value / step)) > 1e-9) out.push(`a multiple of ${step}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === "number" && value.length < schema.minItems) out.push(`at least ${schema.minItems} item${schema.minItems === 1 ? "" : "s"}`);
    if (typeof schema.maxItems === "number" && value.length > schema.maxItems) out.push(`at most ${schema.maxItems} items`);
  }
  return out;
}

/**
 * What is wrong with a value before it is sent, checked against the whole
 * schema the same way for every caller (the tool panel, a chat's edited
 * arguments): required fields left out or left empty, types, enums,
 * patterns, lengths, bounds and formats, nested objects and arrays — each
 * as "path: problem". The server checks for itself; this saves a round trip
 * (and can be overridden: "send anyway").
 */
export function problems(schemaIn: Schema, value: Json | undefined, root: Schema, path = ""): string[] {
  const schema = resolve(schemaIn, root);
  const where = path || "arguments";
  if (value === undefined) return [];
  const out: string[] = keywordProblems(schema, value).map((p) => `${where}: ${p}`);
  if (out.length > 0 && out[0]?.includes("is expected, not")) return out;
  if (value && typeof value === "object" && !Array.isArray(value)) {
    const props = (schema.properties ?? {}) as Record<string, Schema>;
    const at = (key: string) => `${path ? `${path}/` : ""}${key}`;
    for (const key of (schema.required as string[]) ?? []) {
      const v = (value as Record<string, Json>)[key];
      // A form's untouched text field is "", not a value someone gave.
      const sub = resolve(props[key] ?? {}, root);
      if (v === undefined || (v === "" && types(sub).types.includes("string") && !(typeof sub.minLength === "number" && sub.minLength === 0))) out.push(`${at(key)}: required`);
    }
    for (const [key, sub] of Object.entries(props)) {
      const v = (value as Record<string, Json>)[key];
      if (v !== undefined && !(v === "" && ((schema.required as string[]) ?? []).includes(key))) out.push(...problems(sub, v, root, at(key)));
    }
  }
  if (Array.isArray(value) && schema.items) {
    value.forEach((v, i) => out.push(...problems(schema.items as Schema, v, root, `${where}/${i + 1}`)));
  }
  const variants = variantsOf(schema, root);
  if (variants.length > 1 && value !== null && !variants.some((v) => problems(v, value, root, path).length === 0)) {
    out.push(`${where}: fits none of the ${variants.length} alternatives`);
  }
  return out;
}
