//! Tasks a server runs for calls: the ones calls became this session, and
//! the server's own list where it offers one (`tasks/list`, 2025-11-25);
//! cancel one (`tasks/cancel`).

use tauri::{Runtime, State};
use workbench_app::ErrorInfo;
use workbench_app::tasks::{self, TaskList};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_tasks<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<TaskList, ErrorInfo> {
    Ok(tasks::list(&state.workbench, &server).await)
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_task<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    task_id: String,
) -> Result<(), ErrorInfo> {
    tasks::cancel(&state.workbench, &server, &task_id).await
}
