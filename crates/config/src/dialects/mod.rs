//! Other clients' MCP config files: import into our entries, export from
//! them, and find the files that exist on this machine.
//!
//! Everything passes through our on-disk entry shape (`type`, `command`,
//! `args`, `env`, `cwd`, `url`, `headers`, `disabled`, `autoApprove`,
//! `includeTools`, `excludeTools`); readers normalise each dialect's
//! spellings into it and writers spell it back, saying what they drop.

mod export;
pub mod hosting;
mod merge;
pub mod registry;
pub mod tapping;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};

pub use export::export;
pub use merge::{Merged, merge_into};

/// A client whose config we read and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
    /// `.mcp.json` in a project, and `~/.claude.json` (user and local scopes).
    ClaudeCode,
    /// Cursor's `mcp.json` (`~/.cursor`, `.cursor/`).
    Cursor,
    /// `servers` + `inputs` (`.vscode/mcp.json`, the user `mcp.json`).
    Vscode,
    /// Windsurf's `mcp_config.json`.
    Windsurf,
    /// Zed's `settings.json` (`context_servers`).
    Zed,
    /// Cline's `cline_mcp_settings.json`.
    Cline,
    /// Roo Code's `mcp_settings.json` and `.roo/mcp.json`.
    Roo,
    /// `~/.config/goose/config.yaml` extensions.
    Goose,
    /// Continue's YAML (`mcpServers` as a list).
    Continue,
    /// LM Studio's `mcp.json`.
    LmStudio,
    /// The MCP Registry's `server.json` (import only).
    Registry,
}

/// Every dialect, in the order they are offered.
pub const ALL: [Dialect; 12] = [
    Dialect::ClaudeDesktop,
    Dialect::ClaudeCode,
    Dialect::Cursor,
    Dialect::Vscode,
    Dialect::Windsurf,
    Dialect::Zed,
    Dialect::Cline,
    Dialect::Roo,
    Dialect::Goose,
    Dialect::Continue,
    Dialect::LmStudio,
    Dialect::Registry,
];

impl Dialect {
    /// The dialect's id (`claude-desktop`, `vscode`, ...), as the CLI and the window name it.
    pub fn id(self) -> &'static str {
        match self {
            Dialect::ClaudeDesktop => "claude-desktop",
            Dialect::ClaudeCode => "claude-code",
            Dialect::Cursor => "cursor",
            Dialect::Vscode => "vscode",
            Dialect::Windsurf => "windsurf",
            Dialect::Zed => "zed",
            Dialect::Cline => "cline",
            Dialect::Roo => "roo",
            Dialect::Goose => "goose",
            Dialect::Continue => "continue",
            Dialect::LmStudio => "lmstudio",
            Dialect::Registry => "registry",
        }
    }

    /// The dialect of an id (`None`: no such dialect).
    pub fn from_id(id: &str) -> Option<Dialect> {
        ALL.into_iter().find(|d| d.id() == id)
    }

    fn is_yaml(self) -> bool {
        matches!(self, Dialect::Goose | Dialect::Continue)
    }
}

/// Entries by name, in our on-disk shape, in file order.
pub type Entries = Vec<(String, Map<String, Value>)>;

/// What an import produced.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Imported {
    /// Entries in our on-disk shape, in the source's order.
    pub servers: Entries,
    /// VS Code style input declarations the entries refer to.
    pub inputs: Vec<Value>,
    /// What was skipped or changed, one sentence each.
    pub notes: Vec<String>,
    /// The inputs whose value is a file path (`format: filepath`): the
    /// window offers a file picker for them.
    pub path_inputs: Vec<String>,
}

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
    } else {
        super::parse_jsonc(Path::new(dialect.id()), text).map_err(|e| bad(e.to_string()))
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
        Dialect::Zed => object_at(doc, "context_servers"),
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

/// A config file of another client found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found {
    /// Whose file it is.
    pub dialect: Dialect,
    /// Where it is.
    pub path: String,
    /// The servers an import would bring.
    pub servers: Vec<String>,
    /// What each of them would run (its command line) or reach (its URL),
    /// in the same order: read before importing (imports start untrusted).
    pub targets: Vec<String>,
    /// What an import would skip or change.
    pub notes: Vec<String>,
    /// Why the file cannot be imported (unreadable, not that dialect).
    pub error: Option<String>,
}

