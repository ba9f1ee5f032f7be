//! The mcp.json engine of MCP Workbench, as a library: read, validate,
//! edit without losing a comment, import and export other clients' dialects,
//! expand `${...}` references, keep secrets in the OS keychain, and decide
//! whether a project's file is trusted.
//!
//! The on-disk shape is the one other clients read (`mcpServers` with `type`,
//! `command`/`args`/`env`/`cwd`, `url`/`headers`). Loading turns that text
//! into a [`ConfigFile`]; one broken entry never hides the others, it is
//! reported as a [`Problem`] pointing at the exact key.
//!
//! ```
//! use std::path::Path;
//! use workbench_config::{ConfigFile, TransportKind};
//!
//! let text = r#"{
//!   // comments are allowed, as in VS Code
//!   "mcpServers": {
//!     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."] },
//!     "remote": { "url": "https://example.com/mcp" },
//!     "broken": { "command": 7 }
//!   }
//! }"#;
//! let config = ConfigFile::parse(Path::new("mcp.json"), text).unwrap();
//! let kinds: Vec<_> = config.servers.iter().map(|s| (s.name.as_str(), s.transport.kind())).collect();
//! assert_eq!(kinds, [("files", TransportKind::Stdio), ("remote", TransportKind::RemoteAuto)]);
//! // The broken entry is reported where it breaks, the others still load.
//! assert_eq!(config.problems[0].pointer, "/mcpServers/broken/command");
//! ```
//!
//! Edits keep the file as the person wrote it ([`edit`], [`document`]):
//!
//! ```
//! use std::path::Path;
//! use workbench_config::edit::{apply, EditOp};
//!
//! let before = "{\n  // mine\n  \"mcpServers\": {}\n}\n";
//! let after = apply(Path::new("mcp.json"), before, &EditOp::Upsert {
//!     name: "demo".into(),
//!     fields: serde_json::json!({ "command": "demo-server" }).as_object().unwrap().clone(),
//! }).unwrap();
//! assert!(after.contains("// mine") && after.contains("\"demo\""));
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod app;
pub mod dialects;
pub mod document;
pub mod edit;
mod entry;
mod error;
mod file;
pub mod files;
#[doc(hidden)]
pub mod fuzzing;
mod parse;
pub mod rename;
pub mod secrets;
pub mod trust;
pub mod vars;
pub mod watch;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

pub use app::default_user_config;
pub use entry::parse_entry;
pub use file::raw_entries;
pub use parse::parse_jsonc;

pub use error::{Error, ErrorCode, ErrorInfo, Result};

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A local process spoken to over its stdin and stdout.
    Stdio {
        /// The program to run.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables set for it (on top of the inherited ones).
        env: BTreeMap<String, String>,
        /// The folder it runs in.
        cwd: Option<String>,
    },
    /// `type: "http"` (and its spellings): Streamable HTTP.
    StreamableHttp {
        /// The server's address.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
    /// `type: "sse"`: the legacy HTTP+SSE transport (2024-11-05).
    Sse {
        /// The server's address.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
    /// A `url` with no `type`: try Streamable HTTP, then SSE.
    RemoteAuto {
        /// The server's address.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
    },
}

/// The transport's kind, for display and IPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

impl Transport {
    /// The same transport with each text that may hold references (the
    /// command, args, env and header values, cwd, URL) passed through `f`,
    /// which gets the field's name (`args[0]`, `env.KEY`, ...) and its text.
    pub fn map_texts<E>(
        &self,
        mut f: impl FnMut(&str, &str) -> std::result::Result<String, E>,
    ) -> std::result::Result<Transport, E> {
        fn each<E>(
            field: &str,
            m: &BTreeMap<String, String>,
            f: &mut impl FnMut(&str, &str) -> std::result::Result<String, E>,
        ) -> std::result::Result<BTreeMap<String, String>, E> {
            m.iter()
                .map(|(k, v)| Ok((k.clone(), f(&format!("{field}.{k}"), v)?)))
                .collect()
        }
        Ok(match self {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => Transport::Stdio {
                command: f("command", command)?,
                args: args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| f(&format!("args[{i}]"), a))
                    .collect::<std::result::Result<_, E>>()?,
                env: each("env", env, &mut f)?,
                cwd: cwd.as_deref().map(|c| f("cwd", c)).transpose()?,
            },
            Transport::StreamableHttp { url, headers } => Transport::StreamableHttp {
                url: f("url", url)?,
                headers: each("headers", headers, &mut f)?,
            },
            Transport::Sse { url, headers } => Transport::Sse {
                url: f("url", url)?,
                headers: each("headers", headers, &mut f)?,
            },
            Transport::RemoteAuto { url, headers } => Transport::RemoteAuto {
                url: f("url", url)?,
                headers: each("headers", headers, &mut f)?,
            },
        })
    }

    /// Which kind of transport this is.
    pub fn kind(&self) -> TransportKind {
        match self {
            Transport::Stdio { .. } => TransportKind::Stdio,
            Transport::StreamableHttp { .. } => TransportKind::StreamableHttp,
            Transport::Sse { .. } => TransportKind::Sse,
            Transport::RemoteAuto { .. } => TransportKind::RemoteAuto,
        }
    }

    /// A one-line description: the command line or the URL. Never includes
    /// env or header values (they may be secrets).
    pub fn target(&self) -> String {
        match self {
            Transport::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .map(shell_quote)
                .collect::<Vec<_>>()
                .join(" "),
            Transport::StreamableHttp { url, .. }
            | Transport::Sse { url, .. }
            | Transport::RemoteAuto { url, .. } => url.clone(),
        }
    }
}

