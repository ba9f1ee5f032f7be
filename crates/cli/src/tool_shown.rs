//! `mcpwb tools SERVER TOOL`: one tool as a person reads it on a terminal —
//! what it says it does, each argument (its type, whether it is required,
//! its default and bounds), what its annotations claim, what it returns,
//! whether it runs as a task or shows an App, and the call to make. The
//! whole definition as served is `--json`'s.

use serde_json::Value;

use crate::print::{clean, suggest};

/// The lines that show `tool` (a definition as `tools/list` gave it) of
/// `server`.
pub fn lines(server: &str, tool: &Value) -> Vec<String> {
    let name = tool["name"].as_str().unwrap_or_default();
    let mut out = Vec::new();
    let title = tool["title"]
        .as_str()
        .or_else(|| tool["annotations"]["title"].as_str())
        .map(|t| format!(" ({})", clean(t)))
        .unwrap_or_default();
    out.push(format!("{}{title}", clean(name)));
    if let Some(d) = tool["description"]
        .as_str()
        .filter(|d| !d.trim().is_empty())
    {
        out.extend(d.trim().lines().map(|l| format!("  {}", clean(l))));
    }
    out.push(arguments_line(&tool["inputSchema"]));
    out.extend(arguments(&tool["inputSchema"]));
    out.push(format!(
        "annotations: {}",
        annotations(&tool["annotations"])
    ));
    if let Some(o) = tool.get("outputSchema").filter(|o| o.is_object()) {
        out.push(format!("returns: structured content, {}", kind(o)));
        out.extend(fields(o));
    }
    if let Some(t) = tool["execution"]["taskSupport"].as_str() {
        out.push(format!("as a task: {}", clean(t)));
    }
    if let Some(uri) = tool["_meta"]["ui"]["resourceUri"].as_str() {
        out.push(format!(
            "an MCP App: {} (see it: {})",
            clean(uri),
            suggest(&format!("app {server} {name}"))
        ));
    }
    out.push(format!(
        "call it: {}",
        suggest(&format!("call {server} {name}{}", required_args(tool)))
    ));
    out
}

fn properties(schema: &Value) -> Vec<(&String, &Value)> {
    schema["properties"]
        .as_object()
        .map(|p| p.iter().collect())
        .unwrap_or_default()
}

