//! Writing our entries in another client's dialect. Whatever the target
//! cannot express is left out and named in a note; `${...}` references are
//! translated where the target spells them differently.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::{Dialect, normalise};
use crate::error::{Error, Result};

/// Servers written in another client's shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Exported {
    /// The file's text in that client's shape.
    pub text: String,
    /// What was dropped or changed, one sentence each.
    pub notes: Vec<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Refs {
    /// `${VAR}`, `${VAR:-default}` (Claude Code, ours).
    Shell,
    /// `${VAR}` (and `$VAR`), no defaults (Gemini CLI).
    Braced,
    /// `{env:VAR}`, no defaults (OpenCode).
    EnvBraces,
    /// `${env:VAR}`, `${userHome}`, `${workspaceFolder}`; `${input:id}` if `inputs`.
    Editor { inputs: bool },
    /// No expansion at all.
    None,
}

fn refs_of(d: Dialect) -> Refs {
    match d {
        Dialect::ClaudeCode => Refs::Shell,
        Dialect::Gemini => Refs::Braced,
        Dialect::OpenCode => Refs::EnvBraces,
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
            Refs::Shell | Refs::Braced if name == "userHome" => "${HOME}".to_string(),
            Refs::EnvBraces if name == "userHome" => "{env:HOME}".to_string(),
            Refs::Braced | Refs::EnvBraces
                if is_var && !is_special && name != "workspaceFolder" =>
            {
                if default.is_some() {
                    notes.push(format!(
                        "{at}: {client} has no defaults in references; the default of ${{{body}}} was dropped"
                    ));
                }
                if refs == Refs::Braced {
                    format!("${{{plain}}}")
                } else {
                    format!("{{env:{plain}}}")
                }
            }
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

/// `v` with its references as dialect `d` spells them (`at` names where,
/// in the notes on what cannot be).
pub(super) fn translated(d: Dialect, v: &Value, at: &str, notes: &mut Vec<String>) -> Value {
    translate_value(v, refs_of(d), d.id(), at, notes)
}

/// One entry in the target's spelling.
fn entry_for(
    d: Dialect,
    name: &str,
    e: &Map<String, Value>,
    notes: &mut Vec<String>,
) -> Option<Value> {
    let w = Writing {
        d,
        name,
        e,
        client: d.id(),
        refs: refs_of(d),
    };
    if e.get("url").is_some() && d == Dialect::ClaudeDesktop {
        notes.push(format!(
            "{name}: Claude Desktop reads only local servers from its file (add remote ones as connectors); left out"
        ));
        return None;
    }
    let mut out = Map::new();
    if e.get("url").is_some() {
        w.remote(&mut out, notes);
    } else {
        w.local(&mut out, notes);
    }
    w.disabled(&mut out, notes);
    w.lists(&mut out, notes);
    match (d, e.get("includeTools")) {
        (Dialect::Gemini, Some(list)) => {
            out.insert("includeTools".into(), list.clone());
        }
        _ => w.drop("includeTools", notes),
    }
    if d == Dialect::Gemini
        && let Some(ms) = super::gemini::timeout(e)
    {
        out.insert("timeout".into(), ms);
    }
    Some(Value::Object(out))
}

/// One entry being written in a dialect.
struct Writing<'a> {
    d: Dialect,
    name: &'a str,
    e: &'a Map<String, Value>,
    client: &'static str,
    refs: Refs,
}

impl Writing<'_> {
    /// The entry's `k`, its references in the dialect's form.
    fn get(&self, k: &str, notes: &mut Vec<String>) -> Option<Value> {
        self.e.get(k).map(|v| {
            translate_value(
                v,
                self.refs,
                self.client,
                &format!("{}.{k}", self.name),
                notes,
            )
        })
    }

    /// `what` has no place in the dialect: said, and left out.
    fn drop(&self, what: &str, notes: &mut Vec<String>) {
        if self.e.contains_key(what) {
            notes.push(format!(
                "{}: {} has no \"{what}\"; it was left out",
                self.name, self.client
            ));
        }
    }

    /// A remote server: its URL (and kind) under the dialect's keys, and
    /// its headers.
    fn remote(&self, out: &mut Map<String, Value>, notes: &mut Vec<String>) {
        let kind = self.e.get("type").and_then(Value::as_str).unwrap_or("http");
        let sse = kind == "sse";
        let url = self.get("url", notes).unwrap_or_default();
        let typed = |out: &mut Map<String, Value>, http: &str| {
            out.insert("type".into(), json!(if sse { "sse" } else { http }));
        };
        match self.d {
            Dialect::Windsurf => {
                out.insert("serverUrl".into(), url);
            }
            // Gemini CLI: `httpUrl` is Streamable HTTP, `url` legacy SSE.
            Dialect::Gemini => {
                out.insert((if sse { "url" } else { "httpUrl" }).into(), url);
            }
            Dialect::Goose => {
                typed(out, "streamable_http");
                out.insert("uri".into(), url);
            }
            Dialect::Cline => {
                typed(out, "streamableHttp");
                out.insert("url".into(), url);
            }
            Dialect::Roo | Dialect::Continue => {
                typed(out, "streamable-http");
                out.insert("url".into(), url);
            }
            Dialect::ClaudeCode | Dialect::Vscode | Dialect::Cursor => {
                out.insert("type".into(), json!(kind));
                out.insert("url".into(), url);
            }
            _ => {
                if sse {
                    notes.push(format!(
                        "{}: {} cannot mark a server as legacy SSE; it is written as a plain url",
                        self.name, self.client
                    ));
                }
                out.insert("url".into(), url);
            }
        }
        if let Some(h) = self.get("headers", notes) {
            if self.d == Dialect::Continue {
                self.drop("headers", notes);
            } else {
                out.insert("headers".into(), h);
            }
        }
    }

    /// A local server: its command, arguments, environment and folder
    /// under the dialect's keys.
    fn local(&self, out: &mut Map<String, Value>, notes: &mut Vec<String>) {
        match self.d {
            Dialect::Goose => {
                out.insert("type".into(), json!("stdio"));
                out.insert("cmd".into(), self.get("command", notes).unwrap_or_default());
                out.insert("args".into(), self.get("args", notes).unwrap_or(json!([])));
                if let Some(env) = self.get("env", notes) {
                    out.insert("envs".into(), env);
                }
            }
            _ => {
                if matches!(self.d, Dialect::ClaudeCode | Dialect::Vscode) {
                    out.insert("type".into(), json!("stdio"));
                }
                out.insert(
                    "command".into(),
                    self.get("command", notes).unwrap_or_default(),
                );
                if let Some(a) = self.get("args", notes) {
                    out.insert("args".into(), a);
                }
                if let Some(env) = self.get("env", notes) {
                    out.insert("env".into(), env);
                }
            }
        }
        match (self.d, self.get("cwd", notes)) {
            (Dialect::Vscode | Dialect::Roo | Dialect::Continue | Dialect::Gemini, Some(c)) => {
                out.insert("cwd".into(), c);
            }
            _ => self.drop("cwd", notes),
        }
    }

    /// Turned off, as the dialect says it (Goose and Continue also name
    /// the entry inside it).
    fn disabled(&self, out: &mut Map<String, Value>, notes: &mut Vec<String>) {
        let disabled = self.e.get("disabled").and_then(Value::as_bool) == Some(true);
        match self.d {
            Dialect::Windsurf | Dialect::Cline | Dialect::Roo if disabled => {
                out.insert("disabled".into(), json!(true));
            }
            Dialect::Goose => {
                out.insert("enabled".into(), json!(!disabled));
                out.insert("name".into(), json!(self.name));
            }
            Dialect::Continue => {
                out.insert("name".into(), json!(self.name));
                if disabled {
                    self.drop("disabled", notes);
                }
            }
            _ if disabled => {
                notes.push(format!(
                    "{}: {} has no way to disable a server; it is written enabled",
                    self.name, self.client
                ));
            }
            _ => {}
        }
    }

    /// The tools approved without asking and those turned off, where the
    /// dialect has them.
    fn lists(&self, out: &mut Map<String, Value>, notes: &mut Vec<String>) {
        match (self.d, self.e.get("autoApprove")) {
            (Dialect::Cline, Some(list)) => {
                out.insert("autoApprove".into(), list.clone());
            }
            (Dialect::Roo, Some(list)) => {
                out.insert("alwaysAllow".into(), list.clone());
            }
            (_, Some(_)) => self.drop("autoApprove", notes),
            _ => {}
        }
        match (self.d, self.e.get("excludeTools")) {
            (Dialect::Roo, Some(list)) => {
                out.insert("disabledTools".into(), list.clone());
            }
            (Dialect::Gemini, Some(list)) => {
                out.insert("excludeTools".into(), list.clone());
            }
            (_, Some(_)) => self.drop("excludeTools", notes),
            _ => {}
        }
    }
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
        if d == Dialect::Codex {
            entries.push((name.clone(), super::codex::table(name, &e, &mut notes)));
        } else if d == Dialect::OpenCode {
            entries.push((name.clone(), super::opencode::written(name, &e, &mut notes)));
        } else if let Some(v) = entry_for(d, name, &e, &mut notes) {
            entries.push((name.clone(), v));
        }
    }
    if d == Dialect::Codex {
        if !inputs.is_empty() {
            notes.push(
                "codex: has no inputs; entries that use ${input:...} need the values filled in"
                    .into(),
            );
        }
        notes.dedup();
        let text = super::codex::text(entries).map_err(Error::Dialect)?;
        return Ok(Exported { text, notes });
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
        Dialect::OpenCode => {
            json!({ "$schema": "https://opencode.ai/config.json", "mcp": map(entries) })
        }
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
