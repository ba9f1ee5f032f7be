//! The lists' freshness: what each server's answers said of caching
//! (2026-07-28 `ttlMs` and `cacheScope`), and the person's Refresh, which
//! asks every list again whether or not it is fresh.

use tauri::{Runtime, State};
use workbench_app::offers::{self};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn cache_hints<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::ListCache>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(offers::cache_hints(&state.workbench)) }.await)
}

/// Ask a server's lists again (every server's when None), fresh or not.
#[tauri::command]
#[specta::specta]
pub async fn refresh_lists<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: Option<String>,
) -> Result<u32, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let asked = offers::refresh(&state.workbench, server.as_deref()).await;
            Ok(u32::try_from(asked).unwrap_or(u32::MAX))
        }
        .await,
    )
}
