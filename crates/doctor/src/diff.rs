//! What changed between two surfaces, each change classified for the
//! clients that call the server: breaking (a call that worked may now fail,
//! or a caller reading the result may now break) or compatible.
//!
//! Input schemas are compared as a caller sends: a required argument
//! added, a type narrowed, an enum value removed or an argument removed
//! where extra ones are refused break; optional arguments and wider types
//! do not. Output schemas as a caller reads: a field removed or its type
//! changed breaks.

use std::collections::BTreeSet;

use serde::Serialize;
use serde_json::Value;

use crate::surface::Surface;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Impact {
    Compatible,
    Breaking,
}

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub impact: Impact,
    /// Stable: `tool.removed`, `input.required-added`, ...
    pub code: String,
    /// `tool echo`, `prompt greet`, `capabilities`.
    pub item: String,
    /// Where in the item (a JSON pointer), when inside it.
    pub pointer: String,
    pub message: String,
}

struct Out(Vec<Change>);

impl Out {
    fn push(&mut self, impact: Impact, code: &str, item: &str, pointer: &str, message: String) {
        self.0.push(Change {
            impact,
            code: code.into(),
            item: item.into(),
            pointer: pointer.into(),
            message,
        });
    }
}

fn names<'a>(items: &'a [Value], key: &str) -> BTreeSet<&'a str> {
    items.iter().filter_map(|i| i[key].as_str()).collect()
}

fn find<'a>(items: &'a [Value], key: &str, name: &str) -> Option<&'a Value> {
    items.iter().find(|i| i[key] == name)
}

/// Every change from `old` to `new`, breaking ones first.
pub fn diff(old: &Surface, new: &Surface) -> Vec<Change> {
    let mut out = Out(Vec::new());
    capabilities(&mut out, &old.capabilities, &new.capabilities);
    if old.protocol_version != new.protocol_version {
        out.push(
            Impact::Compatible,
            "protocol.changed",
            "server",
            "/protocolVersion",
            format!(
                "protocol {} → {}",
                old.protocol_version, new.protocol_version
            ),
        );
    }
    listed(&mut out, "tool", "name", &old.tools, &new.tools, tool);
    listed(
        &mut out,
        "prompt",
        "name",
        &old.prompts,
        &new.prompts,
        prompt,
    );
    listed(
        &mut out,
        "template",
        "uriTemplate",
        &old.resource_templates,
        &new.resource_templates,
        |_, _, _, _| {},
    );
    listed(
        &mut out,
        "resource",
        "uri",
        &old.resources,
        &new.resources,
        |_, _, _, _| {},
    );
    let mut changes = out.0;
    changes.sort_by_key(|c| std::cmp::Reverse(c.impact));
    changes
}

type Compare = fn(&mut Out, &str, &Value, &Value);

fn listed(out: &mut Out, kind: &str, key: &str, old: &[Value], new: &[Value], compare: Compare) {
    let (before, after) = (names(old, key), names(new, key));
    for gone in before.difference(&after) {
        // Resources come and go with the data they serve; the rest are API.
        let impact = if kind == "resource" {
            Impact::Compatible
        } else {
            Impact::Breaking
        };
        out.push(
            impact,
            &format!("{kind}.removed"),
            &format!("{kind} {gone}"),
            "",
            "it was removed".to_string(),
        );
    }
    for added in after.difference(&before) {
        out.push(
            Impact::Compatible,
            &format!("{kind}.added"),
            &format!("{kind} {added}"),
            "",
            "it was added".to_string(),
        );
    }
    for name in before.intersection(&after) {
        let (Some(o), Some(n)) = (find(old, key, name), find(new, key, name)) else {
            continue;
        };
        let item = format!("{kind} {name}");
        for field in ["title", "description", "mimeType"] {
            if o.get(field) != n.get(field) {
                out.push(
                    Impact::Compatible,
                    &format!("{kind}.{field}-changed"),
                    &item,
                    &format!("/{field}"),
                    format!("its {field} changed"),
                );
            }
        }
        compare(out, &item, o, n);
    }
}

