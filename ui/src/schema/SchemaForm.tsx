// A form generated from a tool's input schema. Our own (not rjsf): ajv, which
// rjsf validates with, compiles schemas with `new Function`, and the window's
// CSP allows no eval. The value is plain JSON; the server checks it.
import { useId, useState } from "react";
import { ArrowDown, ArrowUp, Plus, X } from "lucide-react";
import { Button, Checkbox, IconButton, Input, Select, Textarea } from "../design";
import {
  choices,
  formatProblem,
  initialValue,
  pickVariant,
  resolve,
  types,
  variantLabel,
  variantsOf,
  widgetFor,
  type Json,
  type Schema,
} from "./model";

type Props = {
  schema: Schema;
  root: Schema;
  value: Json | undefined;
  onChange: (v: Json | undefined) => void;
  label: string;
  required?: boolean;
  /** An element of a list: always present, so no required mark. */
  item?: boolean;
  path: string;
};

const INPUT_TYPE: Record<string, string> = {
  email: "email",
  url: "url",
  date: "date",
  datetime: "datetime-local",
  time: "time",
  text: "text",
};

function Label({ text, required, htmlFor }: { text: string; required?: boolean; htmlFor?: string }) {
  return (
    <label className="field-label" htmlFor={htmlFor}>
      {text}
      {required && (
        <span className="required" aria-label="required">
          {" "}
          *
        </span>
      )}
    </label>
  );
}

function Description({ schema }: { schema: Schema }) {
  return typeof schema.description === "string" ? <p className="field-description">{schema.description}</p> : null;
}

/** A JSON value typed as text, for schemas the form has no widget for. */
function JsonField({ value, onChange, id }: { value: Json | undefined; onChange: (v: Json | undefined) => void; id: string }) {
  const [text, setText] = useState(value === undefined ? "" : JSON.stringify(value, null, 2));
  const [error, setError] = useState<string | null>(null);
  return (
    <>
      <Textarea
        id={id}
        className="json-field"
        value={text}
        spellCheck={false}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === "") {
            setError(null);
            onChange(undefined);
            return;
          }
          try {
            onChange(JSON.parse(e.target.value) as Json);
            setError(null);
          } catch (err) {
            setError(err instanceof Error ? err.message : String(err));
          }
        }}
      />
      {error && <p className="field-error">Not JSON: {error}</p>}
    </>
  );
}

