//! Tool definitions made acceptable to each provider, and every change
//! said: a name the provider's rules refuse gets a valid one (routed back),
//! a missing or non-object input schema becomes an empty object schema,
//! Gemini gets the JSON Schema subset its `parametersJsonSchema` accepts
//! (`const` becomes a one-value `enum`, unsupported keywords are dropped and
//! named), and over-long descriptions are cut. Nothing is dropped silently.

use serde_json::{Value, json};

use crate::settings::ProviderKind;

/// The longest tool description OpenAI accepts.
const MAX_DESCRIPTION: usize = 1024;

/// The keywords Gemini's JSON Schema field accepts.
const GEMINI_KEYWORDS: &[&str] = &[
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "nullable",
];

/// A name the provider accepts for `name`: `[A-Za-z0-9_-]{1,64}`, and for
/// Gemini starting with a letter or `_`.
pub fn tool_name(kind: ProviderKind, name: &str) -> String {
    let mut out = workbench_core::config::sanitise(name);
    if kind == ProviderKind::Gemini
        && !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
    {
        out.insert_str(0, "t_");
    }
    out.truncate(64);
    out
}

/// The input schema the provider gets, and what was changed to get there.
pub fn input_schema(kind: ProviderKind, schema: Option<&Value>) -> (Value, Vec<String>) {
    let mut notes = Vec::new();
    let mut schema = match schema {
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(_) => {
            notes.push("its input schema is not an object; an empty object schema was sent".into());
            json!({ "type": "object", "properties": {} })
        }
        None => {
            notes.push("it has no input schema; an empty object schema was sent".into());
            json!({ "type": "object", "properties": {} })
        }
    };
    if schema.get("type").is_none() {
        schema["type"] = json!("object");
    }
    if schema["type"] == "object" && schema.get("properties").is_none() {
        schema["properties"] = json!({});
    }
    if kind == ProviderKind::Gemini {
        let mut dropped = Vec::new();
        gemini_subset(&mut schema, &mut dropped, 0);
        dropped.sort();
        dropped.dedup();
        if !dropped.is_empty() {
            notes.push(format!(
                "Gemini does not accept the schema keywords {}; they were left out",
                dropped.join(", ")
            ));
        }
    }
    (schema, notes)
}

/// The keywords of `schema` Gemini does not accept (what
/// [`input_schema`] leaves out for it), sorted.
pub fn gemini_drops(schema: &Value) -> Vec<String> {
    let mut copy = schema.clone();
    let mut dropped = Vec::new();
    gemini_subset(&mut copy, &mut dropped, 0);
    dropped.sort();
    dropped.dedup();
    dropped
}

/// Keep what Gemini accepts, recursively; `const` becomes `enum: [v]`.
fn gemini_subset(schema: &mut Value, dropped: &mut Vec<String>, depth: usize) {
    let Value::Object(map) = schema else { return };
    if depth > 64 {
        map.clear();
        dropped.push("(nesting past 64 levels)".into());
        return;
    }
    if let Some(c) = map.remove("const") {
        map.entry("enum").or_insert_with(|| json!([c]));
    }
    let keys: Vec<String> = map.keys().cloned().collect();
    for key in keys {
        if !GEMINI_KEYWORDS.contains(&key.as_str()) {
            map.remove(&key);
            dropped.push(key);
        }
    }
    // Recurse into every place a schema sits.
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = map.get_mut(key) {
            for child in children.values_mut() {
                gemini_subset(child, dropped, depth + 1);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child @ Value::Object(_)) = map.get_mut(key) {
            gemini_subset(child, dropped, depth + 1);
        }
    }
    for key in ["anyOf", "oneOf", "prefixItems"] {
        if let Some(Value::Array(list)) = map.get_mut(key) {
            for child in list {
                gemini_subset(child, dropped, depth + 1);
            }
        }
    }
}

/// The description the provider gets (cut to its limit, said in the notes).
pub fn description(definition: &Value, notes: &mut Vec<String>) -> String {
    let title = definition["title"].as_str().unwrap_or_default();
    let text = definition["description"].as_str().unwrap_or_default();
    let full = match (title.is_empty(), text.is_empty()) {
        (false, false) => format!("{title}: {text}"),
        (false, true) => title.to_string(),
        _ => text.to_string(),
    };
    if full.chars().count() <= MAX_DESCRIPTION {
        return full;
    }
    notes.push(format!(
        "its description ({} characters) was cut to {MAX_DESCRIPTION}",
        full.chars().count()
    ));
    full.chars()
        .take(MAX_DESCRIPTION - 1)
        .chain(['…'])
        .collect()
}

/// Rough token count of a text (4 characters a token): for the context
/// meter and the deferred-tools threshold, never for billing.
pub fn estimate_tokens(text: &str) -> u32 {
    (text.len() as u32).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_each_providers_rules() {
        assert_eq!(tool_name(ProviderKind::OpenAi, "demo__echo"), "demo__echo");
        assert_eq!(
            tool_name(ProviderKind::Gemini, "1password__get"),
            "t_1password__get"
        );
        assert_eq!(tool_name(ProviderKind::OpenAi, "a.b c"), "a_b_c");
        assert_eq!(tool_name(ProviderKind::OpenAi, &"x".repeat(80)).len(), 64);
    }

    #[test]
    fn gemini_gets_its_subset_and_is_told_what_was_left_out() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {
                "mode": {"const": "fast", "default": "fast"},
                "tags": {"type": "array", "items": {"type": "string", "pattern": "^[a-z]+$"}},
                "when": {"type": "string", "format": "date-time"}
            },
            "required": ["mode"]
        });
        let (out, notes) = input_schema(ProviderKind::Gemini, Some(&schema));
        assert_eq!(out["properties"]["mode"], json!({"enum": ["fast"]}));
        assert_eq!(
            out["properties"]["tags"]["items"],
            json!({"type": "string"})
        );
        assert_eq!(out["properties"]["when"]["format"], "date-time");
        assert!(out.get("$schema").is_none());
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("$schema, default, pattern"), "{notes:?}");
        // Other providers get the schema as the server wrote it.
        let (same, notes) = input_schema(ProviderKind::OpenAi, Some(&schema));
        assert_eq!(same, schema);
        assert!(notes.is_empty());
    }

    #[test]
    fn a_missing_schema_and_a_long_description_are_fixed_and_said() {
        let (out, notes) = input_schema(ProviderKind::Anthropic, None);
        assert_eq!(out, json!({"type": "object", "properties": {}}));
        assert_eq!(notes.len(), 1);
        let mut notes = Vec::new();
        let d = description(&json!({"description": "y".repeat(2000)}), &mut notes);
        assert_eq!(d.chars().count(), MAX_DESCRIPTION);
        assert!(notes[0].contains("2000 characters"));
    }
}