/// The documented locations of each client's config, for `home` (Linux
/// paths; macOS and Windows equivalents where the client documents them),
/// and `project` files when a project folder is given.
pub fn known_paths(home: &Path, project: Option<&Path>) -> Vec<(Dialect, PathBuf)> {
    let cfg = home.join(".config");
    let vscode_storage = |ext: &str, file: &str| {
        cfg.join("Code/User/globalStorage")
            .join(ext)
            .join("settings")
            .join(file)
    };
    let mut out = vec![
        (
            Dialect::ClaudeDesktop,
            cfg.join("Claude/claude_desktop_config.json"),
        ),
        (
            Dialect::ClaudeDesktop,
            home.join("Library/Application Support/Claude/claude_desktop_config.json"),
        ),
        (Dialect::ClaudeCode, home.join(".claude.json")),
        (Dialect::Cursor, home.join(".cursor/mcp.json")),
        (Dialect::Vscode, cfg.join("Code/User/mcp.json")),
        (
            Dialect::Windsurf,
            home.join(".codeium/windsurf/mcp_config.json"),
        ),
        (Dialect::Zed, cfg.join("zed/settings.json")),
        (
            Dialect::Cline,
            vscode_storage("saoudrizwan.claude-dev", "cline_mcp_settings.json"),
        ),
        (
            Dialect::Roo,
            vscode_storage("rooveterinaryinc.roo-cline", "mcp_settings.json"),
        ),
        (Dialect::Goose, cfg.join("goose/config.yaml")),
        (Dialect::Continue, home.join(".continue/config.yaml")),
        (Dialect::LmStudio, home.join(".lmstudio/mcp.json")),
    ];
    if let Some(p) = project {
        out.extend([
            (Dialect::ClaudeCode, p.join(".mcp.json")),
            (Dialect::Cursor, p.join(".cursor/mcp.json")),
            (Dialect::Vscode, p.join(".vscode/mcp.json")),
            (Dialect::Roo, p.join(".roo/mcp.json")),
        ]);
    }
    out
}

/// The known files that exist here, each read as its dialect.
pub fn discover(home: &Path, project: Option<&Path>) -> Vec<Found> {
    known_paths(home, project)
        .into_iter()
        .filter(|(_, p)| p.is_file())
        .map(|(dialect, p)| {
            let read = std::fs::read_to_string(&p)
                .map_err(|e| format!("cannot read it: {e}"))
                .and_then(|text| import(dialect, &text).map_err(|e| e.to_string()));
            let (servers, targets, notes, error) = match read {
                Ok(i) => {
                    let targets = i.servers.iter().map(|(n, m)| target_of(n, m)).collect();
                    (
                        i.servers.into_iter().map(|(n, _)| n).collect(),
                        targets,
                        i.notes,
                        None,
                    )
                }
                Err(e) => (Vec::new(), Vec::new(), Vec::new(), Some(e)),
            };
            Found {
                dialect,
                path: p.display().to_string(),
                servers,
                targets,
                notes,
                error,
            }
        })
        .collect()
}

/// An imported entry's command line or URL, as the trust card shows it.
pub fn target_of(name: &str, entry: &Map<String, Value>) -> String {
    super::parse_entry(name, &Value::Object(entry.clone()))
        .map(|e| e.transport.target())
        .unwrap_or_else(|p| format!("(not usable: {})", p.message))
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

/// Guess a file's dialect from its name and content.
pub fn guess(path: &Path, text: &str) -> Dialect {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let full = path.to_string_lossy();
    match name {
        "claude_desktop_config.json" => return Dialect::ClaudeDesktop,
        ".claude.json" | ".mcp.json" => return Dialect::ClaudeCode,
        "mcp_config.json" => return Dialect::Windsurf,
        "cline_mcp_settings.json" => return Dialect::Cline,
        "server.json" => return Dialect::Registry,
        _ => {}
    }
    // YAML whatever the file is called (config.yaml): Goose or Continue.
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    if !first.starts_with(['{', '[', '/']) {
        if text.contains("extensions:") {
            return Dialect::Goose;
        }
        if text.contains("mcpServers:") {
            return Dialect::Continue;
        }
    }
    if full.contains(".roo/") || name == "mcp_settings.json" {
        return Dialect::Roo;
    }
    if full.contains("goose") {
        return Dialect::Goose;
    }
    if full.contains(".continue") {
        return Dialect::Continue;
    }
    if full.contains(".vscode/") || full.contains("Code/User") || text.contains("\"servers\"") {
        return Dialect::Vscode;
    }
    if text.contains("\"context_servers\"") {
        return Dialect::Zed;
    }
    if text.contains("\"packages\"") && text.contains("\"registryType\"") {
        return Dialect::Registry;
    }
    Dialect::Cursor
}