export function SchemaField({ schema: raw, root, value, onChange, label, required, item, path }: Props) {
  const id = useId();
  const schema = resolve(raw, root);
  const widget = widgetFor(schema, root);
  const { nullable } = types(schema);
  const title = typeof schema.title === "string" && !item ? schema.title : label;
  const mark = required && !item;

  if (nullable && widget !== "variants" && widget !== "select") {
    const isNull = value === null;
    const inner: Schema = { ...schema, type: types(schema).types[0] ?? schema.type, nullable: false };
    if (Array.isArray(inner.anyOf)) inner.anyOf = (inner.anyOf as Schema[]).filter((v) => v.type !== "null");
    if (Array.isArray(inner.oneOf)) inner.oneOf = (inner.oneOf as Schema[]).filter((v) => v.type !== "null");
    return (
      <div className="field nullable" data-path={path}>
        <SchemaField
          schema={inner}
          root={root}
          value={isNull ? undefined : value}
          onChange={onChange}
          label={label}
          required={required}
          path={path}
        />
        {/* Beside the field's label (placed by CSS), saying what it sets. */}
        <label className="null-toggle" title={`Send ${label} as null`}>
          <Checkbox checked={isNull} onChange={(e) => onChange(e.target.checked ? null : undefined)} /> null
        </label>
      </div>
    );
  }

  switch (widget) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const req = new Set((schema.required as string[]) ?? []);
      const obj = (value && typeof value === "object" && !Array.isArray(value) ? value : {}) as Record<string, Json>;
      const fields = Object.entries(props).map(([key, sub]) => (
        <SchemaField
          key={key}
          schema={sub}
          root={root}
          value={obj[key]}
          label={key}
          required={req.has(key)}
          path={`${path}/${key}`}
          onChange={(v) => {
            const rest = Object.fromEntries(Object.entries(obj).filter(([k]) => k !== key));
            onChange(v === undefined ? rest : { ...rest, [key]: v });
          }}
        />
      ));
      if (path === "") return <div className="schema-form-root">{fields}</div>;
      return (
        <fieldset className="field object" data-path={path}>
          <legend>
            {title}
            {mark && <span className="required"> *</span>}
          </legend>
          <Description schema={schema} />
          {fields}
        </fieldset>
      );
    }
    case "list": {
      const items = Array.isArray(value) ? value : [];
      const itemSchema = resolve(schema.items ?? {}, root);
      const itemTitle = typeof itemSchema.title === "string" ? itemSchema.title : "Item";
      const move = (i: number, by: number) => {
        const next = [...items];
        const [it] = next.splice(i, 1);
        if (it !== undefined) next.splice(i + by, 0, it);
        onChange(next);
      };
      return (
        <fieldset className="field list" data-path={path}>
          <legend>
            {title}
            {mark && <span className="required"> *</span>}
          </legend>
          <Description schema={schema} />
          {items.length === 0 && <p className="muted list-empty">Empty.</p>}
          {items.map((item, i) => (
            <div className={`list-item${widgetFor(itemSchema, root) === "object" ? " list-item-object" : ""}`} key={i}>
              <SchemaField
                schema={itemSchema}
                root={root}
                value={item}
                label={`${itemTitle} ${i + 1}`}
                required
                item
                path={`${path}/${i}`}
                onChange={(v) => onChange(items.map((old, j) => (j === i ? (v ?? null) : old)))}
              />
              <div className="list-item-actions">
                <IconButton size="sm" label={`Move ${itemTitle.toLowerCase()} ${i + 1} up`} icon={ArrowUp} disabled={i === 0} onClick={() => move(i, -1)} />
                <IconButton size="sm" label={`Move ${itemTitle.toLowerCase()} ${i + 1} down`} icon={ArrowDown} disabled={i === items.length - 1} onClick={() => move(i, 1)} />
                <IconButton size="sm" label={`Remove ${itemTitle.toLowerCase()} ${i + 1} of ${label}`} icon={X} className="remove" onClick={() => onChange(items.filter((_, j) => j !== i))} />
              </div>
            </div>
          ))}
          <Button size="sm" icon={Plus} onClick={() => onChange([...items, initialValue(itemSchema, root, true) ?? (widgetFor(itemSchema, root) === "text" ? "" : null)])}>
            Add to {label}
          </Button>
        </fieldset>
      );
    }
    case "multiselect": {
      const options = choices(resolve(schema.items ?? {}, root), root) ?? [];
      const chosen = Array.isArray(value) ? value : [];
      const has = (v: Json) => chosen.some((c) => JSON.stringify(c) === JSON.stringify(v));
      return (
        <fieldset className="field multiselect" data-path={path}>
          <legend>
            {title}
            {mark && <span className="required"> *</span>}
          </legend>
          <Description schema={schema} />
          {options.map((o, i) => (
            <label key={i} className="check-option">
              <Checkbox
               
                checked={has(o.value)}
                onChange={(e) =>
                  // Kept in the order the schema lists them.
                  onChange(options.filter((x) => (x === o ? e.target.checked : has(x.value))).map((x) => x.value))
                }
              />{" "}
              {o.label}
            </label>
          ))}
        </fieldset>
      );
    }
    case "variants": {
      const variants = variantsOf(schema, root);
      const chosen = pickVariant(variants, value ?? undefined, root);
      return (
        <fieldset className="field variants" data-path={path}>
          <legend>
            {title}
            {mark && <span className="required"> *</span>}
          </legend>
          <Description schema={schema} />
          <Select
            aria-label={`${label}: kind`}
            value={chosen}
            onChange={(v) => onChange(initialValue(variants[Number(v)] ?? {}, root, true))}
          >
            {variants.map((v, i) => (
              <option key={i} value={i}>
                {variantLabel(v, i)}
              </option>
            ))}
          </Select>
          <SchemaField schema={variants[chosen] ?? {}} root={root} value={value} onChange={onChange} label={label} required path={path} />
        </fieldset>
      );
    }
    case "select": {
      const options = choices(schema, root) ?? [];
      const index = options.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(value));
      return (
        <div className="field" data-path={path}>
          <Label text={title} required={mark} htmlFor={id} />
          <Select id={id} value={index} onChange={(v) => onChange(Number(v) < 0 ? undefined : options[Number(v)]?.value)}>
            {!required || index < 0 ? <option value={-1}>—</option> : null}
            {options.map((o, i) => (
              <option key={i} value={i}>
                {o.label}
              </option>
            ))}
          </Select>
          <Description schema={schema} />
        </div>
      );
    }
    case "checkbox":
      return (
        <div className="field checkbox" data-path={path}>
          <Checkbox id={id} checked={value === true} onChange={(e) => onChange(e.target.checked)} />
          <Label text={title} required={mark} htmlFor={id} />
          <Description schema={schema} />
        </div>
      );
    case "number":
    case "integer":
      return (
        <div className="field" data-path={path}>
          <Label text={title} required={mark} htmlFor={id} />
          <Input
            id={id}
            type="number"
            value={typeof value === "number" ? value : ""}
            min={typeof schema.minimum === "number" ? schema.minimum : undefined}
            max={typeof schema.maximum === "number" ? schema.maximum : undefined}
            step={widget === "integer" ? 1 : "any"}
            onChange={(e) => {
              if (e.target.value === "") return onChange(undefined);
              const n = Number(e.target.value);
              if (!Number.isNaN(n)) onChange(widget === "integer" ? Math.trunc(n) : n);
            }}
          />
          <Description schema={schema} />
        </div>
      );
    case "json":
      return (
        <div className="field" data-path={path}>
          <Label text={title} required={mark} htmlFor={id} />
          <JsonField id={id} value={value} onChange={onChange} />
          <Description schema={schema} />
        </div>
      );
    default: {
      const text = typeof value === "string" ? value : "";
      const common = {
        id,
        value: text,
        minLength: typeof schema.minLength === "number" ? schema.minLength : undefined,
        maxLength: typeof schema.maxLength === "number" ? schema.maxLength : undefined,
        placeholder: hint(schema),
      };
      const set = (v: string) => onChange(v === "" && !required ? undefined : v);
      const problem = formatProblem(schema, value);
      const described = problem ? `${id}-problem` : undefined;
      return (
        <div className="field" data-path={path}>
          <Label text={title} required={mark} htmlFor={id} />
          {widget === "textarea" ? (
            <Textarea {...common} aria-invalid={problem ? true : undefined} aria-describedby={described} onChange={(e) => set(e.target.value)} />
          ) : (
            // Free text (not the browser's date and email widgets, which
            // hide what was typed): the format is checked below.
            <Input {...common} type={widget === "datetime" || widget === "date" || widget === "email" || widget === "url" ? "text" : (INPUT_TYPE[widget] ?? "text")} aria-invalid={problem ? true : undefined} aria-describedby={described} onChange={(e) => set(e.target.value)} />
          )}
          {problem && (
            <p className="field-error" id={described}>
              {problem}
            </p>
          )}
          <Description schema={schema} />
        </div>
      );
    }
  }
}

/** An example to show in an empty field, never a bare word that reads as a value. */
const FORMAT_EXAMPLE: Record<string, string> = {
  email: "someone@example.com",
  "date-time": "2026-01-31T09:30:00Z",
  date: "2026-01-31",
  time: "09:30:00",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "123e4567-e89b-42d3-a456-426614174000",
  ipv4: "192.0.2.1",
  hostname: "example.com",
};

function hint(schema: Schema): string | undefined {
  const examples = schema.examples;
  if (Array.isArray(examples) && typeof examples[0] === "string") return `e.g. ${examples[0]}`;
  const format = typeof schema.format === "string" ? schema.format : undefined;
  if (format && FORMAT_EXAMPLE[format]) return `e.g. ${FORMAT_EXAMPLE[format]}`;
  return format ? `a ${format}` : undefined;
}

/** The whole form for an input schema. */
export function SchemaForm({ schema, value, onChange }: { schema: Schema; value: Json | undefined; onChange: (v: Json | undefined) => void }) {
  return <SchemaField schema={schema} root={schema} value={value} onChange={onChange} label="arguments" required path="" />;
}
