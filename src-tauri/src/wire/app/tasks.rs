#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// A server's tasks, as the window lists them.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TaskList {
    /// Newest first: the server's list merged over the tasks seen here.
    pub tasks: Vec<crate::wire::core::TaskState>,
    /// The form the server speaks (None: not connected).
    pub form: Option<crate::wire::core::TaskForm>,
    /// Why the server's own list is not in it (no tasks/list, or it failed).
    pub note: Option<String>,
}
crate::wire::to_wire!(workbench_app::tasks::TaskList => TaskList);
impl From<workbench_app::tasks::TaskList> for TaskList {
    fn from(v: workbench_app::tasks::TaskList) -> Self {
        let workbench_app::tasks::TaskList { tasks, form, note } = v;
        Self {
            tasks: tasks.into_iter().map(|v| v.into()).collect(),
            form: form.map(|v| v.into()),
            note,
        }
    }
}
