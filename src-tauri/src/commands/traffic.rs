//! Traffic: what the log holds now; new entries arrive as `TrafficAppended`
//! events (see `events.rs`).

use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_core::traffic::TrafficEntry;

use crate::state::AppState;

/// Every entry kept (of one server, or of all), oldest first.
#[tauri::command]
#[specta::specta]
pub async fn traffic_entries<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: Option<String>,
) -> Result<Vec<TrafficEntry>, ErrorInfo> {
    Ok(state
        .workbench
        .traffic()
        .entries(server.as_deref())
        .into_iter()
        .map(|e| (*e).clone())
        .collect())
}
