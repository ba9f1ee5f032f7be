use serde::Serialize;
/// A stable code for each kind of failure. Serialised as `snake_case` strings;
/// never renumber or rename a variant, add new ones instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct ErrorInfo {
    /// What kind of failure: switch on this.
    pub code: ErrorCode,
    /// The sentence for a person.
    pub message: String,
}
crate::wire::to_wire!(workbench_codes::ErrorInfo => ErrorInfo);
impl From<workbench_codes::ErrorInfo> for ErrorInfo {
    fn from(v: workbench_codes::ErrorInfo) -> Self {
        let workbench_codes::ErrorInfo { code, message } = v;
        Self {
            code: code.into(),
            message,
        }
    }
}
crate::wire::to_wire!(workbench_codes::ErrorCode => ErrorCode);
impl From<workbench_codes::ErrorCode> for ErrorCode {
    fn from(v: workbench_codes::ErrorCode) -> Self {
        match v {
            workbench_codes::ErrorCode::ConfigNotFound => Self::ConfigNotFound,
            workbench_codes::ErrorCode::ConfigUnreadable => Self::ConfigUnreadable,
            workbench_codes::ErrorCode::ConfigSyntax => Self::ConfigSyntax,
            workbench_codes::ErrorCode::ConfigInvalid => Self::ConfigInvalid,
            workbench_codes::ErrorCode::UnknownServer => Self::UnknownServer,
            workbench_codes::ErrorCode::UnknownTool => Self::UnknownTool,
            workbench_codes::ErrorCode::ServerNotReady => Self::ServerNotReady,
            workbench_codes::ErrorCode::Timeout => Self::Timeout,
            workbench_codes::ErrorCode::Cancelled => Self::Cancelled,
            workbench_codes::ErrorCode::ServerError => Self::ServerError,
            workbench_codes::ErrorCode::Transport => Self::Transport,
            workbench_codes::ErrorCode::Internal => Self::Internal,
            workbench_codes::ErrorCode::ConfigEdit => Self::ConfigEdit,
            workbench_codes::ErrorCode::ConfigConflict => Self::ConfigConflict,
            workbench_codes::ErrorCode::ConfigWrite => Self::ConfigWrite,
            workbench_codes::ErrorCode::Variable => Self::Variable,
            workbench_codes::ErrorCode::Secret => Self::Secret,
            workbench_codes::ErrorCode::Dialect => Self::Dialect,
            workbench_codes::ErrorCode::ToolExcluded => Self::ToolExcluded,
            workbench_codes::ErrorCode::Refused => Self::Refused,
            workbench_codes::ErrorCode::ProviderAuth => Self::ProviderAuth,
            workbench_codes::ErrorCode::ProviderRateLimited => Self::ProviderRateLimited,
            workbench_codes::ErrorCode::ProviderUnavailable => Self::ProviderUnavailable,
            workbench_codes::ErrorCode::ProviderFailed => Self::ProviderFailed,
            workbench_codes::ErrorCode::NoProvider => Self::NoProvider,
            workbench_codes::ErrorCode::Storage => Self::Storage,
            workbench_codes::ErrorCode::NotFound => Self::NotFound,
            workbench_codes::ErrorCode::Busy => Self::Busy,
            workbench_codes::ErrorCode::Invalid => Self::Invalid,
        }
    }
}