fn capabilities(out: &mut Out, old: &Value, new: &Value) {
    let flags = |v: &Value| -> BTreeSet<String> {
        let mut set = BTreeSet::new();
        if let Value::Object(m) = v {
            for (k, inner) in m {
                set.insert(k.clone());
                if let Value::Object(sub) = inner {
                    for (f, on) in sub {
                        if on == &Value::Bool(true) {
                            set.insert(format!("{k}.{f}"));
                        }
                    }
                }
            }
        }
        set
    };
    let (before, after) = (flags(old), flags(new));
    for gone in before.difference(&after) {
        out.push(
            Impact::Breaking,
            "capability.dropped",
            "capabilities",
            &format!("/{}", gone.replace('.', "/")),
            format!("the capability {gone} was dropped"),
        );
    }
    for added in after.difference(&before) {
        out.push(
            Impact::Compatible,
            "capability.added",
            "capabilities",
            &format!("/{}", added.replace('.', "/")),
            format!("the capability {added} was added"),
        );
    }
}

fn tool(out: &mut Out, item: &str, old: &Value, new: &Value) {
    input(
        out,
        item,
        "/inputSchema",
        &old["inputSchema"],
        &new["inputSchema"],
    );
    output(
        out,
        item,
        "/outputSchema",
        &old["outputSchema"],
        &new["outputSchema"],
    );
    if old.get("annotations") != new.get("annotations") {
        out.push(
            Impact::Compatible,
            "tool.annotations-changed",
            item,
            "/annotations",
            "its annotations changed".into(),
        );
    }
}

