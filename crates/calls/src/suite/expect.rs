//! A case's assertions against what came back: each failure names the
//! assertion, says what was seen, and carries a diff where one helps.

use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::vars::joined_text;
use std::collections::BTreeMap;

use super::{Expect, JsonExpect, SnapshotExpect, TextExpect};
use crate::gate::diff_lines;

/// One assertion that did not hold.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Failure {
    /// Which: `isError`, `text.contains`, `json /sum equals`, `snapshot`, ...
    pub assertion: String,
    pub message: String,
    /// Expected against actual, line by line (`-` expected, `+` actual).
    pub diff: Option<String>,
}

fn fail(assertion: impl Into<String>, message: impl Into<String>) -> Failure {
    Failure {
        assertion: assertion.into(),
        message: message.into(),
        diff: None,
    }
}

/// Every regular expression of `e` compiles (checked when the suite loads).
pub(super) fn check_patterns(e: &Expect) -> Result<(), String> {
    let mut patterns: Vec<(&str, String)> = Vec::new();
    if let Some(m) = e.text.as_ref().and_then(|t| t.matches.as_ref()) {
        patterns.push((m, "expect.text.matches".into()));
    }
    for (pointer, j) in &e.json {
        if !(pointer.is_empty() || pointer.starts_with('/')) {
            return Err(format!(
                "expect.json: {pointer:?} is not a JSON pointer (they start with /)"
            ));
        }
        if let Some(m) = &j.matches {
            patterns.push((m, format!("expect.json.{pointer}.matches")));
        }
        if let Some(k) = &j.kind
            && !matches!(
                k.as_str(),
                "string" | "number" | "integer" | "boolean" | "object" | "array" | "null"
            )
        {
            return Err(format!(
                "expect.json.{pointer}.type: {k:?} is not a JSON type"
            ));
        }
    }
    for (p, at) in patterns {
        pattern(p).map_err(|e| format!("{at}: not a regular expression: {e}"))?;
    }
    Ok(())
}

/// The largest compiled pattern (a suite's regular expression may come from
/// anyone: a huge counted repetition makes every byte of a 1 MB result
/// slow to match).
const PATTERN_LIMIT: usize = 1 << 20;

/// A suite's regular expression, compiled within [`PATTERN_LIMIT`].
pub(super) fn pattern(p: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(p)
        .size_limit(PATTERN_LIMIT)
        .dfa_size_limit(PATTERN_LIMIT)
        .build()
}

/// The longest part of a result a message or a diff line repeats.
const SHOWN: usize = 400;

/// `text` as a message shows it: cut past [`SHOWN`] bytes, saying so.
pub(super) fn shown(text: &str) -> String {
    if text.len() <= SHOWN {
        return text.to_string();
    }
    let mut end = SHOWN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

/// A diff of two texts, `-` for expected and `+` for actual, with three
/// lines of context around each change.
pub(super) fn render_diff(expected: &str, actual: &str) -> String {
    let lines = diff_lines(expected, actual);
    let near = |i: usize| {
        let lo = i.saturating_sub(3);
        let hi = (i + 4).min(lines.len());
        lines[lo..hi].iter().any(|l| l.op != " ")
    };
    let mut out = String::new();
    let mut skipped = false;
    for (i, l) in lines.iter().enumerate() {
        if l.op == " " && !near(i) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("  …\n");
            skipped = false;
        }
        if out.len() > 64 * 1024 {
            out.push_str("  … (the rest of the diff is left out)\n");
            break;
        }
        out.push_str(&format!(
            "{} {}\n",
            if l.op == " " { " " } else { &l.op },
            shown(&l.text)
        ));
    }
    out
}

fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(&as_shown(v)).unwrap_or_default()
}

