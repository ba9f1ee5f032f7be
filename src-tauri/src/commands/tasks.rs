//! Tasks a server runs for calls: the ones calls became this session, and
//! the server's own list where it offers one (`tasks/list`, 2025-11-25);
//! cancel one (`tasks/cancel`).

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_core::{ErrorInfo, TaskForm, TaskState};

use crate::state::AppState;

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TaskList {
    /// Newest first: the server's list merged over the tasks seen here.
    pub tasks: Vec<TaskState>,
    /// The form the server speaks (None: not connected).
    pub form: Option<TaskForm>,
    /// Why the server's own list is not in it (no tasks/list, or it failed).
    pub note: Option<String>,
}

#[tauri::command]
#[specta::specta]
pub async fn list_tasks<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<TaskList, ErrorInfo> {
    let wb = &state.workbench;
    let mut tasks = wb.tasks_seen(&server);
    let form = wb.task_form(&server).ok();
    let offers_list = wb
        .server(&server)
        .ok()
        .and_then(|h| h.status().info)
        .is_some_and(|i| i.capabilities["tasks"]["list"].is_object());
    let note = match form {
        Some(TaskForm::V2025) if offers_list => {
            match wb.task_request(&server, "list", None).await {
                Ok(out) => {
                    let listed = out.result["tasks"].as_array().cloned().unwrap_or_default();
                    tasks = workbench_core::workbench::merge_listed(tasks, &listed);
                    None
                }
                Err(e) => Some(format!("tasks/list failed: {e}")),
            }
        }
        Some(TaskForm::V2025) => Some("the server does not offer tasks/list: these are the tasks calls became here".into()),
        Some(TaskForm::Extension) => Some("the 2026-07-28 tasks extension has no tasks/list: these are the tasks calls became here".into()),
        None => None,
    };
    Ok(TaskList { tasks, form, note })
}

#[tauri::command]
#[specta::specta]
pub async fn cancel_task<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    task_id: String,
) -> Result<(), ErrorInfo> {
    state
        .workbench
        .task_request(&server, "cancel", Some(&task_id))
        .await?;
    Ok(())
}
