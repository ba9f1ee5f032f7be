//! workbench-app: the application layer. One plain function per operation a
//! person can do — each doing its checks (trust, the person's rules) and its
//! sequence once — that the window's commands, `mcpwb`'s subcommands and
//! the agent's tools adapt in a few lines. A new surface calls these; it
//! never re-sequences the library calls, so it cannot forget a step.
//!
//! Errors are `ErrorInfo` (a stable code and a message): what every surface
//! shows or prints.

#![forbid(unsafe_code)]

pub mod agent;
pub mod apps;
pub mod asks;
pub mod auth;
pub mod bridge;
pub mod bundle;
pub mod calling;
pub mod chat;
/// The types a chat's adapter names (the agent's and the store's).
pub mod chat_types {
    pub use workbench_agent::attach::{Outgoing, PromptDraft};
    pub use workbench_agent::{
        AgentEvent, ChatTools, ChatView, Decision, EndReason, NewChat, Part, SessionChange,
        SessionOptions, Sink,
    };
    pub use workbench_store::SessionRow;
}
pub mod config;
pub mod dev;
pub mod doctor;
pub mod evals;
pub mod history;
pub mod hosts;
pub mod load;
pub mod mock;
pub mod offers;
pub mod providers;
pub mod publish;
pub mod registry;
pub mod servers;
pub mod sessions;
pub mod suites;
pub mod tap;
pub mod tasks;
pub mod tools;
pub mod traces;
pub mod traffic;
pub mod trust;

pub use workbench_calls::Calls;
pub use workbench_core::{CallOptions, ErrorCode, ErrorInfo, Workbench};
pub use workbench_store::Store;

/// Write bytes the person asked to save (a server's embedded resource, an
/// export) to the file they picked: private, never through a link.
pub fn write_bytes_out(path: &std::path::Path, bytes: &[u8]) -> Result<(), ErrorInfo> {
    workbench_core::files::write_private(path, bytes)
        .map_err(|e| invalid(format!("cannot write {}: {e}", path.display())))
}

/// Read a file the person named (arguments, a baseline): never through a
/// link, at most `limit` bytes.
pub fn read_in(path: &std::path::Path, limit: u64) -> Result<Vec<u8>, ErrorInfo> {
    workbench_core::files::read_no_follow(path, limit)
        .map_err(|e| invalid(format!("{}: {e}", path.display())))
}

/// Write a file the person asked for (a snapshot, a report, an export):
/// private, atomic, never through a link planted where it goes.
pub fn write_out(path: &std::path::Path, text: &str) -> Result<(), ErrorInfo> {
    workbench_core::files::write_private_atomic(path, text.as_bytes())
        .map_err(|e| invalid(format!("cannot write {}: {e}", path.display())))
}

/// An invalid request: the person asked for something that cannot be done
/// as asked (what to change is in the message).
/// What the window showed, in short (a SHA-256 of its JSON, hex): sent
/// back with the person's yes, and compared with what the same input makes
/// now before anything acts on it.
pub(crate) fn fingerprint(shown: &impl serde::Serialize) -> String {
    use sha2::Digest;
    let text = serde_json::to_vec(shown).unwrap_or_default();
    sha2::Sha256::digest(text)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub(crate) fn invalid(message: impl Into<String>) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Invalid, message)
}
