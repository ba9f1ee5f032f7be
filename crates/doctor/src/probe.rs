//! `--probe`: call the tools the server marks read-only, with arguments
//! made from their schemas, through the one call path (kept in History as
//! the doctor's), and check what comes back: structured content against
//! the output schema, and failures as `isError` results, not protocol errors.

use std::time::Duration;

use serde::Serialize;
use serde_json::{Map, Value, json};
use workbench_calls::{Call, Calls, Link, Origin};
use workbench_core::CallOptions;

use crate::finding::{Finding, Severity};

/// One probed call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct Probed {
    pub tool: String,
    pub arguments: Value,
    /// ok, error (an `isError` result) or failed (no result).
    pub outcome: String,
    pub ms: f64,
}

/// A value the schema accepts, as simple as it can be.
pub fn example(schema: &Value, depth: usize) -> Value {
    if depth > 8 {
        return Value::Null;
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(first) = ["anyOf", "oneOf"]
        .iter()
        .find_map(|k| schema[*k].as_array().and_then(|a| a.first()))
    {
        return example(first, depth + 1);
    }
    let kind = match &schema["type"] {
        Value::String(t) => t.as_str(),
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    };
    match kind {
        "object" => {
            let mut out = Map::new();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(props) = schema["properties"].as_object() {
                for (k, v) in props.iter().filter(|(k, _)| required.contains(&k.as_str())) {
                    out.insert(k.clone(), example(v, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = schema["minItems"].as_u64().unwrap_or(0).min(3) as usize;
            Value::Array(
                (0..n)
                    .map(|_| example(&schema["items"], depth + 1))
                    .collect(),
            )
        }
        "integer" => json!(
            schema["minimum"].as_i64().unwrap_or(1).max(
                schema["exclusiveMinimum"]
                    .as_i64()
                    .map_or(i64::MIN, |m| m + 1)
            )
        ),
        "number" => json!(schema["minimum"].as_f64().unwrap_or(1.0)),
        "boolean" => json!(false),
        "null" => Value::Null,
        _ => {
            let s = match schema["format"].as_str() {
                Some("date-time") => "2026-01-01T00:00:00Z",
                Some("date") => "2026-01-01",
                Some("email") => "someone@example.com",
                Some("uri" | "url") => "https://example.com/",
                Some("uuid") => "00000000-0000-4000-8000-000000000000",
                _ => "example",
            };
            let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
            let mut s = s.to_string();
            while s.chars().count() < min {
                s.push('x');
            }
            json!(s)
        }
    }
}

/// Probe the read-only tools of `server` (each at most `timeout`).
pub async fn probe(
    calls: &Calls,
    server: &str,
    tools: &[Value],
    timeout: Duration,
) -> (Vec<Probed>, Vec<Finding>) {
    let mut probed = Vec::new();
    let mut out = Vec::new();
    for tool in tools
        .iter()
        .filter(|t| t.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true)))
    {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let item = format!("tool {name}");
        let arguments = example(tool.get("inputSchema").unwrap_or(&json!({})), 0);
        let ran = calls
            .run(Call {
                origin: Origin::Doctor,
                server,
                tool: name,
                arguments: arguments.clone(),
                definition: Some(tool),
                link: Link::default(),
                options: CallOptions {
                    timeout: Some(timeout),
                    ..CallOptions::default()
                },
            })
            .await;
        let (outcome, ms) = match &ran.outcome {
            Ok(o) => {
                let error = o.result["isError"] == true;
                if !ran.schema_violations.is_empty() {
                    out.push(
                        Finding::new("probe.output-schema", Severity::Error, &item)
                            .at("/outputSchema")
                            .seen(format!("called with {arguments}: {}", ran.schema_violations.join("; ")))
                            .why("clients that validate structured content refuse the result; models are told one shape and get another")
                            .fix("make structuredContent match outputSchema (or correct the schema)"),
                    );
                }
                if !error
                    && tool.get("outputSchema").is_some()
                    && o.result.get("structuredContent").is_none()
                {
                    out.push(
                        Finding::new("probe.no-structured-content", Severity::Error, &item)
                            .seen(format!("called with {arguments}: a result with no structuredContent"))
                            .why("a tool with an outputSchema must return structuredContent that matches it")
                            .fix("return structuredContent (and the same as text for older clients)"),
                    );
                }
                (if error { "error" } else { "ok" }, o.duration_ms)
            }
            Err(e) => {
                match e {
                    // A JSON-RPC error for a call that reached the tool (not
                    // arguments it refused, -32602): the specification wants
                    // tool failures as isError results.
                    workbench_core::Error::ServerError { code, .. } if *code != -32602 => out.push(
                        Finding::new("probe.protocol-error", Severity::Warning, &item)
                            .seen(format!("called with {arguments}: {e}"))
                            .why("a failure inside a tool should come back as a result with isError: true, which the model reads and can recover from; a protocol error is shown to the person instead")
                            .fix("catch the tool's errors and return {\"isError\": true, \"content\": [{\"type\": \"text\", \"text\": ...}]}"),
                    ),
                    _ if e.code() == workbench_core::ErrorCode::Timeout => out.push(
                        Finding::new("probe.timeout", Severity::Warning, &item)
                            .seen(format!("called with {arguments}: no answer within {} s", timeout.as_secs()))
                            .why("a read-only tool that hangs blocks the model's turn")
                            .fix("answer sooner, or report progress"),
                    ),
                    _ => {}
                }
                ("failed", 0.0)
            }
        };
        probed.push(Probed {
            tool: name.to_string(),
            arguments,
            outcome: outcome.into(),
            ms,
        });
    }
    (probed, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_satisfy_their_schemas() {
        for schema in [
            json!({"type": "object", "properties": {"a": {"type": "string", "minLength": 3}, "b": {"type": "integer", "minimum": 5}}, "required": ["a", "b"]}),
            json!({"type": "object", "properties": {"m": {"enum": ["x", "y"]}, "l": {"type": "array", "items": {"type": "number"}, "minItems": 2}}, "required": ["m", "l"]}),
            json!({"type": "object", "properties": {"w": {"type": "string", "format": "date-time"}, "n": {"type": ["null", "boolean"]}}, "required": ["w", "n"]}),
        ] {
            let v = example(&schema, 0);
            assert!(jsonschema::is_valid(&schema, &v), "{v} for {schema}");
        }
    }
}
