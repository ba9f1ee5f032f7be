//! The demo server's log messages to its client (`notifications/message`),
//! sent only at or above the level the session set (`logging/setLevel`).

use rmcp::RoleServer;
use rmcp::model::LoggingMessageNotificationParam;
use serde_json::json;

use super::{DemoServer, from_json};

pub(super) fn level_rank(level: &str) -> u8 {
    [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ]
    .iter()
    .position(|l| *l == level)
    .unwrap_or(1) as u8
}

impl DemoServer {
    /// Tell the client `message` at `level`, if the session asked for it.
    pub(super) async fn log(&self, peer: &rmcp::Peer<RoleServer>, level: &str, message: &str) {
        let threshold = serde_json::to_value(*self.inner.log_level.lock().await)
            .ok()
            .and_then(|v| v.as_str().map(level_rank))
            .unwrap_or(0);
        if level_rank(level) < threshold {
            return;
        }
        let Ok(param) = from_json::<LoggingMessageNotificationParam>(json!({
            "level": level, "logger": self.inner.options.name, "data": message
        })) else {
            return;
        };
        #[allow(deprecated)]
        let _ = peer.notify_logging_message(param).await;
    }
}
