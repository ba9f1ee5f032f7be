//! Errors with a stable machine-readable [`ErrorCode`] and a human sentence.
//!
//! Callers (the UI, the CLI) switch on the code, never on the text.

pub use workbench_codes::{ErrorCode, ErrorInfo};

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("no server named \"{0}\"")]
    UnknownServer(String),
    #[error("{server} has no tool named \"{tool}\"")]
    UnknownTool { server: String, tool: String },
    #[error("{server} lists no skill named \"{skill}\" (mcpwb skills {server} lists them)")]
    UnknownSkill { server: String, skill: String },
    #[error("{server} is not ready ({state})")]
    ServerNotReady { server: String, state: String },
    #[error("{server}: {method} got no answer within {seconds:.1} s{}", if *.progressing { " (it kept reporting progress past the maximum time for a call)" } else { "" })]
    Timeout {
        server: String,
        method: String,
        seconds: f64,
        /// Ended by the maximum total time, not by silence.
        progressing: bool,
    },
    #[error("{server}: {method} was cancelled")]
    Cancelled { server: String, method: String },
    /// The task a call became was cancelled, not by this caller.
    #[error("{server}: task {task_id} was cancelled{}", message.as_deref().map(|m| format!(" ({m})")).unwrap_or_default())]
    TaskCancelled {
        server: String,
        task_id: String,
        message: Option<String>,
    },
    #[error("{server}: {method} failed: {message} (JSON-RPC error {code})")]
    ServerError {
        server: String,
        method: String,
        code: i32,
        message: String,
        /// The error's `data`, as the server sent it (boxed: rare, and the
        /// error travels in every call's `Result`).
        data: Option<Box<serde_json::Value>>,
    },
    #[error("{server}: {method}: {message}")]
    Transport {
        server: String,
        method: String,
        message: String,
    },
    /// The connection to the server closed under a request: before it was
    /// sent (`sent: false`: the server never saw it), or while it was in
    /// flight (the server died or restarted; whether it acted is unknown).
    #[error("{server}: {}", if *.sent { format!("the connection closed while {method} was in flight (the server died or restarted); not sent again, as it may have acted: check its effect, then call again once the server is back") } else { format!("the connection had closed before {method} was sent (the server died or restarted); call again once it is back") })]
    ConnectionLost {
        server: String,
        method: String,
        sent: bool,
    },
    #[error("internal error: {0}")]
    Internal(String),
    #[error(
        "{server}: the tool \"{tool}\" is hidden by this server's includeTools/excludeTools in mcp.json"
    )]
    ToolExcluded { server: String, tool: String },
    #[error("{0}")]
    Refused(String),
    /// Reading, editing or expanding the config failed.
    #[error(transparent)]
    Config(#[from] workbench_config::Error),
}

impl Error {
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::UnknownServer(_) => ErrorCode::UnknownServer,
            Error::UnknownTool { .. } => ErrorCode::UnknownTool,
            Error::UnknownSkill { .. } => ErrorCode::NotFound,
            Error::ServerNotReady { .. } => ErrorCode::ServerNotReady,
            Error::Timeout { .. } => ErrorCode::Timeout,
            Error::Cancelled { .. } | Error::TaskCancelled { .. } => ErrorCode::Cancelled,
            Error::ServerError { .. } => ErrorCode::ServerError,
            Error::Transport { .. } | Error::ConnectionLost { .. } => ErrorCode::Transport,
            Error::Internal(_) => ErrorCode::Internal,
            Error::ToolExcluded { .. } => ErrorCode::ToolExcluded,
            Error::Refused(_) => ErrorCode::Refused,
            Error::Config(e) => e.code(),
        }
    }
}

impl From<&Error> for ErrorInfo {
    fn from(e: &Error) -> Self {
        ErrorInfo {
            code: e.code(),
            message: e.to_string(),
        }
    }
}

impl From<Error> for ErrorInfo {
    fn from(e: Error) -> Self {
        ErrorInfo::from(&e)
    }
}

/// An error and its causes, as one line a person can read: rmcp's own text
/// often stops at "error sending request" and the cause ("Connection refused")
/// is only in the source chain.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = vec![plain_error(&e.to_string())];
    let mut source = e.source();
    while let Some(cause) = source {
        let text = plain_error(&cause.to_string());
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        source = cause.source();
    }
    parts.join(": ")
}

/// rmcp's errors name Rust types (`Transport [rmcp::transport::...] error:`);
/// a person needs the part after them.
pub fn plain_error(text: &str) -> String {
    let mut out = text.to_string();
    while let Some(start) = out.find(" [") {
        let Some(len) = out[start..].find("] ") else {
            break;
        };
        out.replace_range(start..start + len + 1, "");
    }
    for noise in [
        "Send message error Transport error: ",
        "Transport send error: Transport error: ",
    ] {
        out = out.replace(noise, "");
    }
    out
}
