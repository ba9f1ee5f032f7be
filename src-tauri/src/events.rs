//! Typed events the window listens to; forwarded from the workbench's stream.

use crate::wire::{PendingAsk, ServerStatus};
use serde::{Deserialize, Serialize};
use tauri::{AppHandle, Runtime};
use tauri_specta::Event;
use workbench_core::Workbench;

/// A server's state changed (sent the moment it changes).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct ServerStatusChanged {
    #[specta(type = crate::wire::ServerStatus)]
    #[serde(deserialize_with = "never")]
    pub status: crate::wire::ServerStatus,
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
    /// The app itself saved the file (the window or the agent), not an edit elsewhere.
    pub own: bool,
    pub error: Option<String>,
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    /// Of the added and changed, those waiting for the person's trust (they
    /// do not start until trusted).
    pub untrusted: Vec<String>,
    /// Of the added and changed, those disabled (they do not start).
    pub disabled: Vec<String>,
}

/// A server's tools, resources or prompts were (re)fetched.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct CatalogChanged {
    pub server: String,
}

/// The traffic log grew: how many entries it holds and the newest one's
/// sequence number. Sent at most four times a second, however fast the
/// servers talk; the window then asks for the page it shows.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct TrafficGrew {
    pub total: u32,
    pub last_seq: u64,
}

/// A server asked something only a person can answer.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct AskReceived {
    #[specta(type = crate::wire::PendingAsk)]
    #[serde(deserialize_with = "never_ask")]
    pub ask: crate::wire::PendingAsk,
}

fn never_ask<'de, D: serde::Deserializer<'de>>(_: D) -> Result<PendingAsk, D::Error> {
    Err(serde::de::Error::custom("asks are sent by the app only"))
}

/// An ask was answered, cancelled by its server, or timed out.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct AskClosed {
    pub id: u32,
}

/// A log message a server sent (`notifications/message`).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct ServerLogged {
    pub server: String,
    pub level: String,
    pub logger: Option<String>,
    pub data: String,
}

/// A subscribed resource changed on the server.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct ResourceUpdated {
    pub server: String,
    pub uri: String,
}

/// A step-by-step sign-in finished a step and waits for the next click.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct AuthStepped {
    pub server: String,
    pub timeline: crate::wire::Timeline,
}

/// A sign-in's page is being opened in the system browser: its address,
/// for a person whose browser did not open (and why, when it did not).
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct AuthBrowser {
    pub server: String,
    pub url: String,
    pub error: Option<String>,
}

/// A server's surface changed since it was last ready (after a restart or
/// a reload): the diff and the doctor's new findings.
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct SurfaceChanged {
    pub change: crate::wire::SurfaceChange,
}

/// Files a server's `dev.watch` names changed: it is restarting.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct DevReloaded {
    pub server: String,
    pub files: Vec<String>,
}

/// A task a call became changed status (any caller's: the window, a chat,
/// the bridge).
#[derive(Debug, Clone, Serialize, specta::Type, tauri_specta::Event)]
pub struct TaskChanged {
    pub server: String,
    pub task: crate::wire::TaskState,
}

/// Calls were written to the history (any caller's): the lists are stale.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type, tauri_specta::Event)]
pub struct HistoryGrew {
    /// How many calls this run has written so far.
    pub written: u32,
}

/// Tell the window the history grew, at most every 250 ms while it does.
pub fn forward_history<R: Runtime>(app: AppHandle<R>, calls: &workbench_calls::Calls) {
    let Some(mut rx) = calls.history_written() else {
        return;
    };
    tauri::async_runtime::spawn(async move {
        while rx.changed().await.is_ok() {
            let written = *rx.borrow_and_update();
            let _ = (HistoryGrew {
                written: u32::try_from(written).unwrap_or(u32::MAX),
            })
            .emit(&app);
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
    });
}

/// Forward each surface change to the window.
pub fn forward_surfaces<R: Runtime>(
    app: AppHandle<R>,
    surfaces: &workbench_doctor::follow::Surfaces,
) {
    let mut rx = surfaces.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(change) => {
                    let _ = (SurfaceChanged {
                        change: change.into(),
                    })
                    .emit(&app);
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => return,
            }
        }
    });
}