/// `s` as one word of a shell command line: as it is when it is plain,
/// else single-quoted (a name from a file someone else wrote, printed in a
/// command the person may paste).
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// One server of the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    /// The entry's name (its key under `mcpServers`).
    pub name: String,
    /// How the server is reached.
    pub transport: Transport,
    /// `disabled: true` (or `enabled: false`): listed, not started.
    pub disabled: bool,
    /// What the person wrote about it.
    pub description: Option<String>,
    /// `"lifecycle": "transient"`: a fresh connection (process) per call.
    pub lifecycle: Lifecycle,
    /// `"startupTimeout"` in seconds (other clients ignore the key).
    pub startup_timeout: Option<std::time::Duration>,
    /// `"callTimeout"` in seconds: how long a call may go without an answer
    /// or a progress notification.
    pub call_timeout: Option<std::time::Duration>,
    /// `"maxCallTime"` in seconds: the longest a call may take, progress or
    /// not (default 10 minutes).
    pub max_call_time: Option<std::time::Duration>,
    /// `"restart": false`, or `{"initialDelay": s, "maxDelay": s}` for the backoff.
    pub restart: Option<RestartPolicy>,
    /// `"includeTools"`: only these tools are offered (None: all).
    pub include_tools: Option<Vec<String>>,
    /// `"excludeTools"` (Roo's `"disabledTools"`): never offered.
    pub exclude_tools: Vec<String>,
    /// `"autoApprove"` (Roo's `"alwaysAllow"`): called without asking.
    /// `"trust": true` approves every tool (`*`).
    pub auto_approve: Vec<String>,
    /// Which file the entry came from.
    pub scope: Scope,
    /// `"protocolVersion"`: speak one protocol era only (testing a server
    /// under each), or negotiate (absent, `"auto"`).
    pub protocol: ProtocolPin,
    /// `"maxMessageSize"` in bytes: the largest message (stdout line, SSE
    /// event, JSON body) accepted from the server (default 16 MiB).
    pub max_message_size: Option<usize>,
    /// `"allowInsecure": true`: send an Authorization header over plain
    /// http to a host that is not this machine.
    pub allow_insecure: bool,
    /// Whether the person trusts what the entry runs (see [`trust`]); not
    /// a key of the file. An untrusted entry does not start.
    pub trusted: bool,
    /// `"oauth"`: how a remote entry signs in when its authorization server
    /// wants a client registered ahead (or a scope, or a metadata document).
    pub oauth: Option<OAuthClient>,
    /// VS Code's `"dev": {"watch": ...}`: files whose change restarts the
    /// server (`"debug"` and other keys stay in the file untouched).
    pub dev: Option<DevSettings>,
}

