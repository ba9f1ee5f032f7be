//! Input and output schemas: valid JSON Schema for their dialect (2020-12
//! unless they say otherwise), an object at the top, `required` naming
//! properties that exist, `$ref`s that resolve, arrays with `items`; and
//! what each LLM provider would refuse or have to rewrite — Gemini through
//! the same adaptation the agent applies.

use serde_json::Value;

use crate::finding::{Finding, Severity, escape, quote};

const DIALECT_2020: &str = "https://json-schema.org/draft/2020-12/schema";

/// Keywords that only annotate: a provider that drops them loses nothing
/// the server checks.
const HARMLESS: &[&str] = &[
    "default",
    "examples",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$id",
    "title",
];

/// Keywords OpenAI's strict mode does not take.
const NOT_STRICT: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "unevaluatedProperties",
    "propertyNames",
    "contains",
    "minProperties",
    "maxProperties",
];

/// Every subschema of `schema` with its pointer, the root first.
fn walk<'a>(schema: &'a Value, at: String, out: &mut Vec<(String, &'a Value)>, depth: usize) {
    if depth > 64 || !schema.is_object() {
        return;
    }
    out.push((at.clone(), schema));
    for key in ["properties", "$defs", "definitions", "patternProperties"] {
        if let Some(Value::Object(children)) = schema.get(key) {
            for (name, child) in children {
                walk(
                    child,
                    format!("{at}/{key}/{}", escape(name)),
                    out,
                    depth + 1,
                );
            }
        }
    }
    for key in [
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
    ] {
        if let Some(child) = schema.get(key) {
            walk(child, format!("{at}/{key}"), out, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(list)) = schema.get(key) {
            for (i, child) in list.iter().enumerate() {
                walk(child, format!("{at}/{key}/{i}"), out, depth + 1);
            }
        }
    }
}

fn is_array(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    }
}

/// Findings about one tool's schemas.
pub fn check(tool: &Value) -> Vec<Finding> {
    let name = tool["name"].as_str().unwrap_or("(no name)");
    let item = format!("tool {name}");
    let mut out = Vec::new();
    match tool.get("inputSchema") {
        None => out.push(
            Finding::new("schema.input-missing", Severity::Error, &item)
                .at("/inputSchema")
                .seen("no inputSchema")
                .why("the specification requires one; clients send an empty object schema or drop the tool")
                .fix("add \"inputSchema\": {\"type\": \"object\", \"properties\": {}}"),
        ),
        Some(schema) => one(&mut out, &item, "/inputSchema", schema, true),
    }
    if let Some(schema) = tool.get("outputSchema") {
        one(&mut out, &item, "/outputSchema", schema, false);
    }
    out
}

fn one(out: &mut Vec<Finding>, item: &str, at: &str, schema: &Value, input: bool) {
    if !schema.is_object() {
        out.push(
            Finding::new("schema.not-an-object", Severity::Error, item)
                .at(at)
                .seen(quote(schema))
                .why("a schema must be a JSON object")
                .fix("make it {\"type\": \"object\", ...}"),
        );
        return;
    }
    if schema["type"] != "object" {
        out.push(
            Finding::new("schema.top-not-object", Severity::Error, item)
                .at(format!("{at}/type"))
                .seen(format!("type {}", quote(&schema["type"])))
                .why(if input {
                    "arguments are a JSON object: the specification asks for \"type\": \"object\" at the top, and OpenAI, Anthropic and Gemini refuse any other function parameters"
                } else {
                    "structuredContent is a JSON object: the specification asks for \"type\": \"object\" at the top of outputSchema"
                })
                .fix("put the fields under an object's \"properties\""),
        );
    }
    if let Some(dialect) = schema["$schema"].as_str()
        && dialect.trim_end_matches('#') != DIALECT_2020
    {
        out.push(
            Finding::new("schema.dialect", Severity::Warning, item)
                .at(format!("{at}/$schema"))
                .seen(dialect.to_string())
                .why("MCP (2025-11-25) reads schemas as JSON Schema 2020-12 by default; clients that expect it read draft-07 keywords (definitions, dependencies, items as a list) differently, and Gemini refuses $schema")
                .fix("drop \"$schema\", or write the schema in 2020-12"),
        );
    }
    match jsonschema::meta::validate(schema) {
        Ok(()) => {
            if let Err(e) = jsonschema::validator_for(schema) {
                out.push(
                    Finding::new("schema.unresolvable", Severity::Error, item)
                        .at(at)
                        .seen(e.to_string())
                        .why("a validator cannot compile it (a $ref that points nowhere, or to the network): clients that validate arguments fail every call")
                        .fix("point each $ref at a definition in the same schema ($defs)"),
                );
            }
        }
        Err(e) => out.push(
            Finding::new("schema.invalid", Severity::Error, item)
                .at(format!("{at}{}", e.instance_path()))
                .seen(e.to_string())
                .why("it is not valid JSON Schema for its dialect: clients and providers that check schemas refuse the tool")
                .fix("correct the keyword's value"),
        ),
    }
    let mut all = Vec::new();
    walk(schema, at.to_string(), &mut all, 0);
    for (pointer, sub) in &all {
        if let Some(required) = sub["required"].as_array() {
            let props = sub["properties"].as_object();
            for r in required.iter().filter_map(Value::as_str) {
                if !props.is_some_and(|p| p.contains_key(r)) {
                    out.push(
                        Finding::new("schema.required-not-a-property", Severity::Error, item)
                            .at(format!("{pointer}/required"))
                            .seen(format!("\"{r}\" is required but not among the properties"))
                            .why("no argument can satisfy it as the model sees the schema; OpenAI strict mode refuses the schema")
                            .fix(format!("add \"{r}\" to \"properties\", or drop it from \"required\"")),
                    );
                }
            }
        }
        if is_array(sub) && sub.get("items").is_none() && sub.get("prefixItems").is_none() {
            out.push(
                Finding::new("schema.array-without-items", Severity::Error, item)
                    .at(pointer.clone())
                    .seen("\"type\": \"array\" with no \"items\"")
                    .why("OpenAI refuses it (\"array schema missing items\") and Gemini too; the model cannot know what to put in it")
                    .fix("add \"items\": {...} describing the elements"),
            );
        }
    }
    if input {
        providers(out, item, at, schema, &all);
    }
}

