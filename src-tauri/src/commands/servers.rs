//! Servers: what mcp.json lists, their states, restart and stop
//! (`workbench_app::servers`).

use tauri::{Runtime, State};
use workbench_app::servers::{self};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_servers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<crate::wire::ServerList, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { servers::read_server_list(&state.config_path, state.project_dir.as_deref()) }
            .await,
    )
}

/// The live state of every server (empty when the config could not be read).
#[tauri::command]
#[specta::specta]
pub async fn server_statuses<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::ServerStatus>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(servers::statuses(&state.workbench)) }.await)
}

/// A server's life: each change of state with its time, and for a failure
/// its code and reason (kept after it is back), oldest first.
#[tauri::command]
#[specta::specta]
pub async fn server_life<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<Vec<crate::wire::LifeEvent>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { servers::life(&state.workbench, &name) }.await)
}

/// Restart a server (a stopped one starts).
#[tauri::command]
#[specta::specta]
pub async fn restart_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { servers::restart(&state.workbench, &name).await }.await)
}

/// Stop a server; it stays stopped (no automatic restart) until started.
#[tauri::command]
#[specta::specta]
pub async fn stop_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { servers::stop(&state.workbench, &name).await }.await)
}

/// The window tells how far its start has come: once it has painted the
/// servers may start (one after another); both stages are logged with the
/// time since launch.
#[tauri::command]
#[specta::specta]
pub async fn window_ready<R: Runtime>(
    _app: tauri::AppHandle<R>,
    gate: State<'_, crate::startup::StartGate>,
    state: State<'_, AppState>,
    stage: crate::startup::WindowStage,
    page_ms: u32,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            crate::startup::window_stage(
                &gate,
                stage,
                page_ms,
                workbench_app::servers::statuses(&state.workbench).len(),
            );
            Ok(())
        }
        .await,
    )
}