/// `"dev": {"watch": "src/**/*.ts"}` (a glob or a list of globs), relative
/// to the entry's `cwd`, else the config's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DevSettings {
    /// `dev.watch`: the file patterns whose change restarts the server.
    pub watch: Vec<String>,
}

/// `"oauth": {"clientId", "clientSecret", "scope", "clientMetadataUrl"}`;
/// each may use `${...}` references (a secret: `${secret:NAME}`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OAuthClient {
    /// `clientId`: a client registered ahead of time.
    pub client_id: Option<String>,
    /// `clientSecret` (usually a `${...}` reference).
    pub client_secret: Option<String>,
    /// `scope`: the scopes asked for.
    pub scope: Option<String>,
    /// `clientMetadataUrl`: a Client ID Metadata Document's address.
    pub client_metadata_url: Option<String>,
}

/// Which protocol era a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    #[default]
    /// The person's own file.
    User,
    /// The project's `.mcp.json`.
    Project,
}

impl ServerEntry {
    /// The largest message accepted from this server.
    pub fn max_message(&self) -> usize {
        self.max_message_size.unwrap_or(DEFAULT_MAX_MESSAGE)
    }

    /// Whether the tool passes the entry's include and exclude lists.
    pub fn offers_tool(&self, tool: &str) -> bool {
        self.include_tools
            .as_ref()
            .is_none_or(|only| only.iter().any(|t| t == tool))
            && !self.exclude_tools.iter().any(|t| t == tool)
    }

    /// Whether calls of the tool need no approval.
    pub fn auto_approves(&self, tool: &str) -> bool {
        self.auto_approve.iter().any(|t| t == tool || t == "*")
    }
}

/// How a crashed server is restarted (absent: the workbench's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Whether a crashed server is restarted at all.
    pub enabled: bool,
    /// The first wait before a restart.
    pub initial_delay: Option<std::time::Duration>,
    /// The longest wait between restarts.
    pub max_delay: Option<std::time::Duration>,
}

/// How long a server's connection lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lifecycle {
    /// One long-lived connection (the default).
    #[default]
    Singleton,
    /// A fresh connection per call, closed after it: for stateless servers.
    Transient,
}

/// A semantic problem in one part of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// JSON pointer to the offending key, e.g. `/mcpServers/demo/command`.
    pub pointer: String,
    /// What is wrong, in a sentence.
    pub message: String,
    /// The file it is in.
    pub scope: Scope,
}

/// A loaded mcp.json (the user's file, merged with a project's `.mcp.json`
/// when one was given).
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// The user's file.
    pub path: PathBuf,
    /// The project's `.mcp.json`, when merged in.
    pub project: Option<PathBuf>,
    /// Valid entries, in file order (a project entry replaces a user entry
    /// of the same name in place).
    pub servers: Vec<ServerEntry>,
    /// Entries that could not be understood; they are skipped, not dropped from disk.
    pub problems: Vec<Problem>,
    /// VS Code style `inputs`: values asked for once (`${input:id}`).
    pub inputs: Vec<InputDecl>,
}

/// One declared input (`{"id", "type": "promptString", "description", "password"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputDecl {
    /// The input's id (`${input:id}`).
    pub id: String,
    /// What the person is asked for.
    pub description: Option<String>,
    /// Masked while typed; every input is stored in the keychain regardless.
    pub password: bool,
}

/// What the UI and `mcpwb servers` show of a server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
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

impl From<&ServerEntry> for ServerSummary {
    fn from(e: &ServerEntry) -> Self {
        ServerSummary {
            name: e.name.clone(),
            transport: e.transport.kind(),
            target: e.transport.target(),
            disabled: e.disabled,
            description: e.description.clone(),
            scope: e.scope,
            protocol: e.protocol,
        }
    }
}

/// `part` with every character outside `[A-Za-z0-9_-]` made `_` (a name safe in an id or a file name).
pub fn sanitise(part: &str) -> String {
    let s: String = part
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".to_string() } else { s }
}

/// The largest message accepted from a server unless its entry says
/// otherwise (`maxMessageSize`), as rmcp's own default.
pub const DEFAULT_MAX_MESSAGE: usize = 16 * 1024 * 1024;

#[cfg(test)]
mod tests;

/// The README's example, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
