//! The lists' freshness: what each server's answers said of caching
//! (2026-07-28 `ttlMs` and `cacheScope`), and the person's Refresh, which
//! asks every list again whether or not it is fresh.

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_core::cache::CacheHint;

use crate::state::AppState;

/// One list's cache hints, as its server's last answer gave them.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ListCache {
    pub server: String,
    /// `tools`, `resources`, `resourceTemplates`, `prompts` or `skills`.
    pub list: String,
    /// When it was read is in it: the window says how fresh it is now.
    pub hint: CacheHint,
}

#[tauri::command]
#[specta::specta]
pub async fn cache_hints<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<ListCache>, ErrorInfo> {
    let mut out = Vec::new();
    for handle in state.workbench.servers() {
        let Some(lists) = state.workbench.catalog().server(handle.name()) else {
            continue;
        };
        for (list, hint) in lists.cache {
            out.push(ListCache {
                server: handle.name().to_string(),
                list,
                hint,
            });
        }
    }
    Ok(out)
}

/// Ask a server's lists again (every server's when None), fresh or not.
#[tauri::command]
#[specta::specta]
pub async fn refresh_lists<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: Option<String>,
) -> Result<u32, ErrorInfo> {
    let asked = state
        .workbench
        .revalidate_lists(server.as_deref(), true)
        .await;
    Ok(u32::try_from(asked.len()).unwrap_or(u32::MAX))
}
