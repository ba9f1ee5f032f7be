//! The one typed event stream of a [`crate::Workbench`]: state changes flow
//! from the supervisors and sessions to every caller.

use serde::Serialize;
use serde_json::Value;

use crate::status::ServerStatus;

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A server's state changed (published the moment it changes).
    Status {
        // Boxed, as is a task's state: the channel makes its 4096 slots at
        // start, each as large as the largest event (288 bytes unboxed).
        status: Box<ServerStatus>,
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
        task: Box<crate::task::TaskState>,
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
        changes: crate::config::watch::ChangeSet,
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

/// What a server asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AskKind {
    /// `sampling/createMessage`: an LLM completion.
    Sampling,
    /// `elicitation/create`: a form (or a URL) for the user.
    Elicitation,
}

/// An ask waiting for its answer.
#[derive(Debug, Clone, Serialize)]
pub struct PendingAsk {
    pub id: u32,
    pub server: String,
    pub kind: AskKind,
    /// The request's params as the server sent them.
    pub params: Value,
}

#[cfg(test)]
mod tests {
    /// The event channel's slots are made when a workbench starts, 4096 of
    /// them as large as the largest event: a large payload goes in a box.
    #[test]
    fn an_event_stays_small() {
        assert!(
            std::mem::size_of::<super::Event>() <= 112,
            "{} bytes",
            std::mem::size_of::<super::Event>()
        );
    }
}
