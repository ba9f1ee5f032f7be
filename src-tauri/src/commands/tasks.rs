//! Tasks a server runs for calls: the ones calls became this session, and
//! the server's own list where it offers one (`tasks/list`, 2025-11-25);
//! cancel one (`tasks/cancel`).

use tauri::{Runtime, State};
use workbench_app::tasks::{self};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_tasks<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<crate::wire::TaskList, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(tasks::list(&state.workbench, &server).await) }.await)
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_task<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    task_id: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { tasks::cancel(&state.workbench, &server, &task_id).await }.await)
}