/// `v` as the window and other clients show it: a whole number read as a
/// float (`30.0`) written as `30`, so a diff does not show a difference
/// that is not there.
pub(super) fn as_shown(v: &Value) -> Value {
    match v {
        Value::Number(n) => match n.as_f64() {
            Some(f) if !n.is_i64() && !n.is_u64() && f.fract() == 0.0 && f.abs() < 9.0e15 => {
                Value::from(f as i64)
            }
            _ => v.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(as_shown).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), as_shown(v))).collect())
        }
        other => other.clone(),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Equal as JSON values, numbers compared by value (`5` equals `5.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// What a case saw.
pub(super) struct Seen<'a> {
    pub result: &'a Value,
    pub duration_ms: f64,
    /// Where the result breaks the tool's output schema.
    pub schema_violations: &'a [String],
    pub has_output_schema: bool,
    /// The stored snapshot, if any.
    pub snapshot: Option<&'a Value>,
}

/// The result as a snapshot keeps it: without the ignored parts.
pub(super) fn snapshot_value(result: &Value, expect: &SnapshotExpect) -> Value {
    let mut v = result.clone();
    if let SnapshotExpect::Ignoring { ignore } = expect {
        for pointer in ignore {
            let Some((parent, key)) = pointer.rsplit_once('/') else {
                continue;
            };
            let key = key.replace("~1", "/").replace("~0", "~");
            match v.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.remove(&key);
                }
                Some(Value::Array(items)) => {
                    if let Ok(i) = key.parse::<usize>()
                        && i < items.len()
                    {
                        items[i] = Value::String("(ignored)".into());
                    }
                }
                _ => {}
            }
        }
    }
    v
}

/// A text's assertions; each failure named `<prefix>.contains` and so on.
pub(super) fn check_text(t: &TextExpect, text: &str, prefix: &str) -> Vec<Failure> {
    let mut out = Vec::new();
    if let Some(c) = &t.contains {
        for want in c.all() {
            if !text.contains(want) {
                out.push(Failure {
                    assertion: format!("{prefix}.contains"),
                    message: format!("the {prefix} does not contain {want:?}"),
                    diff: Some(render_diff(want, text)),
                });
            }
        }
    }
    if let Some(m) = &t.matches
        && let Ok(re) = pattern(m)
        && !re.is_match(text)
    {
        out.push(fail(
            format!("{prefix}.matches"),
            format!("the {prefix} does not match /{m}/: {:?}", shown(text)),
        ));
    }
    if let Some(want) = &t.equals
        && want != text
    {
        out.push(Failure {
            assertion: format!("{prefix}.equals"),
            message: format!("the {prefix} differs"),
            diff: Some(render_diff(want, text)),
        });
    }
    out
}

/// JSON pointers into `root` (called `noun` in messages) against what each
/// must be; each failure named `<prefix> <pointer> equals` and so on.
pub(super) fn check_json(
    expect: &BTreeMap<String, JsonExpect>,
    root: Option<&Value>,
    noun: &str,
    prefix: &str,
) -> Vec<Failure> {
    let mut out = Vec::new();
    for (pointer, j) in expect {
        let at = root.and_then(|s| s.pointer(pointer));
        let name = |what: &str| format!("{prefix} {pointer} {what}");
        if let Some(want) = j.exists
            && want != at.is_some()
        {
            out.push(fail(
                name("exists"),
                if want {
                    format!("{noun} has nothing at {pointer}")
                } else {
                    format!(
                        "{noun} has {} at {pointer}",
                        at.map(Value::to_string).unwrap_or_default()
                    )
                },
            ));
            continue;
        }
        let needs_value = j.equals.is_some() || j.matches.is_some() || j.kind.is_some();
        let Some(at) = at else {
            if needs_value {
                out.push(fail(
                    name("exists"),
                    if root.is_none() {
                        format!("there is no {noun}")
                    } else {
                        format!("{noun} has nothing at {pointer}")
                    },
                ));
            }
            continue;
        };
        if let Some(want) = &j.equals
            && !same(want, at)
        {
            out.push(Failure {
                assertion: name("equals"),
                message: format!(
                    "expected {}, got {}",
                    shown(&as_shown(want).to_string()),
                    shown(&as_shown(at).to_string())
                ),
                diff: Some(render_diff(&pretty(want), &pretty(at))),
            });
        }
        if let Some(m) = &j.matches
            && let Ok(re) = pattern(m)
        {
            let text = match at {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if !re.is_match(&text) {
                out.push(fail(
                    name("matches"),
                    format!("{:?} does not match /{m}/", shown(&text)),
                ));
            }
        }
        if let Some(k) = &j.kind {
            let got = json_type(at);
            let ok = got == k || (k == "number" && got == "integer");
            if !ok {
                out.push(fail(
                    name("type"),
                    format!("expected {k}, got {got} ({})", shown(&at.to_string())),
                ));
            }
        }
    }
    out
}

pub(super) fn check(expect: &Expect, seen: &Seen<'_>) -> Vec<Failure> {
    let mut out = Vec::new();
    let result = seen.result;
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    match expect.is_error {
        Some(want) if want != is_error => out.push(fail(
            "isError",
            if want {
                "expected an error result, the tool succeeded".to_string()
            } else {
                format!("the tool returned an error: {}", joined_text(result))
            },
        )),
        // Unless an error is expected, one is a failure.
        None if is_error => out.push(fail(
            "isError",
            format!(
                "the tool returned an error (say \"isError\": true if that is expected): {}",
                joined_text(result)
            ),
        )),
        _ => {}
    }
    if let Some(t) = &expect.text {
        out.extend(check_text(t, &joined_text(result), "text"));
    }
    out.extend(check_json(
        &expect.json,
        result.get("structuredContent"),
        "structuredContent",
        "json",
    ));
    if expect.output_schema == Some(true) {
        if !seen.has_output_schema {
            out.push(fail("outputSchema", "the tool declares no outputSchema"));
        } else if !seen.schema_violations.is_empty() {
            out.push(fail(
                "outputSchema",
                format!(
                    "structuredContent breaks the output schema: {}",
                    seen.schema_violations.join("; ")
                ),
            ));
        }
    }
    if let Some(max) = expect.max_ms
        && seen.duration_ms > max
    {
        out.push(fail(
            "maxMs",
            format!("took {:.1} ms, more than {max} ms", seen.duration_ms),
        ));
    }
    if let (Some(s), Some(stored)) = (&expect.snapshot, seen.snapshot)
        && !matches!(s, SnapshotExpect::On(false))
    {
        let now = snapshot_value(result, s);
        if !same(stored, &now) {
            out.push(Failure {
                assertion: "snapshot".into(),
                message: "the result differs from the stored snapshot (--update-snapshots takes the new one)".into(),
                diff: Some(render_diff(&pretty(stored), &pretty(&now))),
            });
        }
    }
    out
}

fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let sorted: std::collections::BTreeMap<&String, Value> =
                map.iter().map(|(k, v)| (k, canonical(v))).collect();
            Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The hash a surface case holds: SHA-256 over the schema's canonical JSON
/// (keys sorted, no whitespace), as `sha256:<hex>`. Key order and spacing
/// do not change it; any other change does.
pub fn schema_hash(schema: &Value) -> String {
    let text = canonical(schema).to_string();
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}
