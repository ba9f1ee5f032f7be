//! Gemini CLI's `settings.json` (`~/.gemini`, a project's `.gemini/`): its
//! servers under `mcpServers`, spelt as most JSON clients spell them but
//! for what this module reads: `httpUrl` is Streamable HTTP and a bare
//! `url` legacy SSE, `timeout` is in milliseconds, and a value may name a
//! variable as `$VAR` as well as `${VAR}`.

use serde_json::{Map, Value, json};

/// `$VAR` written as `${VAR}` (a `$` not before a name stays as it is).
fn braced(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name_len = after
            .char_indices()
            .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
            .map_or(after.len(), |(i, _)| i);
        let starts_name = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if starts_name {
            out.push_str(&format!("${{{}}}", &after[..name_len]));
            rest = &after[name_len..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// A Gemini entry in the keys `normalise` reads.
pub(super) fn entry(raw: &Value) -> Value {
    let Some(table) = raw.as_object() else {
        return raw.clone();
    };
    let mut out: Map<String, Value> = table.clone();
    if !out.contains_key("type") && !out.contains_key("httpUrl") && out.contains_key("url") {
        out.insert("type".into(), json!("sse"));
    }
    if let Some(ms) = out.remove("timeout").and_then(|t| t.as_f64()) {
        out.insert("callTimeout".into(), super::seconds(ms / 1000.0));
    }
    for key in ["env", "headers"] {
        if let Some(Value::Object(map)) = out.get_mut(key) {
            for v in map.values_mut() {
                if let Value::String(s) = v
                    && s.contains('$')
                    && !s.contains("${")
                {
                    *s = braced(s);
                }
            }
        }
    }
    Value::Object(out)
}

/// Our call timeout (seconds) as Gemini's `timeout` (milliseconds).
pub(super) fn timeout(e: &Map<String, Value>) -> Option<Value> {
    let s = e.get("callTimeout")?.as_f64()?;
    Some(json!((s * 1000.0).round() as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_variable_is_braced() {
        assert_eq!(braced("$MY_TOKEN"), "${MY_TOKEN}");
        assert_eq!(braced("Bearer $T and $5 and $"), "Bearer ${T} and $5 and $");
    }
}
