//! Traffic: the log stays in the core; the window asks for the page it
//! shows. `TrafficGrew` events (see `events.rs`) say when to ask again.

use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_core::traffic::{TrafficPage, TrafficQuery};

use crate::state::AppState;

/// The entries matching `query` (server, direction, method, text) in the
/// window it asks for, and how many match in all.
#[tauri::command]
#[specta::specta]
pub async fn traffic_page<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    query: TrafficQuery,
) -> Result<TrafficPage, ErrorInfo> {
    let traffic = state.workbench.traffic().clone();
    // A search of 100,000 entries takes milliseconds: off the async workers.
    tokio::task::spawn_blocking(move || traffic.query(&query))
        .await
        .map_err(|e| workbench_core::Error::Internal(e.to_string()).into())
}
