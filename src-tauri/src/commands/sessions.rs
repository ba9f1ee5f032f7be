//! Sessions: the connections hosts made through `mcpwb tap` (kept in the
//! shared store by the tap's process; the window reads them as they grow).

use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_store::{TapMessage, TapRow};

use super::history::{failed, store};
use crate::state::AppState;

/// The sessions kept, newest first (at most `limit`).
#[tauri::command]
#[specta::specta]
pub async fn list_sessions<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    limit: u32,
) -> Result<Vec<TapRow>, ErrorInfo> {
    let store = store(&state)?;
    tokio::task::spawn_blocking(move || store.taps(limit))
        .await
        .map_err(|e| failed(e.to_string()))?
        .map_err(|e| failed(format!("the sessions: {e}")))
}

/// One session's messages in order.
#[tauri::command]
#[specta::specta]
pub async fn session_messages<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: i64,
) -> Result<Vec<TapMessage>, ErrorInfo> {
    let store = store(&state)?;
    tokio::task::spawn_blocking(move || store.tap_messages(id))
        .await
        .map_err(|e| failed(e.to_string()))?
        .map_err(|e| failed(format!("the session's messages: {e}")))
}
