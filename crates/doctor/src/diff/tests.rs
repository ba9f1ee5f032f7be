use serde_json::{Value, json};

use super::*;

fn surface(tools: Vec<Value>) -> Surface {
    Surface {
        snapshot: 1,
        server: json!({"name": "s", "version": "1"}),
        protocol_version: "2025-11-25".into(),
        capabilities: json!({"tools": {"listChanged": true}}),
        instructions: None,
        tools,
        resources: vec![],
        resource_templates: vec![],
        prompts: vec![],
        skills: vec![],
    }
}

fn tool(input: Value) -> Value {
    json!({"name": "t", "description": "d", "inputSchema": input})
}

/// The single change between a tool with input schema `old` and `new`.
fn one(old: Value, new: Value) -> (Impact, String) {
    let changes = diff(&surface(vec![tool(old)]), &surface(vec![tool(new)]));
    assert_eq!(changes.len(), 1, "{changes:#?}");
    (changes[0].impact, changes[0].code.clone())
}

fn obj(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

#[test]
fn input_changes_case_by_case() {
    use Impact::*;
    let s = json!({"type": "string"});
    // A required argument added: breaking; an optional one: compatible.
    assert_eq!(
        one(obj(json!({}), &[]), obj(json!({"a": s}), &["a"])),
        (Breaking, "input.required-added".into())
    );
    assert_eq!(
        one(obj(json!({}), &[]), obj(json!({"a": s}), &[])),
        (Compatible, "input.argument-added".into())
    );
    // An optional argument made required.
    assert_eq!(
        one(obj(json!({"a": s}), &[]), obj(json!({"a": s}), &["a"])),
        (Breaking, "input.required-added".into())
    );
    // Narrowed and widened types.
    assert_eq!(
        one(
            obj(json!({"n": {"type": "number"}}), &[]),
            obj(json!({"n": {"type": "integer"}}), &[])
        ),
        (Breaking, "input.type-narrowed".into())
    );
    assert_eq!(
        one(
            obj(json!({"n": {"type": "integer"}}), &[]),
            obj(json!({"n": {"type": "number"}}), &[])
        ),
        (Compatible, "input.type-widened".into())
    );
    assert_eq!(
        one(
            obj(json!({"n": {"type": ["string", "null"]}}), &[]),
            obj(json!({"n": {"type": "string"}}), &[])
        ),
        (Breaking, "input.type-narrowed".into())
    );
    // Enum values removed break; added do not.
    assert_eq!(
        one(
            obj(json!({"m": {"type": "string", "enum": ["a", "b"]}}), &[]),
            obj(json!({"m": {"type": "string", "enum": ["a"]}}), &[])
        ),
        (Breaking, "input.enum-value-removed".into())
    );
    let changes = diff(
        &surface(vec![tool(obj(
            json!({"m": {"type": "string", "enum": ["a"]}}),
            &[],
        ))]),
        &surface(vec![tool(obj(
            json!({"m": {"type": "string", "enum": ["a", "b"]}}),
            &[],
        ))]),
    );
    assert!(changes.is_empty(), "{changes:#?}");
    // An optional argument removed: compatible where extra ones are
    // ignored, breaking where they are refused.
    assert_eq!(
        one(obj(json!({"a": s}), &[]), obj(json!({}), &[])),
        (Compatible, "input.argument-removed".into())
    );
    let mut closed = obj(json!({}), &[]);
    closed["additionalProperties"] = json!(false);
    let mut was = obj(json!({"a": s}), &[]);
    was["additionalProperties"] = json!(false);
    assert_eq!(
        one(was, closed),
        (Breaking, "input.argument-removed".into())
    );
    // Nested objects and array items are followed.
    assert_eq!(
        one(
            obj(json!({"o": obj(json!({"x": s}), &[])}), &[]),
            obj(json!({"o": obj(json!({"x": s}), &["x"])}), &[])
        ),
        (Breaking, "input.required-added".into())
    );
    assert_eq!(
        one(
            obj(
                json!({"l": {"type": "array", "items": {"type": "number"}}}),
                &[]
            ),
            obj(
                json!({"l": {"type": "array", "items": {"type": "integer"}}}),
                &[]
            )
        ),
        (Breaking, "input.type-narrowed".into())
    );
}

#[test]
fn output_tools_prompts_and_capabilities() {
    let with_output = |out: Value| {
        let mut t = tool(obj(json!({}), &[]));
        t["outputSchema"] = out;
        t
    };
    let sum = obj(
        json!({"sum": {"type": "number"}, "at": {"type": "string"}}),
        &[],
    );
    let changes = diff(
        &surface(vec![with_output(sum.clone())]),
        &surface(vec![with_output(obj(
            json!({"sum": {"type": "string"}}),
            &[],
        ))]),
    );
    let codes: Vec<&str> = changes.iter().map(|c| c.code.as_str()).collect();
    assert_eq!(codes, ["output.type-changed", "output.field-removed"]);
    assert!(changes.iter().all(|c| c.impact == Impact::Breaking));
    assert_eq!(changes[0].pointer, "/outputSchema/properties/sum");
    // A tool removed breaks, one added does not; a description is compatible.
    let mut other = tool(obj(json!({}), &[]));
    other["name"] = json!("u");
    let mut reworded = tool(obj(json!({}), &[]));
    reworded["description"] = json!("new words");
    let changes = diff(
        &surface(vec![tool(obj(json!({}), &[]))]),
        &surface(vec![other]),
    );
    assert_eq!(
        changes
            .iter()
            .map(|c| (c.impact, c.code.as_str()))
            .collect::<Vec<_>>(),
        [
            (Impact::Breaking, "tool.removed"),
            (Impact::Compatible, "tool.added")
        ]
    );
    let changes = diff(
        &surface(vec![tool(obj(json!({}), &[]))]),
        &surface(vec![reworded]),
    );
    assert_eq!(changes[0].code, "tool.description-changed");
    assert_eq!(changes[0].impact, Impact::Compatible);
    // Prompts: a required argument added; capabilities: one dropped.
    let mut old = surface(vec![]);
    old.prompts = vec![json!({"name": "p", "arguments": [{"name": "a"}]})];
    let mut new = old.clone();
    new.prompts =
        vec![json!({"name": "p", "arguments": [{"name": "a"}, {"name": "b", "required": true}]})];
    new.capabilities = json!({"tools": {}});
    let codes: Vec<(Impact, String)> = diff(&old, &new)
        .into_iter()
        .map(|c| (c.impact, c.code))
        .collect();
    assert!(codes.contains(&(Impact::Breaking, "prompt.required-added".into())));
    assert!(codes.contains(&(Impact::Breaking, "capability.dropped".into())));
    // The same surface: nothing.
    assert!(diff(&old, &old).is_empty());
}