/// What each provider would refuse or rewrite.
fn providers(
    out: &mut Vec<Finding>,
    item: &str,
    at: &str,
    schema: &Value,
    all: &[(String, &Value)],
) {
    anthropic(out, item, at, schema);
    gemini(out, item, at, schema, all);
    openai_strict(out, item, at, all);
}

/// Anthropic (and OpenAI's strict mode) refuse a combinator at the top.
fn anthropic(out: &mut Vec<Finding>, item: &str, at: &str, schema: &Value) {
    let top_combinator = ["anyOf", "oneOf", "allOf"]
        .into_iter()
        .find(|k| schema.get(*k).is_some());
    if let Some(k) = top_combinator {
        out.push(
            Finding::new("provider.anthropic-top-combinator", Severity::Error, item)
                .at(format!("{at}/{k}"))
                .seen(format!("{k} at the top of the input schema"))
                .why("Anthropic refuses input_schema with oneOf, anyOf or allOf at the top level; OpenAI strict mode refuses it too")
                .fix("make the top an object and move the alternatives into a property"),
        );
    }
}

/// Gemini takes a subset of JSON Schema, and only string enum values.
fn gemini(out: &mut Vec<Finding>, item: &str, at: &str, schema: &Value, all: &[(String, &Value)]) {
    // Gemini: the agent's own adaptation says what it drops. Losing an
    // annotation (a default, examples) changes nothing the model must
    // respect; losing a constraint (a pattern, a length) does.
    let dropped = workbench_agent::adapt::gemini_drops(schema);
    let (harmless, constraints): (Vec<String>, Vec<String>) = dropped
        .into_iter()
        .filter(|k| k != "$schema")
        .partition(|k| HARMLESS.contains(&k.as_str()));
    for (keywords, severity, code) in [
        (constraints, Severity::Warning, "provider.gemini-rewrites"),
        (
            harmless,
            Severity::Info,
            "provider.gemini-drops-annotations",
        ),
    ] {
        if keywords.is_empty() {
            continue;
        }
        out.push(
            Finding::new(code, severity, item)
                .at(at)
                .seen(format!("Gemini does not take {}", keywords.join(", ")))
                .why(if severity == Severity::Warning {
                    "Gemini takes a subset of JSON Schema: clients drop these constraints, so the model no longer sees what the server will check"
                } else {
                    "Gemini takes a subset of JSON Schema: clients drop these annotations (harmless: the server still applies its defaults)"
                })
                .fix("keep to type, properties, required, items, enum, format, description, minimum/maximum and anyOf; state other constraints in the description"),
        );
    }
    for (pointer, sub) in all {
        if let Some(values) = sub["enum"].as_array()
            && values.iter().any(|v| !v.is_string())
        {
            out.push(
                Finding::new("provider.gemini-enum", Severity::Warning, item)
                    .at(format!("{pointer}/enum"))
                    .seen(quote(&sub["enum"]))
                    .why("Gemini accepts only string enum values: a client must rewrite or drop it")
                    .fix("use string values, or a number with minimum/maximum"),
            );
        }
    }
}

/// What OpenAI's strict mode would take of the schema.
fn openai_strict(out: &mut Vec<Finding>, item: &str, at: &str, all: &[(String, &Value)]) {
    let mut strict = Vec::new();
    for (pointer, sub) in all {
        let object = sub["type"] == "object" || sub.get("properties").is_some();
        if object && sub["additionalProperties"] != false {
            strict.push(format!("{pointer}: additionalProperties is not false"));
        }
        if let Some(props) = sub["properties"].as_object() {
            let required: Vec<&str> = sub["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let optional: Vec<&String> = props
                .keys()
                .filter(|k| !required.contains(&k.as_str()))
                .collect();
            if !optional.is_empty() {
                strict.push(format!(
                    "{pointer}: optional properties {}",
                    optional
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        for k in NOT_STRICT {
            if sub.get(*k).is_some() {
                strict.push(format!("{pointer}: {k}"));
            }
        }
    }
    if !strict.is_empty() {
        strict.truncate(8);
        out.push(
            Finding::new("provider.openai-not-strict", Severity::Info, item)
                .at(at)
                .seen(strict.join("; "))
                .why("OpenAI's strict mode (guaranteed valid arguments) needs every property required (optional ones as a null type), additionalProperties false and no composition keywords; as it is, the tool is sent non-strict")
                .fix("if the tool should be strict: list every property in required, make optional ones nullable, set additionalProperties to false"),
        );
    }
}
