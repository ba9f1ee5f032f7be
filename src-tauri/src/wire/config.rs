use serde::Serialize;
use serde_json::Map;
use serde_json::Value;
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, specta::Type)]
/// What a merge of imported servers into a file did.
pub struct Merged {
    /// The servers added.
    pub added: Vec<String>,
    /// Names we already had, kept because `replace` was off.
    pub kept: Vec<String>,
    /// What was changed on the way in, one sentence each (a credential
    /// kept in the keychain instead of the file).
    pub notes: Vec<String>,
}
/// A client whose config we read and write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
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
    // Its id, as `mcpwb` and the import take it back (not `lm-studio`).
    #[serde(rename = "lmstudio")]
    LmStudio,
    /// OpenCode's `opencode.json` (`mcp`, or `mcp.servers`).
    #[serde(rename = "opencode")]
    OpenCode,
    /// The MCP Registry's `server.json` (import only).
    Registry,
}
/// A config file of another client found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
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
/// One entry of a host's file, as the window's list shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct HostEntry {
    /// The entry's name.
    pub name: String,
    /// What it runs (its command line) or reaches (its URL).
    pub target: String,
    /// It runs through `mcpwb tap` now.
    pub tapped: bool,
    /// The workbench tapped it (Untap can put it back).
    pub untappable: bool,
    /// A remote server: tapped with `mcpwb tap --to URL`, not here.
    pub remote: bool,
}
/// One change to the servers of a file (also what the window sends).
#[derive(Debug, Clone, PartialEq, serde::Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EditOp {
    /// Create the server or update it: each key of `fields` gets that value
    /// (`null` removes the key); keys not named keep their text. Objects and
    /// arrays are compared piecewise, so an unchanged `env` keeps its comments.
    Upsert {
        /// The entry's name.
        name: String,
        /// The keys to set (`null` removes one).
        fields: Map<String, Value>,
    },
    /// Remove the entry.
    Remove {
        /// The entry's name.
        name: String,
    },
    /// Rename the entry, keeping its text.
    Rename {
        /// The name now.
        from: String,
        /// The new name.
        to: String,
    },
    /// Sets `disabled` (or flips `enabled`, if the entry uses that key).
    SetDisabled {
        /// The entry's name.
        name: String,
        /// Disabled or not.
        disabled: bool,
    },
    /// Declare an input (`{"type": "promptString", "id", ...}`) in the
    /// top-level `inputs` list, unless one with that id is there.
    AddInput {
        /// The declaration, as written into the file.
        decl: Value,
    },
}
/// The transport's kind, for display and IPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum TransportKind {
    /// A local process over stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    StreamableHttp,
    /// The legacy HTTP+SSE transport.
    Sse,
    /// A URL without a `type`: Streamable HTTP, falling back to SSE.
    RemoteAuto,
}
/// Which protocol era a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ProtocolPin {
    /// `server/discover` first, `initialize` for servers that do not know it.
    #[default]
    Auto,
    /// `initialize` only (2025-11-25).
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// `server/discover` only (2026-07-28).
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}
/// Where an entry is defined: the user's file or the project's `.mcp.json`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize, specta::Type,
)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    #[default]
    /// The person's own file.
    User,
    /// The project's `.mcp.json`.
    Project,
}
/// A semantic problem in one part of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Problem {
    /// JSON pointer to the offending key, e.g. `/mcpServers/demo/command`.
    pub pointer: String,
    /// What is wrong, in a sentence.
    pub message: String,
    /// The file it is in.
    pub scope: Scope,
}
/// What the UI and `mcpwb servers` show of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct ServerSummary {
    /// The entry's name.
    pub name: String,
    /// How it is reached.
    pub transport: TransportKind,
    /// The command line or URL (never env or header values).
    pub target: String,
    /// Listed but not started.
    pub disabled: bool,
    /// What the person wrote about it.
    pub description: Option<String>,
    /// Which file the entry is in.
    pub scope: Scope,
    /// The protocol era the entry pins, if it pins one.
    pub protocol: ProtocolPin,
}
/// What the person sees before trusting an entry: everything it will run,
/// send or let run unasked, with secret values masked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct TrustRequest {
    /// The entry's name.
    pub name: String,
    /// The file it is in: the person's or the project's.
    pub scope: Scope,
    /// The file the entry is in.
    pub file: String,
    /// The full command line, shell-quoted (stdio), or the URL (remote).
    pub target: String,
    /// The folder it runs in.
    pub cwd: Option<String>,
    /// Environment variables as the file has them (references unexpanded).
    pub env: Vec<Shown>,
    /// Headers as the file has them.
    pub headers: Vec<Shown>,
    /// Every `${...}` the entry uses, in any field (the `oauth` block's
    /// too): what it will read from the environment, the keychain or the
    /// person.
    pub references: Vec<String>,
    /// Tools it lets run without asking (`autoApprove`, `alwaysAllow`;
    /// `*` for `"trust": true`).
    pub auto_approve: Vec<String>,
    /// `"allowInsecure"`: credentials may go over plain http.
    pub allow_insecure: bool,
    /// The `oauth` block's client id and scope (its secret is masked).
    pub oauth: Vec<Shown>,
    /// `dev.watch`: the files whose change restarts it, unasked.
    pub watch: Vec<String>,
    /// What is trusted, in short: sent back with the person's yes.
    pub fingerprint: String,
}
/// One name and value of a trust request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct Shown {
    /// The name (an environment variable, a header).
    pub name: String,
    /// The value as written; a literal credential is masked (a `${...}`
    /// reference is shown: it names where the value comes from).
    pub value: String,
    /// Whether the value shown is masked.
    pub masked: bool,
    /// Why this variable changes what runs (`PYTHONPATH`, `NODE_OPTIONS`,
    /// `LD_PRELOAD`, `PATH`, a package index, ...), when it does.
    pub changes_what_runs: Option<String>,
}
/// An `${input:id}` some server refers to that nobody has given yet.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, specta::Type)]
pub struct NeededInput {
    /// The input's id (`${input:id}`).
    pub id: String,
    /// What the person is asked for.
    pub description: Option<String>,
    /// Masked while typed (undeclared inputs are treated as secret).
    pub password: bool,
    /// The servers that use it.
    pub servers: Vec<String>,
}
impl From<EditOp> for workbench_config::edit::EditOp {
    fn from(v: EditOp) -> Self {
        match v {
            EditOp::Upsert { name, fields } => {
                workbench_config::edit::EditOp::Upsert { name, fields }
            }
            EditOp::Remove { name } => workbench_config::edit::EditOp::Remove { name },
            EditOp::Rename { from, to } => workbench_config::edit::EditOp::Rename { from, to },
            EditOp::SetDisabled { name, disabled } => {
                workbench_config::edit::EditOp::SetDisabled { name, disabled }
            }
            EditOp::AddInput { decl } => workbench_config::edit::EditOp::AddInput { decl },
        }
    }
}
impl From<Scope> for workbench_config::Scope {
    fn from(v: Scope) -> Self {
        match v {
            Scope::User => workbench_config::Scope::User,
            Scope::Project => workbench_config::Scope::Project,
        }
    }
}
crate::wire::to_wire!(workbench_config::dialects::Merged => Merged);
impl From<workbench_config::dialects::Merged> for Merged {
    fn from(v: workbench_config::dialects::Merged) -> Self {
        let workbench_config::dialects::Merged { added, kept, notes } = v;
        Self { added, kept, notes }
    }
}
crate::wire::to_wire!(workbench_config::dialects::Found => Found);
impl From<workbench_config::dialects::Found> for Found {
    fn from(v: workbench_config::dialects::Found) -> Self {
        let workbench_config::dialects::Found {
            dialect,
            path,
            servers,
            targets,
            notes,
            error,
        } = v;
        Self {
            dialect: dialect.into(),
            path,
            servers,
            targets,
            notes,
            error,
        }
    }
}
crate::wire::to_wire!(workbench_config::trust::TrustRequest => TrustRequest);
impl From<workbench_config::trust::TrustRequest> for TrustRequest {
    fn from(v: workbench_config::trust::TrustRequest) -> Self {
        let workbench_config::trust::TrustRequest {
            name,
            scope,
            file,
            target,
            cwd,
            env,
            headers,
            references,
            auto_approve,
            allow_insecure,
            oauth,
            watch,
            fingerprint,
        } = v;
        Self {
            name,
            scope: scope.into(),
            file,
            target,
            cwd,
            env: env.into_iter().map(|v| v.into()).collect(),
            headers: headers.into_iter().map(|v| v.into()).collect(),
            references,
            auto_approve,
            allow_insecure,
            oauth: oauth.into_iter().map(|v| v.into()).collect(),
            watch,
            fingerprint,
        }
    }
}
crate::wire::to_wire!(workbench_config::vars::NeededInput => NeededInput);
impl From<workbench_config::vars::NeededInput> for NeededInput {
    fn from(v: workbench_config::vars::NeededInput) -> Self {
        let workbench_config::vars::NeededInput {
            id,
            description,
            password,
            servers,
        } = v;
        Self {
            id,
            description,
            password,
            servers,
        }
    }
}
crate::wire::to_wire!(workbench_config::dialects::Dialect => Dialect);
impl From<workbench_config::dialects::Dialect> for Dialect {
    fn from(v: workbench_config::dialects::Dialect) -> Self {
        match v {
            workbench_config::dialects::Dialect::ClaudeDesktop => Self::ClaudeDesktop,
            workbench_config::dialects::Dialect::ClaudeCode => Self::ClaudeCode,
            workbench_config::dialects::Dialect::Codex => Self::Codex,
            workbench_config::dialects::Dialect::Gemini => Self::Gemini,
            workbench_config::dialects::Dialect::Cursor => Self::Cursor,
            workbench_config::dialects::Dialect::Vscode => Self::Vscode,
            workbench_config::dialects::Dialect::Windsurf => Self::Windsurf,
            workbench_config::dialects::Dialect::Zed => Self::Zed,
            workbench_config::dialects::Dialect::Cline => Self::Cline,
            workbench_config::dialects::Dialect::Roo => Self::Roo,
            workbench_config::dialects::Dialect::Goose => Self::Goose,
            workbench_config::dialects::Dialect::Continue => Self::Continue,
            workbench_config::dialects::Dialect::LmStudio => Self::LmStudio,
            workbench_config::dialects::Dialect::OpenCode => Self::OpenCode,
            workbench_config::dialects::Dialect::Registry => Self::Registry,
        }
    }
}
crate::wire::to_wire!(workbench_config::dialects::tapping::HostEntry => HostEntry);
impl From<workbench_config::dialects::tapping::HostEntry> for HostEntry {
    fn from(v: workbench_config::dialects::tapping::HostEntry) -> Self {
        let workbench_config::dialects::tapping::HostEntry {
            name,
            target,
            tapped,
            untappable,
            remote,
        } = v;
        Self {
            name,
            target,
            tapped,
            untappable,
            remote,
        }
    }
}
crate::wire::to_wire!(workbench_config::Scope => Scope);
impl From<workbench_config::Scope> for Scope {
    fn from(v: workbench_config::Scope) -> Self {
        match v {
            workbench_config::Scope::User => Self::User,
            workbench_config::Scope::Project => Self::Project,
        }
    }
}
crate::wire::to_wire!(workbench_config::Problem => Problem);
impl From<workbench_config::Problem> for Problem {
    fn from(v: workbench_config::Problem) -> Self {
        let workbench_config::Problem {
            pointer,
            message,
            scope,
        } = v;
        Self {
            pointer,
            message,
            scope: scope.into(),
        }
    }
}
crate::wire::to_wire!(workbench_config::ServerSummary => ServerSummary);
impl From<workbench_config::ServerSummary> for ServerSummary {
    fn from(v: workbench_config::ServerSummary) -> Self {
        let workbench_config::ServerSummary {
            name,
            transport,
            target,
            disabled,
            description,
            scope,
            protocol,
        } = v;
        Self {
            name,
            transport: transport.into(),
            target,
            disabled,
            description,
            scope: scope.into(),
            protocol: protocol.into(),
        }
    }
}
crate::wire::to_wire!(workbench_config::trust::Shown => Shown);
impl From<workbench_config::trust::Shown> for Shown {
    fn from(v: workbench_config::trust::Shown) -> Self {
        let workbench_config::trust::Shown {
            name,
            value,
            masked,
            changes_what_runs,
        } = v;
        Self {
            name,
            value,
            masked,
            changes_what_runs,
        }
    }
}
crate::wire::to_wire!(workbench_config::TransportKind => TransportKind);
impl From<workbench_config::TransportKind> for TransportKind {
    fn from(v: workbench_config::TransportKind) -> Self {
        match v {
            workbench_config::TransportKind::Stdio => Self::Stdio,
            workbench_config::TransportKind::StreamableHttp => Self::StreamableHttp,
            workbench_config::TransportKind::Sse => Self::Sse,
            workbench_config::TransportKind::RemoteAuto => Self::RemoteAuto,
        }
    }
}
crate::wire::to_wire!(workbench_config::ProtocolPin => ProtocolPin);
impl From<workbench_config::ProtocolPin> for ProtocolPin {
    fn from(v: workbench_config::ProtocolPin) -> Self {
        match v {
            workbench_config::ProtocolPin::Auto => Self::Auto,
            workbench_config::ProtocolPin::V2025_11_25 => Self::V2025_11_25,
            workbench_config::ProtocolPin::V2026_07_28 => Self::V2026_07_28,
        }
    }
}
