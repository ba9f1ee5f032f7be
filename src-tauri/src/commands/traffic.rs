//! Traffic: the log stays in the core; the window asks for the page it
//! shows. `TrafficGrew` events (see `events.rs`) say when to ask again.

use tauri::{Runtime, State};
use workbench_app::traffic::{self, TrafficQuery};

use crate::state::AppState;

/// The entries matching `query` (server, direction, method, text) in the
/// window it asks for, and how many match in all.
#[tauri::command]
#[specta::specta]
pub async fn traffic_page<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    query: crate::wire::TrafficQuery,
) -> Result<crate::wire::TrafficPage, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let query: TrafficQuery = query.into();
            traffic::page(&state.workbench, query).await
        }
        .await,
    )
}

/// What an export wrote.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
pub struct Exported {
    pub path: String,
    pub entries: u32,
}

/// Export the entries matching `query` (all of them, whatever its window)
/// as JSON lines to a file the person picks; None when they cancelled.
/// Secrets are masked in the log itself, so they are masked here too.
#[tauri::command]
#[specta::specta]
pub async fn export_traffic<R: Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    query: crate::wire::TrafficQuery,
) -> Result<Option<Exported>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let query: TrafficQuery = query.into();
            let (text, entries) = traffic::jsonl(&state.workbench, query).await?;
            let path =
                crate::commands::files::save_as(&app, "mcp-traffic.jsonl", text.as_bytes()).await?;
            Ok(path.map(|path| Exported { path, entries }))
        }
        .await,
    )
}

crate::wire::as_is!(Exported);
