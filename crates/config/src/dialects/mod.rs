//! Other clients' MCP config files: import into our entries, export from
//! them, and find the files that exist on this machine.
//!
//! Everything passes through our on-disk entry shape (`type`, `command`,
//! `args`, `env`, `cwd`, `url`, `headers`, `disabled`, `autoApprove`,
//! `includeTools`, `excludeTools`); readers normalise each dialect's
//! spellings into it and writers spell it back, saying what they drop.

mod codex;
mod export;
mod gemini;
pub mod hosting;
mod import;
mod merge;
mod opencode;
pub mod registry;
pub mod tapping;
mod toml_file;

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

pub use import::import;
pub(crate) use import::normalise;

pub use export::{Exported, export};
pub use merge::{Merged, goes_in, merge_into, names_in};

/// A client whose config we read and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dialect {
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
    /// `.mcp.json` in a project, and `~/.claude.json` (user and local scopes).
    ClaudeCode,
    /// Codex's `config.toml` (`~/.codex`, a project's `.codex/`): a
    /// `[mcp_servers.NAME]` table each.
    Codex,
    /// Cursor's `mcp.json` (`~/.cursor`, `.cursor/`).
    Cursor,
    /// Gemini CLI's `settings.json` (`~/.gemini`, a project's `.gemini/`).
    Gemini,
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
    /// OpenCode's `opencode.json` (`mcp`, or `mcp.servers`).
    OpenCode,
    /// The MCP Registry's `server.json` (import only).
    Registry,
}

/// Every dialect, in the order they are offered.
pub const ALL: [Dialect; 15] = [
    Dialect::ClaudeDesktop,
    Dialect::ClaudeCode,
    Dialect::Codex,
    Dialect::Cursor,
    Dialect::Gemini,
    Dialect::Vscode,
    Dialect::Windsurf,
    Dialect::Zed,
    Dialect::Cline,
    Dialect::Roo,
    Dialect::Goose,
    Dialect::Continue,
    Dialect::LmStudio,
    Dialect::OpenCode,
    Dialect::Registry,
];

impl Dialect {
    /// The dialect's id (`claude-desktop`, `vscode`, ...), as the CLI and the window name it.
    pub fn id(self) -> &'static str {
        match self {
            Dialect::ClaudeDesktop => "claude-desktop",
            Dialect::ClaudeCode => "claude-code",
            Dialect::Codex => "codex",
            Dialect::Cursor => "cursor",
            Dialect::Gemini => "gemini",
            Dialect::Vscode => "vscode",
            Dialect::Windsurf => "windsurf",
            Dialect::Zed => "zed",
            Dialect::Cline => "cline",
            Dialect::Roo => "roo",
            Dialect::Goose => "goose",
            Dialect::Continue => "continue",
            Dialect::LmStudio => "lmstudio",
            Dialect::OpenCode => "opencode",
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

    fn is_toml(self) -> bool {
        self == Dialect::Codex
    }
}

/// A number of seconds as a person writes it: `20`, `2.5` (a client's
/// milliseconds divided make `20.0` otherwise).
pub(super) fn seconds(s: f64) -> Value {
    if s.fract() == 0.0 && s.abs() < 1e15 {
        serde_json::json!(s as i64)
    } else {
        serde_json::json!(s)
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
        (Dialect::Codex, home.join(".codex/config.toml")),
        (Dialect::Cursor, home.join(".cursor/mcp.json")),
        (Dialect::Gemini, home.join(".gemini/settings.json")),
        (Dialect::Vscode, cfg.join("Code/User/mcp.json")),
        (Dialect::Vscode, cfg.join("Code - Insiders/User/mcp.json")),
        (Dialect::Vscode, cfg.join("VSCodium/User/mcp.json")),
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
        (Dialect::OpenCode, cfg.join("opencode/opencode.json")),
        (Dialect::OpenCode, cfg.join("opencode/opencode.jsonc")),
    ];
    // The person's own files may be links into a dotfiles folder (stow,
    // chezmoi): each is the file it links to, named as such, so it is read,
    // tapped and added into where it is kept. A project's never is: it is
    // read only as itself (`discover` says why not).
    for (_, path) in &mut out {
        if let Some(to) = linked_own_file(path) {
            *path = to;
        }
    }
    if let Some(p) = project {
        out.extend([
            (Dialect::ClaudeCode, p.join(".mcp.json")),
            (Dialect::Codex, p.join(".codex/config.toml")),
            (Dialect::Cursor, p.join(".cursor/mcp.json")),
            (Dialect::Gemini, p.join(".gemini/settings.json")),
            (Dialect::OpenCode, p.join("opencode.json")),
            (Dialect::OpenCode, p.join("opencode.jsonc")),
            (Dialect::OpenCode, p.join(".opencode/opencode.json")),
            (Dialect::Vscode, p.join(".vscode/mcp.json")),
            (Dialect::Roo, p.join(".roo/mcp.json")),
        ]);
    }
    out
}

/// The regular file a link of the person's own points to, if `path` is one.
fn linked_own_file(path: &Path) -> Option<PathBuf> {
    let link = std::fs::symlink_metadata(path).ok()?;
    if !link.file_type().is_symlink() {
        return None;
    }
    let to = std::fs::canonicalize(path).ok()?;
    to.is_file().then_some(to)
}

/// The known files that exist here, each read as its dialect (a project's
/// that is a link is said, not read).
pub fn discover(home: &Path, project: Option<&Path>) -> Vec<Found> {
    known_paths(home, project)
        .into_iter()
        .filter(|(_, p)| p.is_file())
        .map(|(dialect, p)| {
            let read = tapping::read(&p)
                .map_err(|e| match e {
                    crate::Error::ConfigUnreadable { source, .. } => {
                        format!("cannot read it: {source}")
                    }
                    e => e.to_string(),
                })
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
    // TOML: Codex's (`config.toml`, `[mcp_servers.NAME]`).
    if name.ends_with(".toml")
        || text
            .lines()
            .any(|l| l.trim_start().starts_with("[mcp_servers"))
    {
        return Dialect::Codex;
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
    if name.starts_with("opencode.json") || full.contains("/opencode/") {
        return Dialect::OpenCode;
    }
    if full.contains(".gemini/") {
        return Dialect::Gemini;
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
    if full.contains(".vscode/")
        || full.contains("Code/User")
        || full.contains("Code - Insiders/User")
        || full.contains("VSCodium/User")
        || text.contains("\"servers\"")
    {
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
