//! References in a case's arguments, resolved just before it runs:
//! `${env:VAR}`, and values from an earlier case's result —
//! `${case.NAME.json./pointer}` (into its `structuredContent`),
//! `${case.NAME.result./pointer}` (into the whole result), `${case.NAME.text}`
//! (its text blocks). A string that is one reference becomes the value
//! itself (a number stays a number); inside longer text it is written as
//! text. `$${` is a literal `${`.

use std::collections::HashMap;

use serde_json::Value;

/// The results of the cases that ran before, by name.
pub(super) type Earlier = HashMap<String, Value>;

/// The text blocks of a result, joined with newlines.
pub(crate) fn joined_text(result: &Value) -> String {
    result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter(|b| b["type"] == "text")
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

fn resolve(reference: &str, earlier: &Earlier) -> Result<Value, String> {
    if let Some(var) = reference.strip_prefix("env:") {
        return std::env::var(var)
            .map(Value::String)
            .map_err(|_| format!("the environment variable {var} is not set"));
    }
    let Some(rest) = reference.strip_prefix("case.") else {
        return Err(format!(
            "${{{reference}}}: a reference is ${{env:VAR}} or ${{case.NAME.json./pointer}}"
        ));
    };
    let (name, part, pointer) = [".json", ".result", ".text"]
        .iter()
        .filter_map(|part| {
            let at = rest.rfind(part)?;
            let after = &rest[at + part.len()..];
            (after.is_empty() || after.starts_with('.'))
                .then(|| (&rest[..at], *part, after.strip_prefix('.').unwrap_or("")))
        })
        .max_by_key(|(name, ..)| name.len())
        .ok_or_else(|| {
            format!("${{{reference}}}: say which part: case.NAME.json./pointer, case.NAME.result./pointer or case.NAME.text")
        })?;
    let result = earlier.get(name).ok_or_else(|| {
        format!("${{{reference}}}: no earlier case \"{name}\" has a result (cases of one server run in order; a failed call has none)")
    })?;
    let base = match part {
        ".text" => return Ok(Value::String(joined_text(result))),
        ".json" => result.get("structuredContent").unwrap_or(&Value::Null),
        _ => result,
    };
    base.pointer(pointer)
        .cloned()
        .ok_or_else(|| format!("${{{reference}}}: case \"{name}\" has nothing at {pointer:?}"))
}

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn in_string(s: &str, earlier: &Earlier) -> Result<Value, String> {
    if !s.contains("${") {
        return Ok(Value::String(s.to_string()));
    }
    // One whole reference: the value itself.
    if let Some(inner) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
        && !inner.contains("${")
        && !inner.contains('}')
    {
        return resolve(inner, earlier);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find("${") {
        if rest[..at].ends_with('$') {
            out.push_str(&rest[..at - 1]);
            out.push_str("${");
            rest = &rest[at + 2..];
            continue;
        }
        out.push_str(&rest[..at]);
        let end = rest[at..]
            .find('}')
            .ok_or_else(|| format!("an unclosed ${{ in {s:?}"))?;
        out.push_str(&as_text(&resolve(&rest[at + 2..at + end], earlier)?));
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

/// `v` kept as data: every `${` written `$${`, so that what was recorded —
/// arguments a host, a model or a person sent as they were — is sent the
/// same by the case, never read as a reference to the environment.
pub fn literal(v: &Value) -> Value {
    match v {
        Value::String(s) if s.contains("${") => Value::String(s.replace("${", "$${")),
        Value::Array(items) => Value::Array(items.iter().map(literal).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, i)| (k.clone(), literal(i))).collect())
        }
        other => other.clone(),
    }
}

/// `v` with every reference resolved.
pub(super) fn substitute(v: &Value, earlier: &Earlier) -> Result<Value, String> {
    Ok(match v {
        Value::String(s) => in_string(s, earlier)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| substitute(i, earlier))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, i)| Ok((k.clone(), substitute(i, earlier)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn recorded_text_kept_literal_is_sent_as_it_was() {
        let earlier = Earlier::new();
        for text in [
            "${env:AWS_SECRET_ACCESS_KEY}",
            "https://x/?k=${env:HOME}&g=${case.a.text}",
            "a$${b",
            "$$${x}",
            "no reference",
        ] {
            let sent = json!({ "url": text, "list": [text] });
            assert_eq!(
                substitute(&literal(&sent), &earlier).unwrap(),
                sent,
                "{text}"
            );
        }
    }

    #[test]
    fn references_take_values_from_earlier_cases_and_the_environment() {
        let mut earlier = Earlier::new();
        earlier.insert(
            "create it".into(),
            json!({"content": [{"type": "text", "text": "made"}], "structuredContent": {"id": 42, "tags": ["a"]}}),
        );
        let args = json!({
            "id": "${case.create it.json./id}",
            "label": "thing ${case.create it.json./id} (${case.create it.text})",
            "tags": ["${case.create it.json./tags}"],
            "literal": "$${case.x.json./id}",
            "home": "${env:MCPWB_SUITE_VARS_TEST}",
        });
        let err = substitute(&args, &earlier).unwrap_err();
        assert!(err.contains("MCPWB_SUITE_VARS_TEST is not set"), "{err}");
        let mut args = args;
        args.as_object_mut().unwrap().remove("home");
        let out = substitute(&args, &earlier).unwrap();
        assert_eq!(out["id"], 42, "a whole reference keeps its type");
        assert_eq!(out["label"], "thing 42 (made)");
        assert_eq!(out["tags"], json!([["a"]]));
        assert_eq!(out["literal"], "${case.x.json./id}");
        let missing = substitute(&json!({"x": "${case.nope.json./id}"}), &earlier).unwrap_err();
        assert!(missing.contains("no earlier case \"nope\""), "{missing}");
        let nothing =
            substitute(&json!({"x": "${case.create it.json./nope}"}), &earlier).unwrap_err();
        assert!(nothing.contains("nothing at \"/nope\""), "{nothing}");
    }
}
