//! OpenCode's `opencode.json(c)` (a project's, its `.opencode/`, or
//! `~/.config/opencode/`): servers under `mcp` (or `mcp.servers`, its
//! second config shape), each `"type": "local"` with the command and its
//! arguments as one list and `environment`, or `"type": "remote"` with
//! `url` and `headers`; `enabled` (or `disabled`), `timeout` in
//! milliseconds, a value naming a variable as `{env:VAR}`.

use serde_json::{Map, Value, json};

/// The servers of an OpenCode document, by name: `mcp.servers` when that
/// is where they are (each an object with a `type`), else `mcp`.
pub(super) fn listed(doc: &Value) -> Vec<(String, Value)> {
    let mcp = doc.get("mcp").and_then(Value::as_object);
    let second = mcp
        .and_then(|m| m.get("servers"))
        .and_then(Value::as_object)
        .filter(|s| s.values().all(|v| v.get("type").is_some()));
    let servers = second.or(mcp);
    servers
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

/// `{env:VAR}` written as `${VAR}`.
fn references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("{env:") {
        let Some(end) = rest[at..].find('}') else {
            break;
        };
        let var = &rest[at + 5..at + end];
        out.push_str(&rest[..at]);
        if !var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(&format!("${{{var}}}"));
        } else {
            out.push_str(&rest[at..at + end + 1]);
        }
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    out
}

fn texts(v: &Value) -> Value {
    match v {
        Value::String(s) => json!(references(s)),
        Value::Array(items) => Value::Array(items.iter().map(texts).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), texts(v))).collect()),
        other => other.clone(),
    }
}

/// An OpenCode entry in the keys `normalise` reads.
pub(super) fn entry(raw: &Value) -> Value {
    let Some(table) = raw.as_object() else {
        return raw.clone();
    };
    let mut out = Map::new();
    match table.get("type").and_then(Value::as_str) {
        Some("remote") => {
            if let Some(url) = table.get("url") {
                out.insert("url".into(), texts(url));
            }
            if let Some(h) = table.get("headers") {
                out.insert("headers".into(), texts(h));
            }
        }
        _ => match table.get("command") {
            Some(Value::Array(parts)) => {
                let parts: Vec<Value> = parts.iter().map(texts).collect();
                if let Some((first, rest)) = parts.split_first() {
                    out.insert("command".into(), first.clone());
                    if !rest.is_empty() {
                        out.insert("args".into(), Value::Array(rest.to_vec()));
                    }
                }
            }
            Some(other) => {
                out.insert("command".into(), texts(other));
            }
            None => {}
        },
    }
    if let Some(env) = table.get("environment").or_else(|| table.get("env")) {
        out.insert("env".into(), texts(env));
    }
    if let Some(cwd) = table.get("cwd") {
        out.insert("cwd".into(), texts(cwd));
    }
    let off =
        table.get("enabled") == Some(&json!(false)) || table.get("disabled") == Some(&json!(true));
    if off {
        out.insert("disabled".into(), json!(true));
    }
    if let Some(ms) = table.get("timeout").and_then(Value::as_f64) {
        out.insert("callTimeout".into(), super::seconds(ms / 1000.0));
    }
    // Its OAuth client (`clientId`, `clientSecret`, `scope`) as ours;
    // `oauth: false` turns sign-in off, which we have no word for.
    if let Some(Value::Object(oauth)) = table.get("oauth") {
        let ours: Map<String, Value> = ["clientId", "clientSecret", "scope"]
            .into_iter()
            .filter_map(|k| oauth.get(k).map(|v| (k.to_string(), texts(v))))
            .collect();
        if !ours.is_empty() {
            out.insert("oauth".into(), Value::Object(ours));
        }
    }
    Value::Object(out)
}

/// Our entry (normalised) as OpenCode's first config shape writes it.
pub(super) fn written(name: &str, e: &Map<String, Value>, notes: &mut Vec<String>) -> Value {
    let refs = |v: &Value, at: &str, notes: &mut Vec<String>| {
        super::export::translated(super::Dialect::OpenCode, v, at, notes)
    };
    let mut out = Map::new();
    if let Some(url) = e.get("url") {
        out.insert("type".into(), json!("remote"));
        out.insert("url".into(), refs(url, &format!("{name}.url"), notes));
        if let Some(h) = e.get("headers") {
            out.insert("headers".into(), refs(h, &format!("{name}.headers"), notes));
        }
    } else {
        out.insert("type".into(), json!("local"));
        let mut command = vec![e.get("command").cloned().unwrap_or_default()];
        command.extend(
            e.get("args")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        out.insert(
            "command".into(),
            refs(&Value::Array(command), &format!("{name}.command"), notes),
        );
        if let Some(env) = e.get("env") {
            out.insert(
                "environment".into(),
                refs(env, &format!("{name}.env"), notes),
            );
        }
        if e.contains_key("cwd") {
            notes.push(format!(
                "{name}: opencode's first config shape has no \"cwd\"; it was left out"
            ));
        }
    }
    out.insert(
        "enabled".into(),
        json!(e.get("disabled").and_then(Value::as_bool) != Some(true)),
    );
    if let Some(s) = e.get("callTimeout").and_then(Value::as_f64) {
        out.insert("timeout".into(), json!((s * 1000.0).round() as i64));
    }
    for key in ["autoApprove", "includeTools", "excludeTools"] {
        if e.contains_key(key) {
            notes.push(format!(
                "{name}: opencode has no \"{key}\"; it was left out"
            ));
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_references_are_read_and_written_each_way() {
        assert_eq!(
            references("Bearer {env:TOKEN} {file:x}"),
            "Bearer ${TOKEN} {file:x}"
        );
        let e = json!({ "url": "https://h/mcp", "headers": { "A": "Bearer ${env:TOKEN}" } });
        let mut notes = Vec::new();
        let w = written("r", e.as_object().unwrap(), &mut notes);
        assert_eq!(w["headers"]["A"], "Bearer {env:TOKEN}");
        assert!(notes.is_empty(), "{notes:?}");
    }

    #[test]
    fn the_second_config_shape_is_read_from_mcp_servers() {
        let v2 = json!({ "mcp": { "servers": { "a": { "type": "local", "command": ["x"] } } } });
        assert_eq!(listed(&v2)[0].0, "a");
        // A first-shape server that happens to be called "servers".
        let v1 = json!({ "mcp": { "servers": { "type": "local", "command": ["x"] } } });
        assert_eq!(listed(&v1)[0].0, "servers");
    }
}
