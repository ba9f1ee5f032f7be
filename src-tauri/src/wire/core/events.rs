#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A server's state changed (published the moment it changes).
    Status {
        status: ServerStatus,
    },
    /// A server said one of its lists changed; the catalog refreshes it.
    ListChanged {
        server: String,
        list: String,
    },
    /// The catalog of a server was refreshed.
    CatalogChanged {
        server: String,
    },
    ResourceUpdated {
        server: String,
        uri: String,
    },
    /// A task changed status (any caller's call that became a task).
    Task {
        server: String,
        task: TaskState,
    },
    Progress {
        server: String,
        token: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    ServerLog {
        server: String,
        level: String,
        logger: Option<String>,
        data: String,
    },
    /// The config was reloaded (an external edit or a save) and these
    /// servers were started, restarted with new settings, or dropped.
    ConfigApplied {
        changes: crate::wire::config::ChangeSet,
        /// The change was this process's own save (the window's, the agent's).
        own: bool,
    },
    /// A server asked something only a person can answer.
    Ask {
        ask: PendingAsk,
    },
    /// An ask was answered, cancelled by the server, or timed out.
    AskClosed {
        id: u32,
    },
    /// Files a server's `dev.watch` names changed: it is being restarted.
    DevReload {
        server: String,
        /// The changed files, relative to the watched folder (at most 20).
        files: Vec<String>,
    },
    /// What a server's `dev.watch` says to the person: folders left out,
    /// files taken as the server's own writes, a restart again for changes
    /// made while it started (also a note in its Events).
    DevNote {
        server: String,
        note: String,
    },
    /// The config on disk cannot be used; the servers keep running as they
    /// were. `message` has the file, line:column and what is wrong.
    ConfigError {
        message: String,
    },
}
crate::wire::to_wire!(workbench_core::events::Event => Event);
impl From<workbench_core::events::Event> for Event {
    fn from(v: workbench_core::events::Event) -> Self {
        match v {
            workbench_core::events::Event::Status { status } => Self::Status {
                status: status.into(),
            },
            workbench_core::events::Event::ListChanged { server, list } => {
                Self::ListChanged { server, list }
            }
            workbench_core::events::Event::CatalogChanged { server } => {
                Self::CatalogChanged { server }
            }
            workbench_core::events::Event::ResourceUpdated { server, uri } => {
                Self::ResourceUpdated { server, uri }
            }
            workbench_core::events::Event::Task { server, task } => Self::Task {
                server,
                task: task.into(),
            },
            workbench_core::events::Event::Progress {
                server,
                token,
                progress,
                total,
                message,
            } => Self::Progress {
                server,
                token,
                progress,
                total,
                message,
            },
            workbench_core::events::Event::ServerLog {
                server,
                level,
                logger,
                data,
            } => Self::ServerLog {
                server,
                level,
                logger,
                data,
            },
            workbench_core::events::Event::ConfigApplied { changes, own } => Self::ConfigApplied {
                changes: changes.into(),
                own,
            },
            workbench_core::events::Event::Ask { ask } => Self::Ask { ask: ask.into() },
            workbench_core::events::Event::AskClosed { id } => Self::AskClosed { id },
            workbench_core::events::Event::DevReload { server, files } => {
                Self::DevReload { server, files }
            }
            workbench_core::events::Event::DevNote { server, note } => {
                Self::DevNote { server, note }
            }
            workbench_core::events::Event::ConfigError { message } => Self::ConfigError { message },
        }
    }
}
/// What a server asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum AskKind {
    /// `sampling/createMessage`: an LLM completion.
    Sampling,
    /// `elicitation/create`: a form (or a URL) for the user.
    Elicitation,
}
crate::wire::to_wire!(workbench_core::events::AskKind => AskKind);
impl From<workbench_core::events::AskKind> for AskKind {
    fn from(v: workbench_core::events::AskKind) -> Self {
        match v {
            workbench_core::events::AskKind::Sampling => Self::Sampling,
            workbench_core::events::AskKind::Elicitation => Self::Elicitation,
        }
    }
}
/// An ask waiting for its answer.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PendingAsk {
    pub id: u32,
    pub server: String,
    pub kind: AskKind,
    /// The request's params as the server sent them.
    pub params: Value,
}
crate::wire::to_wire!(workbench_core::events::PendingAsk => PendingAsk);
impl From<workbench_core::events::PendingAsk> for PendingAsk {
    fn from(v: workbench_core::events::PendingAsk) -> Self {
        let workbench_core::events::PendingAsk {
            id,
            server,
            kind,
            params,
        } = v;
        Self {
            id,
            server,
            kind: kind.into(),
            params,
        }
    }
}
