use std::path::Path;

use serde_json::json;

use super::*;

fn parse_str(text: &str) -> Result<Suite, Broken> {
    parse(Path::new("s.json"), text)
}

#[test]
fn a_suite_reads_with_its_cases_and_defaults() {
    let s = parse_str(
        r#"// comments are fine
        { "server": "demo", "cases": [
            { "name": "adds", "tool": "add", "arguments": {"a": 1, "b": 2},
              "expect": { "json": { "/sum": { "equals": 3, "type": "number" } }, "outputSchema": true, "maxMs": 500 } },
            { "name": "other", "server": "b", "tool": "echo", "expect": { "text": { "contains": ["x", "y"] }, "isError": false } },
            { "name": "still there", "surface": { "tool": "add", "schemaHash": "sha256:00" } },
            { "name": "snap", "tool": "echo", "expect": { "snapshot": { "ignore": ["/_meta"] } } }
        ] }"#,
    )
    .unwrap();
    assert_eq!(s.name, "s");
    assert_eq!(s.server.as_deref(), Some("demo"));
    assert_eq!(s.cases.len(), 4);
    assert_eq!(s.cases[0].expect.json["/sum"].equals, Some(json!(3)));
    assert_eq!(s.cases[1].server.as_deref(), Some("b"));
    assert!(matches!(
        s.cases[3].expect.snapshot,
        Some(SnapshotExpect::Ignoring { .. })
    ));
}

#[test]
fn a_broken_suite_says_where_and_why() {
    let b = parse_str("{ \"server\": \"demo\",\n  \"cases\": [ { \"name\": } ] }").unwrap_err();
    assert_eq!((b.line, b.column), (2, 24), "{b}");
    assert!(b.to_string().starts_with("s.json:2:24: "), "{b}");
    let cases = [
        (
            r#"{"cases": [{"name": "a", "tool": "t"}]}"#,
            "which server?",
        ),
        (r#"{"server": "s"}"#, "no \"cases\""),
        (
            r#"{"server": "s", "cases": [{"name": "a"}]}"#,
            "a case calls a \"tool\" or checks a \"surface\"",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "tool": "t"}, {"name": "a", "tool": "t"}]}"#,
            "another case has this name",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "tool": "t", "expect": {"text": {"contain": "x"}}}]}"#,
            "unknown field `contain`",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "tool": "t", "expect": {"text": {"matches": "("}}}]}"#,
            "not a regular expression",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "tool": "t", "expect": {"json": {"sum": {"exists": true}}}}]}"#,
            "not a JSON pointer",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "tool": "t", "arguments": [1]}]}"#,
            "must be a JSON object",
        ),
        ("", "the file is empty"),
    ];
    for (text, says) in cases {
        let b = parse_str(text).unwrap_err();
        assert!(b.message.contains(says), "{text}: {b}");
    }
    // The case is named in the message.
    let b = parse_str(
        r#"{"server": "s", "cases": [{"name": "first", "tool": "t", "expect": {"nope": 1}}]}"#,
    )
    .unwrap_err();
    assert!(b.message.starts_with("cases[0] (\"first\"): "), "{b}");
}

#[test]
fn assertions_fail_with_what_was_seen_and_a_diff() {
    let result = json!({
        "content": [{"type": "text", "text": "the sum is 5"}],
        "structuredContent": {"sum": 5, "id": "ord-17", "items": [1, 2]}
    });
    let expect: Expect = serde_json::from_value(json!({
        "text": {"contains": "sum is 6", "matches": "^the", "equals": "the sum is 5"},
        "json": {
            "/sum": {"equals": 5.0, "type": "integer"},
            "/id": {"matches": "^ord-[0-9]+$"},
            "/items": {"equals": [1, 3]},
            "/gone": {"exists": false},
            "/missing": {"type": "string"}
        },
        "maxMs": 10
    }))
    .unwrap();
    let seen = expect::Seen {
        result: &result,
        duration_ms: 12.5,
        schema_violations: &[],
        has_output_schema: false,
        snapshot: None,
    };
    let failures = expect::check(&expect, &seen);
    let names: Vec<&str> = failures.iter().map(|f| f.assertion.as_str()).collect();
    assert_eq!(
        names,
        [
            "text.contains",
            "json /items equals",
            "json /missing exists",
            "maxMs"
        ],
        "{failures:#?}"
    );
    let items = &failures[1];
    assert!(
        items.diff.as_deref().unwrap().contains("-   3")
            && items.diff.as_deref().unwrap().contains("+   2"),
        "{items:?}"
    );
    // An error result fails a case that does not expect one.
    let error = json!({"content": [{"type": "text", "text": "boom"}], "isError": true});
    let f = expect::check(
        &Expect::default(),
        &expect::Seen {
            result: &error,
            ..seen
        },
    );
    assert_eq!(f.len(), 1);
    assert!(f[0].message.contains("boom"));
    let wanted: Expect = serde_json::from_value(json!({"isError": true})).unwrap();
    assert!(
        expect::check(
            &wanted,
            &expect::Seen {
                result: &error,
                ..seen
            }
        )
        .is_empty()
    );
}

#[test]
fn schema_hashes_ignore_key_order_and_see_any_other_change() {
    let a =
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "string"}}});
    let b: serde_json::Value = serde_json::from_str(
        r#"{ "properties": { "b": {"type": "string"}, "a": {"type": "number"} }, "type": "object" }"#,
    )
    .unwrap();
    assert_eq!(schema_hash(&a), schema_hash(&b));
    assert!(schema_hash(&a).starts_with("sha256:"));
    let c = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "string"}}});
    assert_ne!(schema_hash(&a), schema_hash(&c));
}

