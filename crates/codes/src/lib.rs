//! The error codes of MCP Workbench: the stable, machine-readable part of
//! every failure that crosses the window's IPC or `--json` output.
//!
//! Callers (the window, scripts reading `mcpwb --json`) switch on the
//! [`ErrorCode`], never on the text. Each crate keeps its own error type with
//! only the failures it can have; each maps to a code here.
//!
//! ```
//! use workbench_codes::{ErrorCode, ErrorInfo};
//!
//! let e = ErrorInfo::refused("an App may call only its own server's tools");
//! assert_eq!(e.code, ErrorCode::Refused);
//! assert_eq!(
//!     serde_json::to_string(&e.code).unwrap(),
//!     "\"refused\""
//! );
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod methods;
pub mod reach;
use serde::Serialize;

/// A stable code for each kind of failure. Serialised as `snake_case` strings;
/// never renumber or rename a variant, add new ones instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The config file does not exist.
    ConfigNotFound,
    /// The config file exists but cannot be read.
    ConfigUnreadable,
    /// The config file is not valid JSON(C); it says where.
    ConfigSyntax,
    /// The config file parses but breaks a rule (a JSON pointer says where).
    ConfigInvalid,
    /// No server of that name is configured.
    UnknownServer,
    /// The server offers no tool of that name.
    UnknownTool,
    /// The server is not connected (starting, failed, stopped).
    ServerNotReady,
    /// No answer within the time allowed.
    Timeout,
    /// The request was cancelled (by the person, or a task by the server).
    Cancelled,
    /// The server answered with a JSON-RPC error.
    ServerError,
    /// The connection failed while the request was under way.
    Transport,
    /// A fault of the workbench itself.
    Internal,
    /// An edit that cannot be made (unknown server, name taken).
    ConfigEdit,
    /// The file changed on disk since it was read; nothing was written.
    ConfigConflict,
    /// The file could not be written (permissions, disk full).
    ConfigWrite,
    /// A `${...}` reference that cannot be expanded.
    Variable,
    /// The OS keychain refused or lacks an entry.
    Secret,
    /// Another client's config could not be imported or exported.
    Dialect,
    /// The config's includeTools/excludeTools hide the tool.
    ToolExcluded,
    /// Something the workbench will not do (e.g. open a non-web address).
    Refused,
    /// The LLM provider refused the key (401/403).
    ProviderAuth,
    /// The LLM provider kept limiting requests (429) after the retries.
    ProviderRateLimited,
    /// The LLM provider failed (5xx) or could not be reached, after the retries.
    ProviderUnavailable,
    /// The LLM provider's answer was malformed or cut, or it rejected the request.
    ProviderFailed,
    /// No LLM provider is configured (or the chosen one lacks a key or address).
    NoProvider,
    /// The workbench's database could not be read or written.
    Storage,
    /// A chat session, approval or other named thing that does not exist (any more).
    NotFound,
    /// Something is already under way (a turn in the same chat).
    Busy,
    /// A request that does not make sense (an empty message, a bad value).
    Invalid,
}

/// The serialisable form of an error that crosses IPC and `--json` output:
/// `{ "code": "config_syntax", "message": "mcp.json:3:7: expected ..." }`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorInfo {
    /// What kind of failure: switch on this.
    pub code: ErrorCode,
    /// The sentence for a person.
    pub message: String,
}

impl ErrorInfo {
    /// A failure of kind `code`, said by `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ErrorInfo {
        ErrorInfo {
            code,
            message: message.into(),
        }
    }

    /// The workbench would not do what was asked (a rule, a policy).
    pub fn refused(message: impl Into<String>) -> ErrorInfo {
        ErrorInfo::new(ErrorCode::Refused, message)
    }
}

impl std::fmt::Display for ErrorInfo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
