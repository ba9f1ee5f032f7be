//! Writing our entries in another client's dialect. Whatever the target
//! cannot express is left out and named in a note; `${...}` references are
//! translated where the target spells them differently.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Dialect, normalise};
use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exported {
    pub text: String,
    /// What was dropped or changed, one sentence each.
    pub notes: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Refs {
    /// `${VAR}`, `${VAR:-default}` (Claude Code, ours).
    Shell,
    /// `${env:VAR}`, `${userHome}`, `${workspaceFolder}`; `${input:id}` if `inputs`.
    Editor { inputs: bool },
    /// No expansion at all.
    None,
}

fn refs_of(d: Dialect) -> Refs {
    match d {
        Dialect::ClaudeCode => Refs::Shell,
        Dialect::Vscode => Refs::Editor { inputs: true },
        Dialect::Cursor | Dialect::Windsurf | Dialect::Roo => Refs::Editor { inputs: false },
        _ => Refs::None,
    }
}

/// Translate the references in `text` for the target; notes say what cannot be.
fn translate(text: &str, refs: Refs, client: &str, at: &str, notes: &mut Vec<String>) -> String {
    if !text.contains("${") {
        return text.to_string();
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let body = &after[..end];
        let (name, default) = match body.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (body, None),
        };
        let var = name.strip_prefix("env:");
        let plain = var.unwrap_or(name);
        let is_var = plain.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let is_special = name.starts_with("input:") || name.starts_with("secret:");
        let replaced = match refs {
            _ if name.starts_with("secret:") => {
                notes.push(format!(
                    "{at}: ${{{body}}} is a secret in this machine's keychain; {client} cannot read it, fill it in there"
                ));
                format!("${{{body}}}")
            }
            Refs::Shell if name == "userHome" => "${HOME}".to_string(),
            Refs::Shell if is_var && !is_special && name != "workspaceFolder" => match default {
                Some(d) => format!("${{{plain}:-{d}}}"),
                None => format!("${{{plain}}}"),
            },
            Refs::Editor { .. } if name == "userHome" || name == "workspaceFolder" => {
                format!("${{{name}}}")
            }
            Refs::Editor { inputs: true } if name.starts_with("input:") => format!("${{{name}}}"),
            Refs::Editor { .. } if is_var && !is_special => {
                if default.is_some() {
                    notes.push(format!(
                        "{at}: {client} has no defaults in references; the default of ${{{body}}} was dropped"
                    ));
                }
                format!("${{env:{plain}}}")
            }
            _ => {
                notes.push(format!(
                    "{at}: {client} does not expand ${{{body}}}; it is written as is"
                ));
                format!("${{{body}}}")
            }
        };
        out.push_str(&replaced);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn translate_value(
    v: &Value,
    refs: Refs,
    client: &str,
    at: &str,
    notes: &mut Vec<String>,
) -> Value {
    match v {
        Value::String(s) => Value::String(translate(s, refs, client, at, notes)),
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| translate_value(i, refs, client, at, notes))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, i)| {
                    (
                        k.clone(),
                        translate_value(i, refs, client, &format!("{at}.{k}"), notes),
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// One entry in the target's spelling.
fn entry_for(
    d: Dialect,
    name: &str,
    e: &Map<String, Value>,
    notes: &mut Vec<String>,
) -> Option<Value> {
    let client = d.id();
    let refs = refs_of(d);
    let get = |k: &str, notes: &mut Vec<String>| {
        e.get(k)
            .map(|v| translate_value(v, refs, client, &format!("{name}.{k}"), notes))
    };
    let remote = e.get("url").is_some();
    let kind =
        e.get("type")
            .and_then(Value::as_str)
            .unwrap_or(if remote { "http" } else { "stdio" });
    let mut out = Map::new();
    let drop = |what: &str, notes: &mut Vec<String>| {
        if e.contains_key(what) {
            notes.push(format!(
                "{name}: {client} has no \"{what}\"; it was left out"
            ));
        }
    };
    if remote && d == Dialect::ClaudeDesktop {
        notes.push(format!(
            "{name}: Claude Desktop reads only local servers from its file (add remote ones as connectors); left out"
        ));
        return None;
    }
    if remote {
        let url = get("url", notes);
        match d {
            Dialect::Windsurf => {
                out.insert("serverUrl".into(), url.unwrap_or_default());
            }
            Dialect::Goose => {
                out.insert(
                    "type".into(),
                    json!(if kind == "sse" {
                        "sse"
                    } else {
                        "streamable_http"
                    }),
                );
                out.insert("uri".into(), url.unwrap_or_default());
            }
            Dialect::Cline => {
                out.insert(
                    "type".into(),
                    json!(if kind == "sse" {
                        "sse"
                    } else {
                        "streamableHttp"
                    }),
                );
                out.insert("url".into(), url.unwrap_or_default());
            }
            Dialect::Roo | Dialect::Continue => {
                out.insert(
                    "type".into(),
                    json!(if kind == "sse" {
                        "sse"
                    } else {
                        "streamable-http"
                    }),
                );
                out.insert("url".into(), url.unwrap_or_default());
            }
            Dialect::ClaudeCode | Dialect::Vscode | Dialect::Cursor => {
                out.insert("type".into(), json!(kind));
                out.insert("url".into(), url.unwrap_or_default());
            }
            _ => {
                if kind == "sse" {
                    notes.push(format!(
                        "{name}: {client} cannot mark a server as legacy SSE; it is written as a plain url"
                    ));
                }
                out.insert("url".into(), url.unwrap_or_default());
            }
        }
        if let Some(h) = get("headers", notes) {
            if d == Dialect::Continue {
                drop("headers", notes);
            } else {
                out.insert("headers".into(), h);
            }
        }
    } else {
        match d {
            Dialect::Goose => {
                out.insert("type".into(), json!("stdio"));
                out.insert("cmd".into(), get("command", notes).unwrap_or_default());
                out.insert("args".into(), get("args", notes).unwrap_or(json!([])));
                if let Some(env) = get("env", notes) {
                    out.insert("envs".into(), env);
                }
            }
            _ => {
                if matches!(d, Dialect::ClaudeCode | Dialect::Vscode) {
                    out.insert("type".into(), json!("stdio"));
                }
                out.insert("command".into(), get("command", notes).unwrap_or_default());
                if let Some(a) = get("args", notes) {
                    out.insert("args".into(), a);
                }
                if let Some(env) = get("env", notes) {
                    out.insert("env".into(), env);
                }
            }
        }
        match (d, get("cwd", notes)) {
            (Dialect::Vscode | Dialect::Roo | Dialect::Continue, Some(c)) => {
                out.insert("cwd".into(), c);
            }
            _ => drop("cwd", notes),
        }
    }
    let disabled = e.get("disabled").and_then(Value::as_bool) == Some(true);
    match d {
        Dialect::Windsurf | Dialect::Cline | Dialect::Roo if disabled => {
            out.insert("disabled".into(), json!(true));
        }
        Dialect::Goose => {
            out.insert("enabled".into(), json!(!disabled));
            out.insert("name".into(), json!(name));
        }
        Dialect::Continue => {
            out.insert("name".into(), json!(name));
            if disabled {
                drop("disabled", notes);
            }
        }
        _ if disabled => {
            notes.push(format!(
                "{name}: {client} has no way to disable a server; it is written enabled"
            ));
        }
        _ => {}
    }
    match (d, e.get("autoApprove")) {
        (Dialect::Cline, Some(list)) => {
            out.insert("autoApprove".into(), list.clone());
        }
        (Dialect::Roo, Some(list)) => {
            out.insert("alwaysAllow".into(), list.clone());
        }
        (_, Some(_)) => drop("autoApprove", notes),
        _ => {}
    }
    match (d, e.get("excludeTools")) {
        (Dialect::Roo, Some(list)) => {
            out.insert("disabledTools".into(), list.clone());
        }
        (_, Some(_)) => drop("excludeTools", notes),
        _ => {}
    }
    drop("includeTools", notes);
    Some(Value::Object(out))
}

/// Our servers (on-disk shape) and declared inputs, as `d` writes them.
pub fn export(
    d: Dialect,
    servers: &[(String, Map<String, Value>)],
    inputs: &[Value],
) -> Result<Exported> {
    if d == Dialect::Registry {
        return Err(Error::Dialect(
            "a server.json describes one published server; it is not a client config to export to"
                .into(),
        ));
    }
    let mut notes = Vec::new();
    let mut entries: Vec<(String, Value)> = Vec::new();
    for (name, raw) in servers {
        let e = match normalise(raw) {
            Ok(e) => e,
            Err(why) => {
                notes.push(format!("{name}: {why}; left out"));
                continue;
            }
        };
        if let Some(v) = entry_for(d, name, &e, &mut notes) {
            entries.push((name.clone(), v));
        }
    }
    let map = |entries: Vec<(String, Value)>| Value::Object(entries.into_iter().collect());
    let doc = match d {
        Dialect::Vscode => {
            let mut doc = Map::new();
            if !inputs.is_empty() {
                doc.insert("inputs".into(), Value::Array(inputs.to_vec()));
            }
            doc.insert("servers".into(), map(entries));
            Value::Object(doc)
        }
        Dialect::Zed => json!({ "context_servers": map(entries) }),
        Dialect::Goose => json!({ "extensions": map(entries) }),
        Dialect::Continue => json!({
            "name": "MCP servers",
            "version": "0.0.1",
            "schema": "v1",
            "mcpServers": entries.into_iter().map(|(_, v)| v).collect::<Vec<_>>(),
        }),
        _ => json!({ "mcpServers": map(entries) }),
    };
    let text = if d.is_yaml() {
        serde_yaml_ng::to_string(&doc).map_err(|e| Error::Dialect(e.to_string()))?
    } else {
        let mut t =
            serde_json::to_string_pretty(&doc).map_err(|e| Error::Dialect(e.to_string()))?;
        t.push('\n');
        t
    };
    if !inputs.is_empty() && d != Dialect::Vscode {
        notes.push(format!(
            "{}: has no inputs; entries that use ${{input:...}} need the values filled in",
            d.id()
        ));
    }
    notes.dedup();
    Ok(Exported { text, notes })
}
