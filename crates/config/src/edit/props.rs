//! Property test: random edit sequences on realistic files (comments,
//! unknown keys, odd formatting) give the intended model, and the text of
//! every entry an edit did not touch stays byte-identical.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::{EditOp, apply};

#[derive(Debug, Clone)]
struct Style {
    indent: String,
    trailing_commas: bool,
    inline_entries: bool,
    crlf: bool,
}

fn style() -> impl Strategy<Value = Style> {
    (
        prop::sample::select(vec!["  ", "    ", "\t", " "]),
        any::<bool>(),
        any::<bool>(),
        prop::bool::weighted(0.2),
    )
        .prop_map(|(indent, trailing_commas, inline_entries, crlf)| Style {
            indent: indent.to_string(),
            trailing_commas,
            inline_entries,
            crlf,
        })
}

fn entry() -> impl Strategy<Value = Map<String, Value>> {
    let stdio = (
        prop::sample::select(vec!["npx", "uvx", "node", "/usr/bin/srv", "docker"]),
        prop::collection::vec("[a-z0-9@/._-]{1,12}", 0..4),
        prop::collection::btree_map("[A-Z_]{1,8}", "[a-z0-9${}:_]{0,10}", 0..3),
        any::<bool>(),
    )
        .prop_map(|(cmd, args, env, unknown)| {
            let mut m = Map::new();
            m.insert("command".into(), json!(cmd));
            m.insert("args".into(), json!(args));
            if !env.is_empty() {
                m.insert("env".into(), json!(env));
            }
            if unknown {
                m.insert(
                    "x-client-only".into(),
                    json!({ "nested": [1, 2, { "k": null }] }),
                );
            }
            m
        });
    let remote = (
        prop::sample::select(vec!["http", "sse", "streamable-http"]),
        "[a-z]{1,10}",
        any::<bool>(),
    )
        .prop_map(|(t, host, disabled)| {
            let mut m = Map::new();
            m.insert("type".into(), json!(t));
            m.insert("url".into(), json!(format!("https://{host}.example/mcp")));
            if disabled {
                m.insert("disabled".into(), json!(true));
            }
            m
        });
    prop_oneof![stdio, remote]
}

/// Render a value compactly (one line), as people write short entries.
fn inline(v: &Value) -> String {
    match v {
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(inline).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{ {} }}",
            map.iter()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), inline(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        other => other.to_string(),
    }
}

/// The file and, per server, the exact text of its entry.
fn render(servers: &[(String, Map<String, Value>)], st: &Style) -> (String, Vec<String>) {
    let nl = if st.crlf { "\r\n" } else { "\n" };
    let i1 = st.indent.clone();
    let i2 = st.indent.repeat(2);
    let i3 = st.indent.repeat(3);
    let mut out =
        format!("// header comment{nl}{{{nl}{i1}\"before\": [1, 2],{nl}{i1}\"mcpServers\": {{{nl}");
    let mut texts = Vec::new();
    for (n, (name, fields)) in servers.iter().enumerate() {
        let key = serde_json::to_string(name).unwrap();
        let body = if st.inline_entries {
            inline(&Value::Object(fields.clone()))
        } else {
            let mut b = format!("{{{nl}");
            let count = fields.len();
            for (k, (fk, fv)) in fields.iter().enumerate() {
                let comma = if k + 1 < count || st.trailing_commas {
                    ","
                } else {
                    ""
                };
                b.push_str(&format!("{i3}\"{fk}\": {}{comma}{nl}", inline(fv)));
            }
            b.push_str(&format!("{i2}}}"));
            b
        };
        let text = format!("{key}: {body}");
        let comma = if n + 1 < servers.len() || st.trailing_commas {
            ","
        } else {
            ""
        };
        out.push_str(&format!("{i2}// about {name}{nl}{i2}{text}{comma}{nl}"));
        texts.push(text);
    }
    out.push_str(&format!(
        "{i1}}},{nl}{i1}/* tail */ \"after\": {{ \"x\": true }}{nl}}}{nl}"
    ));
    (out, texts)
}

