//! What servers ask a person (sampling, elicitation), the roots offered to
//! each server, and its logging level.

use tauri::{Runtime, State};
use workbench_app::ErrorCode;
use workbench_app::ErrorInfo;
use workbench_app::asks::{self};

use crate::state::AppState;

/// Asks waiting for an answer, oldest first (the window also gets `AskReceived`).
#[tauri::command]
#[specta::specta]
pub async fn pending_asks<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::PendingAsk>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(asks::pending(&state.workbench)) }.await)
}

/// Answer ask `id` with the result object to send back, or refuse it with a
/// reason (the server gets an error; an elicitation is declined).
#[tauri::command]
#[specta::specta]
pub async fn answer_ask<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: u32,
    result: Option<serde_json::Value>,
    refusal: Option<String>,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { asks::answer(&state.workbench, id, result, refusal) }.await)
}

/// Decline every waiting ask of `server` (the dialog's "decline all from
/// this server"); returns how many.
#[tauri::command]
#[specta::specta]
pub async fn decline_server_asks<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<u32, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(asks::decline_server(&state.workbench, &server)) }.await)
}

/// Open the address a URL-mode elicitation gives in the system browser,
/// after the person chose to. The address comes from the waiting ask itself
/// (never from the window) and must be http or https.
#[tauri::command]
#[specta::specta]
pub async fn open_ask_url<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: u32,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let url = asks::url_to_open(&state.workbench, id)?;
            tracing::info!(ask = id, "opening the address an elicitation gave");
            tracing::debug!(ask = id, %url, "the elicitation's address");
            open::that_detached(&url).map_err(|e| ErrorInfo {
        code: ErrorCode::Refused,
        message: format!(
            "could not open a browser for {url}: {e} (copy the address into a browser, then accept)"
        ),
    })
        }
        .await,
    )
}

/// The roots a server sees (`roots/list`), e.g. `[{"uri": "file:///src", "name": "src"}]`.
#[tauri::command]
#[specta::specta]
pub async fn set_roots<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    roots: Vec<serde_json::Value>,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { asks::set_roots(&state.workbench, &server, roots).await }.await)
}

#[tauri::command]
#[specta::specta]
pub async fn get_roots<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<Vec<serde_json::Value>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(asks::roots(&state.workbench, &server)) }.await)
}

/// Ask a server to send log messages at `level` and above.
#[tauri::command]
#[specta::specta]
pub async fn set_log_level<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    level: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { asks::set_log_level(&state.workbench, &server, &level).await }.await,
    )
}
