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
pub struct Probed {
    pub tool: String,
    pub arguments: Value,
    /// ok, error (an `isError` result) or failed (no result).
    pub outcome: String,
    pub ms: f64,
}

/// How much one example may hold: a schema from a server may nest arrays
/// of large defaults (played: 7 levels over a 100 KB default took 1.9 GB).
const EXAMPLE_NODES: usize = 2_000;
const EXAMPLE_BYTES: usize = 64 * 1024;
const EXAMPLE_DEPTH: usize = 8;
/// The longest string made to meet a `minLength`.
const EXAMPLE_MIN_LENGTH: usize = 4_096;

/// What is left of an example's budget.
struct Budget {
    nodes: usize,
    bytes: usize,
}

impl Budget {
    /// Take `bytes` for one value; false when the budget is spent.
    fn take(&mut self, bytes: usize) -> bool {
        if self.nodes == 0 || bytes > self.bytes {
            return false;
        }
        self.nodes -= 1;
        self.bytes -= bytes;
        true
    }
}

/// The size of `v` as JSON text, counting no further than `limit`.
fn size_within(v: &Value, limit: usize) -> usize {
    match v {
        Value::String(s) => s.len() + 2,
        Value::Array(items) => {
            let mut n = 2;
            for i in items {
                n += size_within(i, limit) + 1;
                if n > limit {
                    break;
                }
            }
            n
        }
        Value::Object(map) => {
            let mut n = 2;
            for (k, i) in map {
                n += k.len() + 4 + size_within(i, limit);
                if n > limit {
                    break;
                }
            }
            n
        }
        other => other.to_string().len(),
    }
}

/// A value the schema accepts, as simple as it can be, within a budget of
/// depth, items and bytes (past it: null, which the server may refuse).
pub fn example(schema: &Value, depth: usize) -> Value {
    let mut budget = Budget {
        nodes: EXAMPLE_NODES,
        bytes: EXAMPLE_BYTES,
    };
    example_in(schema, depth, &mut budget)
}

fn example_in(schema: &Value, depth: usize, budget: &mut Budget) -> Value {
    if depth > EXAMPLE_DEPTH {
        return Value::Null;
    }
    // A value the schema gives (const, enum, default), when it fits.
    let given = [
        schema.get("const"),
        schema["enum"].as_array().and_then(|e| e.first()),
        schema.get("default"),
    ];
    for v in given.into_iter().flatten() {
        let size = size_within(v, budget.bytes + 1);
        if budget.take(size) {
            return v.clone();
        }
    }
    if let Some(first) = ["anyOf", "oneOf"]
        .iter()
        .find_map(|k| schema[*k].as_array().and_then(|a| a.first()))
    {
        return example_in(first, depth + 1, budget);
    }
    if !budget.take(8) {
        return Value::Null;
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
                    out.insert(k.clone(), example_in(v, depth + 1, budget));
                }
            }
            Value::Object(out)
        }
        "array" => {
            let n = schema["minItems"].as_u64().unwrap_or(0).min(3) as usize;
            Value::Array(
                (0..n)
                    .map(|_| example_in(&schema["items"], depth + 1, budget))
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
            let min = (schema["minLength"].as_u64().unwrap_or(0) as usize).min(EXAMPLE_MIN_LENGTH);
            let have = s.chars().count();
            let s = format!("{s}{}", "x".repeat(min.saturating_sub(have)));
            if !budget.take(s.len()) {
                return Value::Null;
            }
            json!(s)
        }
    }
}

/// What the probe would do with `server`'s tools: each tool marked
/// read-only, with why the person's rules keep it from being called (a
/// Deny, a destructive or open-world mark, a project's server not taken at
/// its word) or None when it will be called.
pub fn plan<'t>(
    calls: &Calls,
    server: &str,
    tools: &'t [Value],
) -> Vec<(&'t Value, Option<String>)> {
    tools
        .iter()
        .filter(|t| t.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true)))
        .filter_map(|t| {
            let name = t["name"].as_str()?;
            let why = calls.standing_refusal(&Call {
                consent: None,
                origin: Origin::Doctor,
                server,
                tool: name,
                arguments: Value::Null,
                definition: Some(t),
                link: Link::default(),
                options: CallOptions::default(),
            });
            Some((t, why))
        })
        .collect()
}

/// Probe the read-only tools of `server` that the person's rules let it
/// call (each at most `timeout`); the others are listed as not probed.
pub async fn probe(
    calls: &Calls,
    server: &str,
    tools: &[Value],
    timeout: Duration,
) -> (Vec<Probed>, Vec<Finding>) {
    let mut probed = Vec::new();
    let mut out = Vec::new();
    for (tool, refused) in plan(calls, server, tools) {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        if let Some(why) = refused {
            probed.push(Probed {
                tool: name.to_string(),
                arguments: Value::Null,
                outcome: format!("not probed: {why}"),
                ms: 0.0,
            });
            continue;
        }
        let item = format!("tool {name}");
        let arguments = example(tool.get("inputSchema").unwrap_or(&json!({})), 0);
        let ran = calls
            .run(Call {
                consent: None,
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

    #[test]
    fn a_schema_built_to_blow_up_makes_a_small_example_quickly() {
        // Seven nested arrays of three over a 100 KB default: 3^7 copies
        // unbounded (played: 1.9 GB).
        let mut schema = json!({"type": "string", "default": "d".repeat(100_000)});
        for _ in 0..7 {
            schema = json!({"type": "array", "minItems": 3, "items": schema});
        }
        let schema = json!({"type": "object", "properties": {"a": schema}, "required": ["a"]});
        let v = example(&schema, 0);
        assert!(
            v.to_string().len() <= EXAMPLE_BYTES + 4_096,
            "{}",
            v.to_string().len()
        );
        // A huge minLength is capped, made in one go.
        let long = example(&json!({"type": "string", "minLength": 50_000_000u64}), 0);
        assert_eq!(long.as_str().map(str::len), Some(EXAMPLE_MIN_LENGTH));
    }
}
