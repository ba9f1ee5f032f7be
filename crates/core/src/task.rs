//! A task as last seen, in either form a server speaks: read from a call's
//! answer, a `tasks/get` or a server's `tasks/list`, and the tasks calls
//! became this session (per server). How a task is followed: `workbench/tasks.rs`.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

/// The poll interval when a server names none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The shortest interval honoured between two `tasks/get` (a server asking
/// for 0, or waking the poll with a flood of notifications, does not get a
/// spin: played, 3,880 `tasks/get` in 90 s).
pub(super) const MIN_POLL: Duration = Duration::from_millis(100);

/// How many tasks are remembered per server.
const SEEN_MAX: usize = 200;

/// The tasks calls became this session, per server (a server's own
/// `tasks/list` may not exist: the 2026-07-28 extension has none).
#[derive(Default)]
pub(super) struct Seen(std::sync::Mutex<std::collections::HashMap<String, Vec<TaskState>>>);

impl Seen {
    /// The tasks of `server`, newest first.
    pub(super) fn of(&self, server: &str) -> Vec<TaskState> {
        let seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(server)
            .map(|l| l.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    pub(super) fn note(&self, server: &str, task: &TaskState) {
        let mut seen = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let list = seen.entry(server.to_string()).or_default();
        list.retain(|t| t.task_id != task.task_id);
        list.push(task.clone());
        if list.len() > SEEN_MAX {
            list.remove(0);
        }
    }
}

/// Which form of tasks a server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TaskForm {
    /// `params.task`, `tasks/result` (protocol 2025-11-25).
    #[serde(rename = "2025-11-25")]
    V2025,
    /// The `io.modelcontextprotocol/tasks` extension (2026-07-28).
    #[serde(rename = "extension")]
    Extension,
}

/// A task as last seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
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

impl TaskState {
    /// The task a result hands back instead of the answer, if it is one.
    pub fn handle(result: &Value) -> Option<TaskState> {
        if result.get("resultType").and_then(Value::as_str) == Some("task") {
            return TaskState::read(result, TaskForm::Extension);
        }
        // A 2025-11-25 CreateTaskResult: the task under `task`, no content.
        match result.get("task") {
            Some(task) if result.get("content").is_none() => TaskState::read(task, TaskForm::V2025),
            _ => None,
        }
    }

    /// A task object of either form (`tasks/get`'s answer, a notification's params).
    pub fn read(v: &Value, form: TaskForm) -> Option<TaskState> {
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let n = |a: &str, b: &str| v.get(a).or_else(|| v.get(b)).and_then(Value::as_u64);
        Some(TaskState {
            task_id: s("taskId")?,
            status: s("status").unwrap_or_else(|| "working".into()),
            status_message: s("statusMessage"),
            poll_interval_ms: n("pollIntervalMs", "pollInterval"),
            ttl_ms: n("ttlMs", "ttl"),
            created_at: s("createdAt"),
            last_updated_at: s("lastUpdatedAt"),
            form,
            tool: None,
            arguments: None,
        })
    }

    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }

    pub(super) fn poll(&self) -> Duration {
        self.poll_interval_ms
            .map_or(DEFAULT_POLL, Duration::from_millis)
            .max(MIN_POLL)
    }

    /// Whether a person would see a change (not only the update time).
    pub(super) fn differs(&self, other: &TaskState) -> bool {
        self.status != other.status || self.status_message != other.status_message
    }
}

/// The most tasks a server's own `tasks/list` adds to the ones seen here.
pub const MAX_LISTED_TASKS: usize = 1_000;

/// The tasks seen here with a server's own `tasks/list` answer (2025-11-25)
/// over them: a listed task replaces the one seen under its id, the others
/// are added (at most [`MAX_LISTED_TASKS`]). Linear in both.
pub fn merge_listed(mut seen: Vec<TaskState>, listed: &[Value]) -> Vec<TaskState> {
    let mut at: std::collections::HashMap<String, usize> = seen
        .iter()
        .enumerate()
        .map(|(i, t)| (t.task_id.clone(), i))
        .collect();
    let mut added = 0usize;
    for task in listed
        .iter()
        .filter_map(|t| TaskState::read(t, TaskForm::V2025))
    {
        match at.get(&task.task_id) {
            // What the call was (seen here) stays with what the server says now.
            Some(&i) => {
                let (tool, arguments) = (seen[i].tool.take(), seen[i].arguments.take());
                seen[i] = TaskState {
                    tool,
                    arguments,
                    ..task
                };
            }
            None if added < MAX_LISTED_TASKS => {
                at.insert(task.task_id.clone(), seen.len());
                seen.push(task);
                added += 1;
            }
            None => {}
        }
    }
    seen
}

pub fn offers_2025_tasks(info: &crate::status::ServerInfo) -> bool {
    info.protocol_version.as_str() < "2026"
        && info.capabilities["tasks"]["requests"]["tools"]["call"].is_object()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn both_forms_of_a_task_handle_are_read_and_results_are_not() {
        let v2025 = json!({ "task": { "taskId": "a", "status": "working", "pollInterval": 50, "ttl": 1000 } });
        let t = TaskState::handle(&v2025).unwrap();
        assert_eq!(
            (t.form, t.poll_interval_ms, t.ttl_ms),
            (TaskForm::V2025, Some(50), Some(1000))
        );
        let ext = json!({ "resultType": "task", "taskId": "b", "status": "working", "pollIntervalMs": 250 });
        let t = TaskState::handle(&ext).unwrap();
        assert_eq!(
            (t.form, t.task_id.as_str(), t.poll()),
            (TaskForm::Extension, "b", Duration::from_millis(250))
        );
        // Faster than the floor: the floor.
        let fast = json!({ "resultType": "task", "taskId": "f", "status": "working", "pollIntervalMs": 20 });
        assert_eq!(TaskState::handle(&fast).unwrap().poll(), MIN_POLL);
        // A tool's result that happens to carry a `task` field is a result.
        assert!(TaskState::handle(&json!({ "content": [], "task": { "taskId": "c" } })).is_none());
        assert!(TaskState::handle(&json!({ "content": [] })).is_none());
        let listed: Vec<Value> = (0..50_000)
            .map(|i| json!({ "taskId": format!("t{}", i % 20_000), "status": "working" }))
            .collect();
        let seen = vec![TaskState::handle(&v2025).unwrap()];
        let merged = merge_listed(seen, &listed);
        assert_eq!(merged.len(), 1 + MAX_LISTED_TASKS);
        assert_eq!(merged[0].task_id, "a");
        let again = merge_listed(
            merged.clone(),
            &[json!({ "taskId": "t5", "status": "completed" })],
        );
        assert_eq!(again.len(), merged.len());
        assert_eq!(
            again.iter().find(|t| t.task_id == "t5").unwrap().status,
            "completed"
        );
        let zero = json!({ "resultType": "task", "taskId": "z", "status": "working", "pollIntervalMs": 0 });
        assert_eq!(TaskState::handle(&zero).unwrap().poll(), MIN_POLL);
    }
}
