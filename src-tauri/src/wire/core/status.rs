#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// What a server said about itself when the session started.
#[derive(Debug, Clone, Serialize, PartialEq, specta::Type)]
pub struct ServerInfo {
    pub protocol_version: String,
    pub name: String,
    pub title: Option<String>,
    pub version: String,
    pub instructions: Option<String>,
    /// The server's capabilities object, as sent.
    pub capabilities: serde_json::Value,
    /// The transport that worked (for a `url` with no `type`, which one).
    pub transport: crate::wire::config::TransportKind,
}
/// Why a connection failed or ended, by kind: a stable code the window,
/// `mcpwb` and the doctor switch on (never the reason's text).
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, Default, specta::Type)]
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
/// A server's life, as the user sees it.
#[derive(Debug, Clone, Serialize, PartialEq, specta::Type)]
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
#[derive(Debug, Clone, Serialize, PartialEq, specta::Type)]
pub struct ServerStatus {
    pub name: String,
    #[serde(flatten)]
    pub state: ServerState,
    pub info: Option<ServerInfo>,
}
crate::wire::to_wire!(workbench_core::status::ServerStatus => ServerStatus);
impl From<workbench_core::status::ServerStatus> for ServerStatus {
    fn from(v: workbench_core::status::ServerStatus) -> Self {
        let workbench_core::status::ServerStatus { name, state, info } = v;
        Self {
            name,
            state: state.into(),
            info: info.map(|v| v.into()),
        }
    }
}
crate::wire::to_wire!(workbench_core::status::ServerInfo => ServerInfo);
impl From<workbench_core::status::ServerInfo> for ServerInfo {
    fn from(v: workbench_core::status::ServerInfo) -> Self {
        let workbench_core::status::ServerInfo {
            protocol_version,
            name,
            title,
            version,
            instructions,
            capabilities,
            transport,
        } = v;
        Self {
            protocol_version,
            name,
            title,
            version,
            instructions,
            capabilities,
            transport: transport.into(),
        }
    }
}
crate::wire::to_wire!(workbench_core::status::FailureCode => FailureCode);
impl From<workbench_core::status::FailureCode> for FailureCode {
    fn from(v: workbench_core::status::FailureCode) -> Self {
        match v {
            workbench_core::status::FailureCode::Config => Self::Config,
            workbench_core::status::FailureCode::Spawn => Self::Spawn,
            workbench_core::status::FailureCode::Exited => Self::Exited,
            workbench_core::status::FailureCode::Unreachable => Self::Unreachable,
            workbench_core::status::FailureCode::SignIn => Self::SignIn,
            workbench_core::status::FailureCode::Scope => Self::Scope,
            workbench_core::status::FailureCode::Handshake => Self::Handshake,
            workbench_core::status::FailureCode::Health => Self::Health,
            workbench_core::status::FailureCode::Ended => Self::Ended,
        }
    }
}
crate::wire::to_wire!(workbench_core::status::ServerState => ServerState);
impl From<workbench_core::status::ServerState> for ServerState {
    fn from(v: workbench_core::status::ServerState) -> Self {
        match v {
            workbench_core::status::ServerState::Disabled => Self::Disabled,
            workbench_core::status::ServerState::Starting { slow } => Self::Starting { slow },
            workbench_core::status::ServerState::Ready => Self::Ready,
            workbench_core::status::ServerState::Untrusted => Self::Untrusted,
            workbench_core::status::ServerState::Failed {
                code,
                reason,
                stderr,
            } => Self::Failed {
                code: code.into(),
                reason,
                stderr,
            },
            workbench_core::status::ServerState::Restarting {
                code,
                attempt,
                reason,
                stderr,
                next_try_in_ms,
            } => Self::Restarting {
                code: code.into(),
                attempt,
                reason,
                stderr,
                next_try_in_ms,
            },
            workbench_core::status::ServerState::Stopped => Self::Stopped,
        }
    }
}