#[derive(Debug, Clone)]
enum Step {
    Update(usize, Map<String, Value>),
    Add(Map<String, Value>),
    Remove(usize),
    Rename(usize),
    Toggle(usize, bool),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (any::<usize>(), entry()).prop_map(|(i, e)| Step::Update(i, e)),
        entry().prop_map(Step::Add),
        any::<usize>().prop_map(Step::Remove),
        any::<usize>().prop_map(Step::Rename),
        (any::<usize>(), any::<bool>()).prop_map(|(i, d)| Step::Toggle(i, d)),
    ]
}

fn servers_of(text: &str) -> Vec<(String, Value)> {
    let v = crate::parse_jsonc(Path::new("/t/mcp.json"), text).unwrap();
    v["mcpServers"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_keep_untouched_text_and_give_the_intended_model(
        initial in prop::collection::vec(entry(), 0..5),
        st in style(),
        steps in prop::collection::vec(step(), 1..8),
    ) {
        let path = Path::new("/t/mcp.json");
        let named: Vec<(String, Map<String, Value>)> = initial
            .into_iter()
            .enumerate()
            .map(|(i, e)| (format!("server-{i}"), e))
            .collect();
        let (mut text, texts) = render(&named, &st);
        // The expected model and which servers still have their original text.
        let mut expected: Vec<(String, Value)> =
            named.iter().map(|(n, e)| (n.clone(), Value::Object(e.clone()))).collect();
        let mut pristine: Vec<(String, String)> = named
            .iter()
            .zip(texts)
            .map(|((n, _), t)| (n.clone(), t))
            .collect();
        let mut fresh = 0;
        for s in steps {
            let pick = |i: usize| (!expected.is_empty()).then(|| i % expected.len());
            let op = match s {
                Step::Add(e) => {
                    fresh += 1;
                    let name = format!("added-{fresh}");
                    expected.push((name.clone(), Value::Object(e.clone())));
                    EditOp::Upsert { name, fields: e }
                }
                Step::Update(i, e) => {
                    let Some(i) = pick(i) else { continue };
                    let name = expected[i].0.clone();
                    // Keys of the old entry not in the new one are removed (null).
                    let mut fields = e.clone();
                    for k in expected[i].1.as_object().unwrap().keys() {
                        fields.entry(k.clone()).or_insert(Value::Null);
                    }
                    expected[i].1 = Value::Object(e);
                    pristine.retain(|(n, _)| n != &name);
                    EditOp::Upsert { name, fields }
                }
                Step::Remove(i) => {
                    let Some(i) = pick(i) else { continue };
                    let (name, _) = expected.remove(i);
                    pristine.retain(|(n, _)| n != &name);
                    EditOp::Remove { name }
                }
                Step::Rename(i) => {
                    let Some(i) = pick(i) else { continue };
                    fresh += 1;
                    let to = format!("renamed-{fresh}");
                    let from = std::mem::replace(&mut expected[i].0, to.clone());
                    pristine.retain(|(n, _)| n != &from);
                    EditOp::Rename { from, to }
                }
                Step::Toggle(i, disabled) => {
                    let Some(i) = pick(i) else { continue };
                    let name = expected[i].0.clone();
                    let obj = expected[i].1.as_object_mut().unwrap();
                    if obj.contains_key("disabled") || disabled {
                        obj.insert("disabled".into(), json!(disabled));
                    }
                    pristine.retain(|(n, _)| n != &name);
                    EditOp::SetDisabled { name, disabled }
                }
            };
            text = apply(path, &text, &op).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&servers_of(&text), &expected, "after {:?}:\n{}", op, text);
            for (name, original) in &pristine {
                prop_assert!(text.contains(original.as_str()), "{} changed:\n{}", name, text);
                let comment = format!("// about {name}");
                prop_assert!(text.contains(&comment), "comment of {} lost:\n{}", name, text);
            }
            let kept = ["// header comment", "/* tail */ \"after\": { \"x\": true }", "\"before\": [1, 2]"];
            for k in kept {
                prop_assert!(text.contains(k), "lost {}:\n{}", k, text);
            }
        }
    }
}
