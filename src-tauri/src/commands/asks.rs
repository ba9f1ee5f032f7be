//! What servers ask a person (sampling, elicitation), the roots offered to
//! each server, and its logging level.

use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_core::asks::{Answer, PendingAsk};

use crate::state::AppState;

/// Asks waiting for an answer, oldest first (the window also gets `AskReceived`).
#[tauri::command]
#[specta::specta]
pub async fn pending_asks<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<PendingAsk>, ErrorInfo> {
    Ok(state.workbench.asks().pending())
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
) -> Result<(), ErrorInfo> {
    let answer = match (result, refusal) {
        (Some(v), _) => Answer::Result(v),
        (None, why) => Answer::Refuse(why.unwrap_or_else(|| "refused by the user".into())),
    };
    Ok(state.workbench.asks().answer(id, answer)?)
}

/// Decline every waiting ask of `server` (the dialog's "decline all from
/// this server"); returns how many.
#[tauri::command]
#[specta::specta]
pub async fn decline_server_asks<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<u32, ErrorInfo> {
    let n = state.workbench.asks().decline_all(
        &server,
        "declined by the user (all of this server's requests)",
    );
    Ok(n as u32)
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
) -> Result<(), ErrorInfo> {
    let url = state.workbench.asks().url_to_open(id)?;
    tracing::info!(ask = id, "opening the address an elicitation gave");
    tracing::debug!(ask = id, %url, "the elicitation's address");
    open::that_detached(&url).map_err(|e| ErrorInfo {
        code: workbench_core::ErrorCode::Refused,
        message: format!(
            "could not open a browser for {url}: {e} (copy the address into a browser, then accept)"
        ),
    })
}

/// The roots a server sees (`roots/list`), e.g. `[{"uri": "file:///src", "name": "src"}]`.
#[tauri::command]
#[specta::specta]
pub async fn set_roots<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    roots: Vec<serde_json::Value>,
) -> Result<(), ErrorInfo> {
    Ok(state.workbench.set_roots(&server, roots).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn get_roots<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<Vec<serde_json::Value>, ErrorInfo> {
    Ok(state.workbench.asks().roots(&server))
}

/// Ask a server to send log messages at `level` and above.
#[tauri::command]
#[specta::specta]
pub async fn set_log_level<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    level: String,
) -> Result<(), ErrorInfo> {
    // Either era: logging/setLevel, or the level in each request's _meta.
    state.workbench.set_log_level(&server, &level).await?;
    Ok(())
}