/// Tell the window the log grew, at most every 250 ms while it does.
fn forward_traffic<R: Runtime>(app: AppHandle<R>, workbench: &Workbench) {
    use tokio::sync::broadcast::error::RecvError;
    let traffic = workbench.traffic().clone();
    let mut rx = traffic.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            }
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
            // Whatever came meanwhile is in the figures below.
            rx = rx.resubscribe();
            let (total, last_seq) = traffic.stats();
            let _ = (TrafficGrew {
                total: u32::try_from(total).unwrap_or(u32::MAX),
                last_seq,
            })
            .emit(&app);
        }
    });
}

/// Forward the workbench's events to the window until the app exits.
/// The App resources read from `server` are read again next time.
fn forget_apps<R: Runtime>(app: &AppHandle<R>, server: &str) {
    use tauri::Manager;
    if let Some(apps) = app.try_state::<crate::apps::Apps>() {
        apps.forget_server(server);
    }
}

pub fn forward<R: Runtime>(app: AppHandle<R>, workbench: &Workbench) {
    forward_traffic(app.clone(), workbench);
    let mut rx = workbench.subscribe();
    tauri::async_runtime::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(workbench_core::events::Event::Status { status }) => {
                    // A server that restarts may serve other App HTML.
                    forget_apps(&app, &status.name);
                    if let Err(e) = (ServerStatusChanged {
                        status: (*status).into(),
                    })
                    .emit(&app)
                    {
                        tracing::warn!(error = %e, "could not send a status event to the window");
                    }
                }
                Ok(workbench_core::events::Event::ConfigApplied { changes, own }) => {
                    use workbench_core::config::watch::HeldBy;
                    let held = |why: HeldBy| -> Vec<String> {
                        changes
                            .held
                            .iter()
                            .filter(|h| h.why == why)
                            .map(|h| h.name.clone())
                            .collect()
                    };
                    let _ = ConfigChanged {
                        own,
                        error: None,
                        untrusted: held(HeldBy::Untrusted),
                        disabled: held(HeldBy::Disabled),
                        added: changes.added,
                        changed: changes.changed,
                        removed: changes.removed,
                    }
                    .emit(&app);
                }
                Ok(workbench_core::events::Event::Ask { ask }) => {
                    let _ = (AskReceived { ask: ask.into() }).emit(&app);
                }
                Ok(workbench_core::events::Event::AskClosed { id }) => {
                    let _ = (AskClosed { id }).emit(&app);
                }
                Ok(workbench_core::events::Event::ServerLog {
                    server,
                    level,
                    logger,
                    data,
                }) => {
                    let _ = (ServerLogged {
                        server,
                        level,
                        logger,
                        data,
                    })
                    .emit(&app);
                }
                Ok(workbench_core::events::Event::ResourceUpdated { server, uri }) => {
                    let _ = (ResourceUpdated { server, uri }).emit(&app);
                }
                Ok(workbench_core::events::Event::DevReload { server, files }) => {
                    let _ = (DevReloaded { server, files }).emit(&app);
                }
                Ok(workbench_core::events::Event::Task { server, task }) => {
                    let _ = (TaskChanged {
                        server,
                        task: (*task).into(),
                    })
                    .emit(&app);
                }
                Ok(workbench_core::events::Event::CatalogChanged { server }) => {
                    forget_apps(&app, &server);
                    let _ = (CatalogChanged { server }).emit(&app);
                }
                Ok(workbench_core::events::Event::ConfigError { message }) => {
                    let _ = ConfigChanged {
                        own: false,
                        error: Some(message),
                        added: Vec::new(),
                        changed: Vec::new(),
                        removed: Vec::new(),
                        untrusted: Vec::new(),
                        disabled: Vec::new(),
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
