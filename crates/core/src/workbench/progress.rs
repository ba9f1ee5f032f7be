//! What a call reports while it runs — its progress notifications and the
//! statuses of the task it became — pushed to the caller's sink as they
//! come, read from the traffic log in wire order.

use serde::Serialize;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::traffic::{Direction, TrafficEntry};

/// One progress notification of a call, as the server sent it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Progress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

/// What a call reports while it runs, pushed to the caller as it comes
/// (the shape of ripgrep's `Sink`): the caller's adapter turns it into its
/// own wire (the window's channels, the agent's events, a terminal line);
/// nothing is copied through a channel and a task in between. Called on the
/// call's task: keep it short.
pub trait CallSink: Send + Sync {
    /// A `notifications/progress` for this call.
    fn progress(&self, _progress: Progress) {}
    /// A status of the task the call became.
    fn task(&self, _task: &crate::task::TaskState) {}
    /// The call waits for its server, which is `state` (restarting,
    /// starting), before it is sent.
    fn waiting(&self, _server: &str, _state: &str) {}
}

/// A channel is a sink (tests, and a caller that wants the items elsewhere).
impl CallSink for mpsc::UnboundedSender<Progress> {
    fn progress(&self, progress: Progress) {
        let _ = self.send(progress);
    }
}

impl CallSink for mpsc::UnboundedSender<crate::task::TaskState> {
    fn task(&self, task: &crate::task::TaskState) {
        let _ = self.send(task.clone());
    }
}

/// Pass a `notifications/progress` for this call's token to the caller.
pub(super) fn forward_progress(
    entry: &TrafficEntry,
    server: &str,
    token: &str,
    sink: &dyn CallSink,
) {
    if &*entry.server != server
        || entry.direction != Direction::Incoming
        || entry.method.as_deref() != Some("notifications/progress")
    {
        return;
    }
    let Ok(message) = serde_json::from_str::<Value>(&entry.body) else {
        return;
    };
    let params = &message["params"];
    if serde_json::from_str::<Value>(token).ok().as_ref() != Some(&params["progressToken"]) {
        return;
    }
    if let Some(progress) = params["progress"].as_f64() {
        sink.progress(Progress {
            progress,
            total: params["total"].as_f64(),
            message: params["message"].as_str().map(str::to_string),
        });
    }
}