#[test]
fn a_pattern_built_to_be_slow_is_refused_at_load_and_long_results_are_cut_in_messages() {
    let path = Path::new("s.json");
    let slow = r#"{"server": "s", "cases": [{"name": "a", "tool": "t",
        "expect": {"text": {"matches": "((a{1,1000}){1,1000}){1,1000}"}}}]}"#;
    let b = parse(path, slow).unwrap_err();
    assert!(b.message.contains("not a regular expression"), "{b}");
    // A failure over a 1 MB text says what it saw, cut.
    let big = "x".repeat(1 << 20);
    let result =
        json!({ "content": [{ "type": "text", "text": big }], "structuredContent": { "v": big } });
    let e: Expect = serde_json::from_value(json!({
        "text": { "matches": "^y", "contains": "nope" },
        "json": { "/v": { "equals": "short", "matches": "^z" } }
    }))
    .unwrap();
    let failures = expect::check(
        &e,
        &expect::Seen {
            result: &result,
            duration_ms: 1.0,
            schema_violations: &[],
            has_output_schema: false,
            snapshot: None,
        },
    );
    assert_eq!(failures.len(), 4, "{failures:?}");
    for f in &failures {
        let size = f.message.len() + f.diff.as_ref().map_or(0, String::len);
        assert!(size < 70_000, "{}: {size} bytes", f.assertion);
    }
}

#[test]
fn many_cases_load_with_names_checked_once_each() {
    let cases: Vec<Value> = (0..80_000)
        .map(|i| json!({ "name": format!("case {i}"), "tool": "t" }))
        .collect();
    let text = json!({ "server": "s", "cases": cases }).to_string();
    let s = parse(Path::new("many.json"), &text).unwrap();
    assert_eq!(s.cases.len(), 80_000);
    let twice =
        json!({ "server": "s", "cases": [{"name": "a", "tool": "t"}, {"name": "a", "tool": "t"}] });
    assert!(parse(Path::new("t.json"), &twice.to_string()).is_err());
}

#[test]
fn a_whole_number_read_as_a_float_is_shown_as_the_result_shows_it() {
    let result = json!({ "content": [], "structuredContent": { "total": 30.0 } });
    let e: Expect =
        serde_json::from_value(json!({ "json": { "/total": { "equals": 31 } } })).unwrap();
    let failures = expect::check(
        &e,
        &expect::Seen {
            result: &result,
            duration_ms: 1.0,
            schema_violations: &[],
            has_output_schema: false,
            snapshot: None,
        },
    );
    assert_eq!(failures.len(), 1);
    assert!(
        failures[0].message.ends_with("got 30"),
        "{}",
        failures[0].message
    );
    let diff = failures[0].diff.as_deref().unwrap_or("");
    assert!(diff.contains("+ 30") && !diff.contains("30.0"), "{diff}");
}

#[test]
fn prompt_cases_read_beside_calls() {
    let s = parse_str(
        r#"{ "server": "weather", "models": ["openai:gpt-5-mini", "ollama:llama3.1:8b"],
             "cases": [
               { "name": "adds", "tool": "add" },
               { "name": "forecast", "prompt": "What's the weather in Paris?",
                 "expect": { "calls": [{ "tool": "weather/get_forecast", "arguments": { "/city": { "matches": "(?i)paris" } } }],
                             "notCalled": ["weather/delete_all"], "answer": { "contains": "Paris" }, "maxSteps": 4, "inOrder": true },
                 "runs": 5, "passRate": 0.8, "results": { "weather/get_forecast": { "content": [] } } } ] }"#,
    )
    .unwrap();
    assert_eq!(s.cases.len(), 1);
    assert_eq!(s.prompts.len(), 1);
    assert_eq!(s.models, ["openai:gpt-5-mini", "ollama:llama3.1:8b"]);
    let p = &s.prompts[0];
    assert_eq!((p.runs(), p.pass_rate()), (5, 0.8));
    assert_eq!(p.servers_with(s.server.as_deref()), ["weather"]);
    assert!(p.expect.in_order);
    assert_eq!(p.expect.max_steps, Some(4));
    // Written back, the case reads the same (Save to suite appends it).
    let again: PromptCase = serde_json::from_value(serde_json::to_value(p).unwrap()).unwrap();
    assert_eq!(again.expect.calls[0].tool, "weather/get_forecast");
}

#[test]
fn a_broken_prompt_case_says_why() {
    let cases = [
        (
            r#"{"cases": [{"name": "a", "prompt": "hi"}]}"#,
            "which servers may the model use?",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "prompt": " "}]}"#,
            "\"prompt\" is empty",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "prompt": "x", "runs": 0}]}"#,
            "\"runs\" is 0",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "prompt": "x", "passRate": 2}]}"#,
            "\"passRate\" is 2",
        ),
        (
            r#"{"server": "s", "models": ["gpt-5"], "cases": []}"#,
            "not PROVIDER:MODEL",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "prompt": "x", "expect": {"calls": [{"tool": "t", "arguments": {"city": {}}}]}}]}"#,
            "not a JSON pointer",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "prompt": "x", "expect": {"answer": {"matches": "("}}}]}"#,
            "expect.answer.matches: not a regular expression",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "prompt": "x", "expect": {"called": []}}]}"#,
            "unknown field `called`",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "prompt": "x", "results": {"t": {}}}]}"#,
            "is not server/tool",
        ),
        (
            r#"{"server": "s", "cases": [{"name": "a", "tool": "t"}, {"name": "a", "prompt": "x"}]}"#,
            "another case has this name",
        ),
    ];
    for (text, says) in cases {
        let b = parse_str(text).unwrap_err();
        assert!(b.message.contains(says), "{text}: {b}");
    }
}
