#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// Which form of tasks a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
pub enum TaskForm {
    /// `params.task`, `tasks/result` (protocol 2025-11-25).
    #[serde(rename = "2025-11-25")]
    V2025,
    /// The `io.modelcontextprotocol/tasks` extension (2026-07-28).
    #[serde(rename = "extension")]
    Extension,
}
/// A task as last seen.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct TaskState {
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed`, `cancelled` (as sent).
    pub status: String,
    pub status_message: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub ttl_ms: Option<u64>,
    pub created_at: Option<String>,
    pub last_updated_at: Option<String>,
    pub form: TaskForm,
    /// The tool whose call became this task, and its arguments (when it
    /// became one here; a task the server lists alone has neither).
    pub tool: Option<String>,
    pub arguments: Option<Value>,
}
crate::wire::to_wire!(workbench_core::task::TaskState => TaskState);
impl From<workbench_core::task::TaskState> for TaskState {
    fn from(v: workbench_core::task::TaskState) -> Self {
        let workbench_core::task::TaskState {
            task_id,
            status,
            status_message,
            poll_interval_ms,
            ttl_ms,
            created_at,
            last_updated_at,
            form,
            tool,
            arguments,
        } = v;
        Self {
            task_id,
            status,
            status_message,
            poll_interval_ms,
            ttl_ms,
            created_at,
            last_updated_at,
            form: form.into(),
            tool,
            arguments,
        }
    }
}
crate::wire::to_wire!(workbench_core::task::TaskForm => TaskForm);
impl From<workbench_core::task::TaskForm> for TaskForm {
    fn from(v: workbench_core::task::TaskForm) -> Self {
        match v {
            workbench_core::task::TaskForm::V2025 => Self::V2025,
            workbench_core::task::TaskForm::Extension => Self::Extension,
        }
    }
}
