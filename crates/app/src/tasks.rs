//! Tasks a server runs for calls: the ones calls became this session with
//! the server's own list merged over them where it offers one
//! (`tasks/list`, 2025-11-25), and a task asked about or cancelled in the
//! form the server speaks — the window's Tasks and `mcpwb task`.

use serde::Serialize;
pub use workbench_core::{CallOutcome, TaskForm, TaskState};
use workbench_core::{ErrorInfo, Workbench};

/// A server's tasks, as the window lists them.
#[derive(Debug, Clone, Serialize)]
pub struct TaskList {
    /// Newest first: the server's list merged over the tasks seen here.
    pub tasks: Vec<TaskState>,
    /// The form the server speaks (None: not connected).
    pub form: Option<TaskForm>,
    /// Why the server's own list is not in it (no tasks/list, or it failed).
    pub note: Option<String>,
}

pub async fn list(wb: &Workbench, server: &str) -> TaskList {
    let mut tasks = wb.tasks_seen(server);
    let form = wb.task_form(server).ok();
    let offers_list = wb
        .server(server)
        .ok()
        .and_then(|h| h.status().info)
        .is_some_and(|i| i.capabilities["tasks"]["list"].is_object());
    let note = match form {
        Some(TaskForm::V2025) if offers_list => match wb.task_request(server, "list", None).await {
            Ok(out) => {
                let listed = out.result["tasks"].as_array().cloned().unwrap_or_default();
                tasks = workbench_core::workbench::merge_listed(tasks, &listed);
                None
            }
            Err(e) => Some(format!("tasks/list failed: {e}")),
        },
        Some(TaskForm::V2025) => Some(
            "the server does not offer tasks/list: these are the tasks calls became here".into(),
        ),
        Some(TaskForm::Extension) => Some(
            "the 2026-07-28 tasks extension has no tasks/list: these are the tasks calls became here"
                .into(),
        ),
        None => None,
    };
    TaskList { tasks, form, note }
}

/// Ask the server to cancel a task.
pub async fn cancel(wb: &Workbench, server: &str, id: &str) -> Result<(), ErrorInfo> {
    wb.task_request(server, "cancel", Some(id)).await?;
    Ok(())
}

/// `tasks/get|result|list|cancel` as the server answers it, and the form it
/// speaks (to read the answer's tasks).
pub async fn ask(
    wb: &Workbench,
    server: &str,
    what: &str,
    id: Option<&str>,
) -> Result<(CallOutcome, TaskForm), ErrorInfo> {
    let out = wb.task_request(server, what, id).await?;
    Ok((out, wb.task_form(server)?))
}
