//! A server's life, kept: each change of its state with the time, and for
//! a failure its code and reason (an exit status, a crash, a refusal) — so
//! a crash leaves a trace after the server is back. Bounded (the newest
//! [`KEPT`]); the supervisor writes it, the window and `mcpwb` read it.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::status::{FailureCode, ServerState};

/// Events kept per server.
pub const KEPT: usize = 100;

/// One change of a server's state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LifeEvent {
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    /// `starting`, `slow`, `ready`, `failed`, `restarting`, `stopped`,
    /// `disabled`, `untrusted`; or `catalog` (its lists could not be read).
    pub state: String,
    pub code: Option<FailureCode>,
    /// Why, for a failure or a restart (masked like every reason).
    pub reason: Option<String>,
    /// For a restart: which attempt.
    pub attempt: Option<u32>,
}

/// The kept events. Cheap to clone.
#[derive(Clone, Default)]
pub struct Life(Arc<Mutex<VecDeque<LifeEvent>>>);

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or_default()
}

impl Life {
    /// Note `state` (a state the same as the last noted is not noted again).
    pub fn note(&self, state: &ServerState) {
        let (name, code, reason, attempt) = match state {
            ServerState::Disabled => ("disabled", None, None, None),
            ServerState::Starting { slow: false } => ("starting", None, None, None),
            ServerState::Starting { slow: true } => ("slow", None, None, None),
            ServerState::Ready => ("ready", None, None, None),
            ServerState::Untrusted => ("untrusted", None, None, None),
            ServerState::Failed { code, reason, .. } => {
                ("failed", Some(*code), Some(reason.clone()), None)
            }
            ServerState::Restarting {
                code,
                reason,
                attempt,
                ..
            } => (
                "restarting",
                Some(*code),
                Some(reason.clone()),
                Some(*attempt),
            ),
            ServerState::Stopped => ("stopped", None, None, None),
        };
        let mut events = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if events
            .back()
            .is_some_and(|e| e.state == name && e.reason == reason && e.attempt == attempt)
        {
            return;
        }
        if events.len() == KEPT {
            events.pop_front();
        }
        events.push_back(LifeEvent {
            at_ms: now_ms(),
            state: name.to_string(),
            code,
            reason,
            attempt,
        });
    }

    /// Note something that happened to the server without changing its
    /// state (`what`: e.g. `catalog`), with why.
    pub fn note_other(&self, what: &str, reason: String) {
        let mut events = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if events
            .back()
            .is_some_and(|e| e.state == what && e.reason.as_deref() == Some(reason.as_str()))
        {
            return;
        }
        if events.len() == KEPT {
            events.pop_front();
        }
        events.push_back(LifeEvent {
            at_ms: now_ms(),
            state: what.to_string(),
            code: None,
            reason: Some(reason),
            attempt: None,
        });
    }

    /// The events kept, oldest first.
    pub fn events(&self) -> Vec<LifeEvent> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_are_kept_in_order_bounded_and_without_repeats() {
        let life = Life::default();
        life.note(&ServerState::Starting { slow: false });
        life.note(&ServerState::Ready);
        life.note(&ServerState::Ready);
        let failed = ServerState::Failed {
            code: FailureCode::Ended,
            reason: "the server exited with status 3".into(),
            stderr: vec![],
        };
        life.note(&failed);
        let states: Vec<String> = life.events().into_iter().map(|e| e.state).collect();
        assert_eq!(states, ["starting", "ready", "failed"]);
        assert_eq!(life.events()[2].code, Some(FailureCode::Ended));
        for i in 0..(KEPT as u32 + 10) {
            life.note(&ServerState::Restarting {
                code: FailureCode::Ended,
                attempt: i,
                reason: "x".into(),
                stderr: vec![],
                next_try_in_ms: 1,
            });
        }
        let kept = life.events();
        assert_eq!(kept.len(), KEPT);
        assert_eq!(kept.last().and_then(|e| e.attempt), Some(KEPT as u32 + 9));
    }
}
