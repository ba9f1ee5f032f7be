//! Typed events the window listens to; forwarded from the workbench's stream.

use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime};
use tauri_specta::Event;
use workbench_core::Workbench;
use workbench_core::connect::ServerStatus;

/// A server's state changed (sent the moment it changes).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct ServerStatusChanged {
    #[specta(type = ServerStatus)]
    #[serde(deserialize_with = "never")]
    pub status: ServerStatus,
}

fn never<'de, D: serde::Deserializer<'de>>(_: D) -> Result<ServerStatus, D::Error> {
    Err(serde::de::Error::custom(
        "server status events are sent by the app only",
    ))
}

/// The config file changed on disk (an edit elsewhere, or a save): the list
/// is stale. `error` is set when the new text cannot be used (the servers
/// keep running as they were).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct ConfigChanged {
    pub error: Option<String>,
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
}

/// Forward the workbench's events to the window until the app exits.
pub fn forward<R: Runtime>(app: AppHandle<R>, workbench: &Workbench) {
    let mut rx = workbench.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(workbench_core::events::Event::Status { status }) => {
                    if let Err(e) = (ServerStatusChanged { status }).emit(&app) {
                        tracing::warn!(error = %e, "could not send a status event to the window");
                    }
                }
                Ok(workbench_core::events::Event::ConfigApplied { changes }) => {
                    let _ = ConfigChanged {
                        error: None,
                        added: changes.added,
                        changed: changes.changed,
                        removed: changes.removed,
                    }
                    .emit(&app);
                }
                Ok(workbench_core::events::Event::ConfigError { message }) => {
                    let _ = ConfigChanged {
                        error: Some(message),
                        added: Vec::new(),
                        changed: Vec::new(),
                        removed: Vec::new(),
                    }
                    .emit(&app);
                }
                Ok(_) => {}
                Err(tokio::sync::broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "the window missed events");
                }
                Err(_) => return,
            }
        }
    });
}