fn required(schema: &Value) -> Vec<&str> {
    schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

fn arguments_line(schema: &Value) -> String {
    let n = properties(schema).len();
    let needed = required(schema).len();
    match (n, needed) {
        (0, _) => "arguments: none".into(),
        (n, 0) => format!("arguments: {n}, none required"),
        (n, r) => format!("arguments: {n}, {r} required"),
    }
}

/// One line an argument, in the schema's order: its name, type, required or not, default, bounds,
/// and the first line of its description.
fn arguments(schema: &Value) -> Vec<String> {
    let needed = required(schema);
    let props = properties(schema);
    let width = props
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    props
        .into_iter()
        .map(|(name, p)| {
            let mut what = vec![kind(resolved(schema, p))];
            if needed.contains(&name.as_str()) {
                what.push("required".into());
            }
            if let Some(d) = p.get("default") {
                what.push(format!("default {d}"));
            }
            if let Some(b) = bounds(p) {
                what.push(b);
            }
            let about = p["description"]
                .as_str()
                .and_then(|d| d.lines().next())
                .map(|d| format!("  {}", clean(d)))
                .unwrap_or_default();
            format!(
                "  {:width$}  {}{about}",
                clean(name),
                clean(&what.join(", "))
            )
        })
        .collect()
}

/// An output schema's fields, one line each.
fn fields(schema: &Value) -> Vec<String> {
    properties(schema)
        .into_iter()
        .map(|(name, p)| format!("  {}: {}", clean(name), clean(&kind(resolved(schema, p)))))
        .collect()
}

/// `p`, or what its local `$ref` (`#/$defs/X`) points to in `root`.
fn resolved<'a>(root: &'a Value, p: &'a Value) -> &'a Value {
    p["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
        .unwrap_or(p)
}

/// What a schema takes, in a few words: `string (date-time)`, `one of a,
/// b`, `array of integer`, `object`, `string or null`.
fn kind(schema: &Value) -> String {
    if let Some(values) = schema["enum"].as_array() {
        let shown: Vec<String> = values.iter().map(plain).collect();
        return format!("one of {}", shown.join(", "));
    }
    if let Some(c) = schema.get("const") {
        return format!("always {}", plain(c));
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = schema[key].as_array() {
            // Each option by its title where it has one (`card or
            // transfer`, not `object or object`).
            let shown: Vec<String> = options
                .iter()
                .map(|o| o["title"].as_str().map_or_else(|| kind(o), str::to_string))
                .collect();
            return shown.join(" or ");
        }
    }
    let one = |t: &str| match t {
        "array" => match schema.get("items").filter(|i| i.is_object()) {
            Some(items) => format!("array of {}", kind(items)),
            None => "array".into(),
        },
        "string" => match schema["format"].as_str() {
            Some(f) => format!("string ({f})"),
            None => "string".into(),
        },
        other => other.to_string(),
    };
    match &schema["type"] {
        Value::String(t) => one(t),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(one)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if schema["$ref"].is_string() => schema["$ref"]
            .as_str()
            .and_then(|r| r.rsplit('/').next())
            .unwrap_or("any")
            .to_string(),
        _ if schema["properties"].is_object() => "object".into(),
        _ => "any".into(),
    }
}

/// A value as a person writes it: text bare, the rest as JSON.
fn plain(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// The bounds a schema sets on a number, a text or a list.
fn bounds(p: &Value) -> Option<String> {
    let pair = |lo: &str, hi: &str, unit: &str| -> Option<String> {
        // "at least 1 item", "at most 500 characters".
        let of = |n: &Value| match unit {
            "" => n.to_string(),
            _ if n.as_u64() == Some(1) => format!("1 {unit}"),
            _ => format!("{n} {unit}s"),
        };
        match (p.get(lo), p.get(hi)) {
            (Some(a), Some(b)) if unit.is_empty() => Some(format!("{a} to {b}")),
            (Some(a), Some(b)) => Some(format!("{a} to {}", of(b))),
            (Some(a), None) => Some(format!("at least {}", of(a))),
            (None, Some(b)) => Some(format!("at most {}", of(b))),
            (None, None) => None,
        }
    };
    pair("minimum", "maximum", "")
        .or_else(|| pair("minLength", "maxLength", "character"))
        .or_else(|| pair("minItems", "maxItems", "item"))
}

/// What the tool's annotations claim, in words (hints a server gives, not
/// guarantees).
fn annotations(a: &Value) -> String {
    let hint = |key: &str| a.get(key).and_then(Value::as_bool);
    let mut said = Vec::new();
    match (hint("readOnlyHint"), hint("destructiveHint")) {
        (Some(true), _) => said.push("read-only"),
        (_, Some(false)) => said.push("changes things, not destructively"),
        (_, Some(true)) => said.push("destructive"),
        (Some(false), None) => said.push("changes things"),
        (None, None) => {}
    }
    if hint("idempotentHint") == Some(true) {
        said.push("idempotent");
    }
    match hint("openWorldHint") {
        Some(true) => said.push("reaches the world outside"),
        Some(false) => said.push("closed world"),
        None => {}
    }
    if said.is_empty() {
        "none (a host assumes it may change or destroy things)".into()
    } else {
        said.join(" · ")
    }
}

/// ` -a NAME=…` for each required argument.
fn required_args(tool: &Value) -> String {
    required(&tool["inputSchema"])
        .into_iter()
        .map(|r| format!(" -a {}=…", clean(r)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_tool_is_told_argument_by_argument() {
        let tool = json!({
            "name": "create_order",
            "description": "Place an order.\nSecond line.",
            "inputSchema": {
                "type": "object",
                "$defs": { "Size": { "type": "string", "enum": ["s", "m", "l"] } },
                "properties": {
                    "item": { "type": "string", "description": "What to order" },
                    "count": { "type": "integer", "minimum": 1, "maximum": 10, "default": 1 },
                    "size": { "$ref": "#/$defs/Size" },
                    "when": { "type": ["string", "null"], "format": "date-time" },
                    "tags": { "type": "array", "items": { "type": "string" }, "minItems": 1 },
                    "pay": { "oneOf": [ { "title": "card", "type": "object" }, { "title": "transfer", "type": "object" } ] }
                },
                "required": ["item", "size"]
            },
            "outputSchema": { "type": "object", "properties": { "id": { "type": "string" } } },
            "annotations": { "readOnlyHint": false, "destructiveHint": false, "openWorldHint": true },
            "execution": { "taskSupport": "optional" }
        });
        let shown = lines("shop", &tool).join("\n");
        let want = [
            "create_order",
            "  Place an order.",
            "  Second line.",
            "arguments: 6, 2 required",
            "  item   string, required  What to order",
            "  count  integer, default 1, 1 to 10",
            "  size   one of s, m, l, required",
            "  when   string (date-time) or null",
            "  tags   array of string, at least 1 item",
            "  pay    card or transfer",
            "annotations: changes things, not destructively · reaches the world outside",
            "returns: structured content, object",
            "  id: string",
            "as a task: optional",
            "call it: mcpwb call shop create_order -a item=… -a size=…",
        ];
        assert_eq!(shown, want.join("\n"));
    }

    #[test]
    fn a_tool_without_arguments_or_annotations_says_so() {
        let shown = lines(
            "demo",
            &json!({ "name": "ping", "inputSchema": { "type": "object" } }),
        );
        assert_eq!(
            shown,
            [
                "ping",
                "arguments: none",
                "annotations: none (a host assumes it may change or destroy things)",
                "call it: mcpwb call demo ping",
            ]
        );
    }
}
