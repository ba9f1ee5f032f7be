//! What the window, `mcpwb` and the event stream say of a server: who it
//! is (`ServerInfo`), where it is in its life (`ServerState`) and, when it
//! failed, why by kind (`FailureCode`). Below `connect` (which decides the
//! states) and `events` (which carries them).

use serde::Serialize;

use crate::config::TransportKind;

/// What a server said about itself when the session started.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServerInfo {
    pub protocol_version: String,
    pub name: String,
    pub title: Option<String>,
    pub version: String,
    pub instructions: Option<String>,
    /// The server's capabilities object, as sent.
    pub capabilities: serde_json::Value,
    /// The transport that worked (for a `url` with no `type`, which one).
    pub transport: TransportKind,
}

/// Why a connection failed or ended, by kind: a stable code the window,
/// `mcpwb` and the doctor switch on (never the reason's text).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum FailureCode {
    /// The entry could not be made ready to start (a variable, a secret,
    /// a header that is not valid).
    Config,
    /// The program could not be started.
    Spawn,
    /// The process exited during the handshake.
    Exited,
    /// Nothing answers at the address (refused, or no answer at all).
    Unreachable,
    /// The server refused for want of sign-in (HTTP 401 with a challenge).
    SignIn,
    /// The server refused the token's scope (HTTP 403 insufficient_scope).
    Scope,
    /// The handshake failed otherwise.
    #[default]
    Handshake,
    /// A health-check ping went unanswered.
    Health,
    /// The live session ended by itself (the process died, the connection closed).
    Ended,
}

/// A failure with its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub code: FailureCode,
    pub reason: String,
    /// A stored sign-in will be refreshed: trying again is worth it.
    pub refresh_next: bool,
    /// The server refused the 2025-11-25 `initialize` and named only
    /// 2026-07-28 or later as what it speaks: asked `server/discover` alone
    /// (without the probe's 10 s limit) it would have answered.
    pub modern_only: bool,
}

impl Failure {
    pub fn new(code: FailureCode, reason: impl Into<String>) -> Failure {
        Failure {
            code,
            reason: reason.into(),
            refresh_next: false,
            modern_only: false,
        }
    }
}

/// A connection path's own errors are handshake failures unless it says.
impl From<String> for Failure {
    fn from(reason: String) -> Failure {
        Failure::new(FailureCode::Handshake, reason)
    }
}

/// A server's life, as the user sees it.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum ServerState {
    Disabled,
    /// Connecting. `slow` once the startup timeout passed without an answer;
    /// it becomes Ready if the server answers later.
    Starting {
        slow: bool,
    },
    Ready,
    /// From elsewhere (a project's file, an import, an edit outside the
    /// app) and not trusted yet: it does not start until the person says so.
    Untrusted,
    Failed {
        code: FailureCode,
        reason: String,
        stderr: Vec<String>,
    },
    Restarting {
        code: FailureCode,
        attempt: u32,
        reason: String,
        stderr: Vec<String>,
        next_try_in_ms: u32,
    },
    /// Stopped by the user (never restarted automatically).
    Stopped,
}

impl ServerState {
    /// Why it failed, with the end of its stderr, as a person reads them
    /// first (None: it has not failed). One line is rarely enough: `npm
    /// error could not determine executable to run` comes before `npm error
    /// A complete log of this run…`.
    pub fn failure(&self) -> Option<(&str, Vec<String>)> {
        match self {
            ServerState::Failed { reason, stderr, .. }
            | ServerState::Restarting { reason, stderr, .. } => {
                Some((reason.as_str(), stderr_tail(stderr)))
            }
            _ => None,
        }
    }
}

/// The last three stderr lines that say something, each cut at 200
/// characters, oldest first.
pub fn stderr_tail(stderr: &[String]) -> Vec<String> {
    let mut tail: Vec<String> = stderr
        .iter()
        .rev()
        .map(|l| l.trim_end())
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .map(|l| match l.char_indices().nth(200) {
            Some((at, _)) => format!("{}…", &l[..at]),
            None => l.to_string(),
        })
        .collect();
    tail.reverse();
    tail
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ServerStatus {
    pub name: String,
    #[serde(flatten)]
    pub state: ServerState,
    pub info: Option<ServerInfo>,
}
