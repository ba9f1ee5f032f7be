//! Requests the client keeps open until it cancels them: 2026-07-28's
//! `subscriptions/listen`. Cancelled before a session closes, so a server
//! that finishes its open requests before it exits on end of input (rmcp's
//! servers do) exits at once, instead of being sent SIGTERM when the
//! shutdown grace runs out (measured on the demo: every `mcpwb` command
//! waited 0.5 s for it, a Restart in the window 2 s).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CancelledNotificationParam, RequestId};
use rmcp::{Peer, RoleClient};

/// How long the cancellations may take to go out before the session
/// closes anyway.
const SEND_WITHIN: Duration = Duration::from_millis(200);

/// The open requests of one server's current session.
#[derive(Clone, Default)]
pub struct OpenStreams(Arc<Mutex<HashSet<RequestId>>>);

/// Removes its request from the set when dropped (the stream ended or was
/// cancelled by whoever opened it).
pub struct Open {
    streams: OpenStreams,
    id: RequestId,
}

impl Drop for Open {
    fn drop(&mut self) {
        self.streams.lock().remove(&self.id);
    }
}

impl OpenStreams {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<RequestId>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Note the request `id` open until the returned guard drops.
    pub fn open(&self, id: RequestId) -> Open {
        self.lock().insert(id.clone());
        Open {
            streams: self.clone(),
            id,
        }
    }

    /// Cancel every open request on `peer` (the session about to close),
    /// within [`SEND_WITHIN`].
    pub async fn cancel_all(&self, peer: &Peer<RoleClient>) {
        let ids: Vec<RequestId> = self.lock().drain().collect();
        if ids.is_empty() {
            return;
        }
        let send = async {
            for id in ids {
                let param: Result<CancelledNotificationParam, _> =
                    serde_json::from_value(serde_json::json!({
                        "requestId": id,
                        "reason": "the client is closing the connection",
                    }));
                if let Ok(param) = param {
                    let _ = peer.notify_cancelled(param).await;
                }
            }
        };
        let _ = tokio::time::timeout(SEND_WITHIN, send).await;
    }
}
