//! Checking what crosses a tool call against the tool's own schemas: the
//! arguments against `inputSchema`, `structuredContent` against
//! `outputSchema`. Violations are sentences with the JSON pointer of the
//! offending value; a schema that cannot be compiled is a violation too.

use serde_json::Value;

fn check(schema: &Value, instance: &Value, what: &str) -> Vec<String> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(v) => v,
        Err(e) => {
            return vec![format!(
                "the tool's {what} schema is not valid JSON Schema: {e}"
            )];
        }
    };
    let mut out: Vec<String> = Vec::new();
    let mut more = 0usize;
    for e in validator.iter_errors(instance) {
        if out.len() == MAX_VIOLATIONS {
            more += 1;
            continue;
        }
        let at = e.instance_path().to_string();
        let at = if at.is_empty() { "/".to_string() } else { at };
        // A violation repeats the offending value: a 4 MB one, 50 times,
        // took 1.3 GB; each sentence is cut.
        out.push(cut(format!("{at}: {e}")));
    }
    if more > 0 {
        out.push(format!("… and {more} more"));
    }
    out
}

/// The most violations kept for one check, and the longest sentence.
pub const MAX_VIOLATIONS: usize = 20;
pub const MAX_VIOLATION_CHARS: usize = 400;

fn cut(mut text: String) -> String {
    if text.len() > MAX_VIOLATION_CHARS {
        let mut end = MAX_VIOLATION_CHARS;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let dropped = text.len() - end;
        text.truncate(end);
        text.push_str(&format!("… ({dropped} more bytes)"));
    }
    text
}

/// Problems with `result` given the tool definition `tool` (as listed).
pub fn check_result(tool: &Value, result: &Value) -> Vec<String> {
    let Some(schema) = tool.get("outputSchema").filter(|s| s.is_object()) else {
        return Vec::new();
    };
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Vec::new();
    }
    match result.get("structuredContent") {
        None | Some(Value::Null) => {
            vec!["the tool declares an outputSchema but its result has no structuredContent".into()]
        }
        Some(structured) => check(schema, structured, "output"),
    }
}

/// Problems with `arguments` given the tool's `inputSchema`.
pub fn check_arguments(tool: &Value, arguments: &Value) -> Vec<String> {
    match tool.get("inputSchema").filter(|s| s.is_object()) {
        Some(schema) => check(schema, arguments, "input"),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn violations_are_bounded_in_number_and_length() {
        // Fifty 100 KB strings where numbers belong.
        let tool = json!({ "name": "t", "outputSchema": {
            "type": "object",
            "properties": { "v": { "type": "array", "items": { "type": "number" } } }
        }});
        let big = "x".repeat(100_000);
        let items: Vec<Value> = (0..50).map(|_| json!(big)).collect();
        let v = check_result(&tool, &json!({ "structuredContent": { "v": items } }));
        assert_eq!(v.len(), MAX_VIOLATIONS + 1, "{}", v.len());
        assert!(v.last().unwrap().contains("30 more"), "{:?}", v.last());
        let total: usize = v.iter().map(String::len).sum();
        assert!(total < 12_000, "{total} bytes of violations");
    }

    #[test]
    fn structured_content_is_checked_against_the_output_schema() {
        let tool = json!({ "name": "t", "outputSchema": {
            "type": "object",
            "properties": { "sum": { "type": "number" } },
            "required": ["sum"]
        }});
        assert!(check_result(&tool, &json!({ "structuredContent": { "sum": 3 } })).is_empty());
        let v = check_result(&tool, &json!({ "structuredContent": { "sum": "three" } }));
        assert_eq!(v.len(), 1);
        assert!(v[0].starts_with("/sum: "), "{v:?}");
        let v = check_result(&tool, &json!({ "content": [] }));
        assert!(v[0].contains("no structuredContent"));
        assert!(check_result(&tool, &json!({ "isError": true, "content": [] })).is_empty());
        assert!(check_result(&json!({ "name": "plain" }), &json!({})).is_empty());
    }

    #[test]
    fn arguments_are_checked_against_the_input_schema() {
        let tool = json!({ "inputSchema": { "type": "object",
            "properties": { "n": { "type": "integer", "minimum": 1 } }, "required": ["n"] } });
        assert!(check_arguments(&tool, &json!({ "n": 2 })).is_empty());
        assert_eq!(check_arguments(&tool, &json!({ "n": 0 })).len(), 1);
        assert_eq!(check_arguments(&tool, &json!({})).len(), 1);
    }
}