fn prompt(out: &mut Out, item: &str, old: &Value, new: &Value) {
    let args = |v: &Value| -> Vec<(String, bool)> {
        v["arguments"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| Some((x["name"].as_str()?.to_string(), x["required"] == true)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (before, after) = (args(old), args(new));
    for (name, required) in &after {
        let was = before.iter().find(|(n, _)| n == name);
        let pointer = format!("/arguments/{name}");
        match was {
            None if *required => out.push(
                Impact::Breaking,
                "prompt.required-added",
                item,
                &pointer,
                format!("a required argument {name} was added"),
            ),
            None => out.push(
                Impact::Compatible,
                "prompt.argument-added",
                item,
                &pointer,
                format!("an optional argument {name} was added"),
            ),
            Some((_, false)) if *required => out.push(
                Impact::Breaking,
                "prompt.now-required",
                item,
                &pointer,
                format!("the argument {name} is now required"),
            ),
            _ => {}
        }
    }
    for (name, _) in &before {
        if !after.iter().any(|(n, _)| n == name) {
            out.push(
                Impact::Breaking,
                "prompt.argument-removed",
                item,
                &format!("/arguments/{name}"),
                format!("the argument {name} was removed"),
            );
        }
    }
}

/// The JSON types a schema accepts (None: any).
fn types(schema: &Value) -> Option<BTreeSet<String>> {
    let mut set = BTreeSet::new();
    match schema.get("type") {
        Some(Value::String(t)) => {
            set.insert(t.clone());
        }
        Some(Value::Array(ts)) => {
            set.extend(ts.iter().filter_map(|t| t.as_str().map(String::from)))
        }
        _ => return None,
    }
    // An integer is a number: "number" accepts what "integer" did.
    if set.contains("number") {
        set.insert("integer".into());
    }
    Some(set)
}

fn required(schema: &Value) -> BTreeSet<String> {
    schema["required"]
        .as_array()
        .map(|r| {
            r.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn properties(schema: &Value) -> Vec<(String, Value)> {
    schema["properties"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

fn pointer_escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// What a caller sends: narrower is breaking.
fn input(out: &mut Out, item: &str, at: &str, old: &Value, new: &Value) {
    input_types(out, item, at, old, new);
    input_values(out, item, at, old, new);
    input_arguments(out, item, at, old, new);
    if old["items"].is_object() && new["items"].is_object() {
        input(
            out,
            item,
            &format!("{at}/items"),
            &old["items"],
            &new["items"],
        );
    }
}

/// The types a value may have: fewer is breaking, more compatible.
fn input_types(out: &mut Out, item: &str, at: &str, old: &Value, new: &Value) {
    match (types(old), types(new)) {
        (Some(o), Some(n)) if !o.is_subset(&n) => {
            let lost: Vec<&String> = o.difference(&n).collect();
            out.push(
                Impact::Breaking,
                "input.type-narrowed",
                item,
                at,
                format!(
                    "accepts {} no more ({} now)",
                    lost.iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    n.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
            );
        }
        (None, Some(n)) => out.push(
            Impact::Breaking,
            "input.type-narrowed",
            item,
            at,
            format!(
                "accepted any type, now only {}",
                n.into_iter().collect::<Vec<_>>().join(", ")
            ),
        ),
        (Some(o), Some(n)) if o != n => out.push(
            Impact::Compatible,
            "input.type-widened",
            item,
            at,
            "accepts more types".into(),
        ),
        _ => {}
    }
}

/// The values listed (`enum`): one gone, or a list where there was none,
/// is breaking.
fn input_values(out: &mut Out, item: &str, at: &str, old: &Value, new: &Value) {
    if let (Some(o), Some(n)) = (old["enum"].as_array(), new["enum"].as_array()) {
        for gone in o.iter().filter(|v| !n.contains(v)) {
            out.push(
                Impact::Breaking,
                "input.enum-value-removed",
                item,
                at,
                format!("the value {gone} is no longer accepted"),
            );
        }
    } else if old.get("enum").is_none() && new.get("enum").is_some() {
        out.push(
            Impact::Breaking,
            "input.enum-added",
            item,
            at,
            "only listed values are accepted now".into(),
        );
    }
}

/// An object's arguments: one newly required, or removed where the object
/// is closed or it was required, is breaking; each kept one is compared in
/// turn.
fn input_arguments(out: &mut Out, item: &str, at: &str, old: &Value, new: &Value) {
    let (was, now) = (required(old), required(new));
    let old_props = properties(old);
    let new_props = properties(new);
    for name in now.difference(&was) {
        let known = old_props.iter().any(|(k, _)| k == name);
        out.push(
            Impact::Breaking,
            "input.required-added",
            item,
            &format!("{at}/properties/{}", pointer_escape(name)),
            if known {
                format!("the argument {name} is now required")
            } else {
                format!("a required argument {name} was added")
            },
        );
    }
    let closed = new["additionalProperties"] == false;
    for (name, schema) in &old_props {
        let pointer = format!("{at}/properties/{}", pointer_escape(name));
        match new_props.iter().find(|(k, _)| k == name) {
            Some((_, now)) => input(out, item, &pointer, schema, now),
            None => out.push(
                if closed || was.contains(name) {
                    Impact::Breaking
                } else {
                    Impact::Compatible
                },
                "input.argument-removed",
                item,
                &pointer,
                format!("the argument {name} was removed"),
            ),
        }
    }
    for (name, _) in &new_props {
        if !old_props.iter().any(|(k, _)| k == name) && !now.contains(name) {
            out.push(
                Impact::Compatible,
                "input.argument-added",
                item,
                &format!("{at}/properties/{}", pointer_escape(name)),
                format!("an optional argument {name} was added"),
            );
        }
    }
}

/// What a caller reads: any field removed or retyped is breaking.
fn output(out: &mut Out, item: &str, at: &str, old: &Value, new: &Value) {
    if old.is_null() {
        if !new.is_null() {
            out.push(
                Impact::Compatible,
                "output.schema-added",
                item,
                at,
                "it now declares an output schema".into(),
            );
        }
        return;
    }
    if new.is_null() && at == "/outputSchema" {
        out.push(
            Impact::Breaking,
            "output.schema-removed",
            item,
            at,
            "it no longer declares an output schema (structured content may be gone)".into(),
        );
        return;
    }
    if let (Some(o), Some(n)) = (types(old), types(new))
        && o != n
    {
        out.push(
            Impact::Breaking,
            "output.type-changed",
            item,
            at,
            format!(
                "was {}, now {}",
                o.into_iter().collect::<Vec<_>>().join(", "),
                n.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
    }
    let new_props = properties(new);
    for (name, schema) in properties(old) {
        let pointer = format!("{at}/properties/{}", pointer_escape(&name));
        match new_props.iter().find(|(k, _)| *k == name) {
            Some((_, now)) => output(out, item, &pointer, &schema, now),
            None => out.push(
                Impact::Breaking,
                "output.field-removed",
                item,
                &pointer,
                format!("the result field {name} was removed"),
            ),
        }
    }
    if old["items"].is_object() && new["items"].is_object() {
        output(
            out,
            item,
            &format!("{at}/items"),
            &old["items"],
            &new["items"],
        );
    }
}

/// The changes as JUnit XML (a testcase each; breaking ones fail), for CI.
pub fn junit(changes: &[Change]) -> String {
    use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new("surface diff");
    for c in changes {
        let status = match c.impact {
            Impact::Breaking => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(c.message.as_str());
                s.set_type(c.code.as_str());
                s
            }
            Impact::Compatible => TestCaseStatus::success(),
        };
        let mut tc = TestCase::new(format!("{} {}{}", c.code, c.item, c.pointer), status);
        tc.set_classname(c.item.as_str());
        suite.add_test_case(tc);
    }
    let mut report = Report::new("mcpwb diff");
    report.add_test_suite(suite);
    report.to_string().unwrap_or_default()
}

#[cfg(test)]
mod tests;
