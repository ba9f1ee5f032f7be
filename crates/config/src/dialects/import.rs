//! Another client's config read into entries of ours: where each client
//! lists its servers, and each entry's keys in our names (its launch, then
//! the rest; unknown keys kept).

use serde_json::{Map, Value, json};

use super::{Dialect, Imported, codex, gemini, opencode, registry};
use crate::error::{Error, Result};

/// One of a transport's many spellings, as we write it.
fn transport_name(raw: &str) -> Option<&'static str> {
    match raw.to_ascii_lowercase().replace(['-', '_'], "").as_str() {
        "stdio" => Some("stdio"),
        "http" | "streamablehttp" => Some("http"),
        "sse" => Some("sse"),
        _ => None,
    }
}

fn strings(v: &Value) -> Value {
    match v {
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|i| match i {
                    Value::String(_) => i.clone(),
                    other => Value::String(other.to_string().trim_matches('"').to_string()),
                })
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, i)| {
                    let s = match i {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    (k.clone(), Value::String(s))
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// A raw entry of any dialect in our shape. Unknown keys are kept.
pub(crate) fn normalise(
    raw: &Map<String, Value>,
) -> std::result::Result<Map<String, Value>, String> {
    let mut out = launch(raw)?;
    the_rest(raw, &mut out);
    Ok(out)
}

/// How the server is reached: its command (Zed's older object form too),
/// or its URL with the transport the dialect names.
fn launch(raw: &Map<String, Value>) -> std::result::Result<Map<String, Value>, String> {
    let mut out = Map::new();
    let kind = raw
        .get("type")
        .or_else(|| raw.get("transport"))
        .and_then(Value::as_str);
    let url = ["url", "serverUrl", "uri", "httpUrl"]
        .iter()
        .find_map(|k| raw.get(*k).and_then(Value::as_str));
    // Gemini CLI's httpUrl says Streamable HTTP; a bare url says nothing.
    let http_url = raw.get("httpUrl").is_some_and(Value::is_string);
    let command = raw.get("command").or_else(|| raw.get("cmd"));
    match (kind.map(|k| transport_name(k).ok_or(k)), command, url) {
        (Some(Err(other)), _, _) => return Err(format!("unknown transport \"{other}\"")),
        (Some(Ok("stdio")) | None, Some(Value::String(c)), _) => {
            out.insert("command".into(), json!(c));
        }
        (_, Some(Value::Object(zed)), _) => {
            // Zed's older form: "command": { "path", "args", "env" }.
            out.insert(
                "command".into(),
                zed.get("path").cloned().unwrap_or_default(),
            );
            for key in ["args", "env"] {
                if let Some(v) = zed.get(key) {
                    out.insert(key.into(), strings(v));
                }
            }
        }
        (Some(Ok(t @ ("http" | "sse"))), _, Some(u)) => {
            out.insert("type".into(), json!(t));
            out.insert("url".into(), json!(u));
        }
        (None, None, Some(u)) => {
            // A bare URL means SSE in Cline and others, Streamable HTTP in
            // most newer clients: left without a type, both are tried.
            if http_url {
                out.insert("type".into(), json!("http"));
            }
            out.insert("url".into(), json!(u));
        }
        _ => return Err("has neither a command nor a url".into()),
    }
    Ok(out)
}

/// Everything else, in our names: arguments and folder, the environment
/// and headers, whether it is off, what is approved or left out, the call
/// timeout; unknown keys are kept as they are.
fn the_rest(raw: &Map<String, Value>, out: &mut Map<String, Value>) {
    for key in ["args", "cwd", "description", "includeTools", "excludeTools"] {
        if let Some(v) = raw.get(key).filter(|v| !v.is_null()) {
            out.entry(key).or_insert_with(|| strings(v));
        }
    }
    for (from, to) in [("envs", "env"), ("env", "env"), ("headers", "headers")] {
        if let Some(v) = raw.get(from).filter(|v| v.is_object()) {
            out.insert(to.into(), strings(v));
        }
    }
    let disabled = match (raw.get("disabled"), raw.get("enabled")) {
        (Some(Value::Bool(d)), _) => *d,
        (None, Some(Value::Bool(e))) => !*e,
        _ => false,
    };
    if disabled {
        out.insert("disabled".into(), json!(true));
    }
    if let Some(list) = ["autoApprove", "alwaysAllow"]
        .iter()
        .find_map(|k| raw.get(*k))
    {
        out.insert("autoApprove".into(), strings(list));
    }
    if let Some(list) = raw.get("disabledTools") {
        out.insert("excludeTools".into(), strings(list));
    }
    // Cline's and Goose's "timeout" is the seconds a call may take.
    if let Some(t) = raw.get("timeout").filter(|t| t.is_number()) {
        out.insert("callTimeout".into(), t.clone());
    }
    const HANDLED: [&str; 21] = [
        "type",
        "transport",
        "url",
        "serverUrl",
        "uri",
        "httpUrl",
        "command",
        "cmd",
        "args",
        "cwd",
        "description",
        "includeTools",
        "excludeTools",
        "envs",
        "env",
        "headers",
        "disabled",
        "enabled",
        "autoApprove",
        "alwaysAllow",
        "timeout",
    ];
    for (k, v) in raw {
        if !HANDLED.contains(&k.as_str()) && k != "disabledTools" && k != "name" {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
}

fn parse_text(dialect: Dialect, text: &str) -> Result<Value> {
    let bad = |e: String| Error::Dialect(format!("not a {} config: {e}", dialect.id()));
    if dialect.is_yaml() {
        serde_yaml_ng::from_str::<Value>(text).map_err(|e| bad(e.to_string()))
    } else if dialect.is_toml() {
        toml::from_str::<Value>(text)
            .map_err(|e| bad(super::toml_file::said(text, e.message(), e.span())))
    } else {
        crate::parse_jsonc(std::path::Path::new(dialect.id()), text).map_err(|e| bad(e.to_string()))
    }
}

/// Read another client's config text.
pub fn import(dialect: Dialect, text: &str) -> Result<Imported> {
    let doc = parse_text(dialect, text)?;
    if dialect == Dialect::Registry {
        return registry::import(&doc);
    }
    let mut out = Imported::default();
    for (name, raw) in listed(dialect, &doc, &mut out) {
        let Some(map) = raw.as_object() else {
            out.notes.push(format!("{name}: not an object, skipped"));
            continue;
        };
        match normalise(map) {
            Ok(mut entry) => {
                if dialect == Dialect::Continue {
                    continue_secrets(&name, &mut entry, &mut out);
                }
                if entry.contains_key("envFile") {
                    out.notes.push(format!(
                        "{name}: \"envFile\" is kept for the other client but not read here; copy what you need into \"env\""
                    ));
                }
                out.servers.push((name, entry))
            }
            Err(why) => out.notes.push(format!("{name}: {why}, skipped")),
        }
    }
    Ok(out)
}

/// The object at `key` of `v`, as (name, value) pairs.
fn object_at(v: &Value, key: &str) -> Vec<(String, Value)> {
    v.get(key)
        .and_then(Value::as_object)
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
        .unwrap_or_default()
}

/// The servers a client's document lists, by name, where that client keeps
/// them (VS Code's inputs and what is skipped go to `out`).
fn listed(dialect: Dialect, doc: &Value, out: &mut Imported) -> Vec<(String, Value)> {
    match dialect {
        Dialect::Vscode => {
            let mut found = object_at(doc, "servers");
            if found.is_empty() {
                found = doc
                    .get("mcp")
                    .map(|m| object_at(m, "servers"))
                    .unwrap_or_default();
            }
            out.inputs = doc
                .get("inputs")
                .or_else(|| doc.get("mcp").and_then(|m| m.get("inputs")))
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            found
        }
        Dialect::Zed => {
            let mut found = Vec::new();
            for (name, mut raw) in object_at(doc, "context_servers") {
                match raw.get("source").and_then(Value::as_str) {
                    Some("extension") => out.notes.push(format!(
                        "{name}: a Zed extension's server (its command is the extension's, not in the file), skipped"
                    )),
                    _ => {
                        // Zed's own: "custom" says it is a command or URL.
                        if let Some(m) = raw.as_object_mut() {
                            m.remove("source");
                        }
                        found.push((name, raw));
                    }
                }
            }
            found
        }
        Dialect::Codex if doc.get("mcp_servers").is_some_and(|s| !s.is_object()) => {
            out.notes
                .push("its mcp_servers is not a table of servers ([mcp_servers.NAME]): nothing read".into());
            Vec::new()
        }
        Dialect::Codex => object_at(doc, "mcp_servers")
            .into_iter()
            .map(|(name, raw)| {
                let entry = codex::entry(&name, &raw, &mut out.notes);
                (name, entry)
            })
            .collect(),
        Dialect::Goose => {
            let mut found = Vec::new();
            for (name, ext) in object_at(doc, "extensions") {
                if ext.get("type").and_then(Value::as_str) == Some("builtin") {
                    out.notes
                        .push(format!("{name}: a Goose built-in extension, skipped"));
                } else {
                    found.push((name, ext));
                }
            }
            found
        }
        Dialect::Continue => continue_servers(doc),
        Dialect::OpenCode => opencode::listed(doc)
            .into_iter()
            .map(|(name, raw)| (name, opencode::entry(&raw)))
            .collect(),
        Dialect::Gemini => object_at(doc, "mcpServers")
            .into_iter()
            .map(|(name, raw)| {
                if raw.get("trust") == Some(&Value::Bool(true)) {
                    out.notes.push(format!(
                        "{name}: \"trust\": true comes with it: once you trust the entry, its tools run without asking (take \"trust\" out to be asked)"
                    ));
                }
                (name, gemini::entry(&raw))
            })
            .collect(),
        Dialect::ClaudeCode => claude_code_servers(doc, out),
        _ => object_at(doc, "mcpServers"),
    }
}

/// Continue lists its servers as an array, each with its `name`; an HTTP
/// server's headers sit under `requestOptions`.
fn continue_servers(doc: &Value) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    for (i, item) in doc
        .get("mcpServers")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("server-{}", i + 1));
        let mut item = item;
        if let Some(obj) = item.as_object_mut()
            && !obj.contains_key("headers")
            && let Some(Value::Object(options)) = obj.get_mut("requestOptions")
            && let Some(h) = options.remove("headers")
        {
            if options.is_empty() {
                obj.remove("requestOptions");
            }
            obj.insert("headers".into(), h);
        }
        found.push((name, item));
    }
    found
}

/// Claude Code: the user's servers, and in `~/.claude.json` the
/// local-scope ones under each project (a name already taken is skipped).
fn claude_code_servers(doc: &Value, out: &mut Imported) -> Vec<(String, Value)> {
    let mut found = object_at(doc, "mcpServers");
    if let Some(projects) = doc.get("projects").and_then(Value::as_object) {
        for (project, settings) in projects {
            for (name, entry) in object_at(settings, "mcpServers") {
                if found.iter().any(|(n, _)| *n == name) {
                    out.notes.push(format!(
                        "{name} (local to {project}): a server of that name was already imported, skipped"
                    ));
                } else {
                    found.push((name, entry));
                }
            }
        }
    }
    found
}

/// Continue's `${{ secrets.NAME }}` (kept by Continue's hub, not in the
/// file) becomes `${input:NAME}`, declared as a secret input: asked once
/// and kept in the keychain.
fn continue_secrets(server: &str, entry: &mut Map<String, Value>, out: &mut Imported) {
    fn walk(v: &mut Value, found: &mut Vec<String>) {
        match v {
            Value::String(s) => {
                let mut text = String::with_capacity(s.len());
                let mut rest = s.as_str();
                while let Some(at) = rest.find("${{") {
                    let Some(end) = rest[at..].find("}}") else {
                        break;
                    };
                    let inner = rest[at + 3..at + end].trim();
                    text.push_str(&rest[..at]);
                    match inner.strip_prefix("secrets.") {
                        Some(id)
                            if !id.is_empty()
                                && id
                                    .chars()
                                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
                        {
                            text.push_str(&format!("${{input:{id}}}"));
                            if !found.iter().any(|f| f == id) {
                                found.push(id.to_string());
                            }
                        }
                        _ => text.push_str(&rest[at..at + end + 2]),
                    }
                    rest = &rest[at + end + 2..];
                }
                text.push_str(rest);
                *s = text;
            }
            Value::Array(items) => items.iter_mut().for_each(|i| walk(i, found)),
            Value::Object(m) => m.values_mut().for_each(|i| walk(i, found)),
            _ => {}
        }
    }
    let mut found = Vec::new();
    for v in entry.values_mut() {
        walk(v, &mut found);
    }
    for id in found {
        if !out
            .inputs
            .iter()
            .any(|i| i.get("id").and_then(Value::as_str) == Some(&id))
        {
            out.inputs.push(json!({
                "id": id,
                "type": "promptString",
                "description": format!("Continue secret {id}"),
                "password": true
            }));
        }
        out.notes.push(format!(
            "{server}: Continue's secret {id} is not in the file; it is asked for once (${{input:{id}}}) and kept in the keychain"
        ));
    }
}
