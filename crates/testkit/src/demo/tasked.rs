//! The demo tools that run as tasks (the 2026-07-28 tasks extension,
//! `io.modelcontextprotocol/tasks`): one that may run as a task, and ones
//! that must — asking for input midway, failing, cancelled by the server
//! midway. A client that did not declare the extension gets a required
//! one refused (-32021) and the optional one answered directly. On a
//! 2025-11-25 session they are listed without `execution` and answered
//! directly (that era's tasks are the hand-written `tasks2025` server's).

use std::time::Duration;

use rmcp::model::*;
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData as McpError, RoleServer, service::RequestContext};
use serde_json::{Value, json};

use super::from_json;

/// The task tools' names.
pub const NAMES: [&str; 5] = [
    "task_report",
    "task_batch",
    "task_approval",
    "task_failing",
    "task_cancelled",
];

/// The tasks of this process: one store for every session (over HTTP a
/// 2026-07-28 session is one request, each with its own server value).
pub fn manager() -> &'static TaskManager {
    static TASKS: std::sync::OnceLock<TaskManager> = std::sync::OnceLock::new();
    TASKS.get_or_init(TaskManager::new)
}

/// How long the server takes to answer `tasks/get` about a task (its
/// `status_ms` argument): a slow status round, for a client's cancel
/// arriving in the middle of one.
pub fn status_delay(task_id: &str) -> Duration {
    let slow = SLOW.lock().unwrap_or_else(|e| e.into_inner());
    let ms = slow.as_ref().and_then(|m| m.get(task_id)).copied();
    Duration::from_millis(ms.unwrap_or(0))
}

static SLOW: std::sync::Mutex<Option<std::collections::HashMap<String, u64>>> =
    std::sync::Mutex::new(None);

/// The poll interval the demo's tasks suggest.
pub const POLL_MS: u64 = 100;

fn steps_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "steps": { "type": "integer", "minimum": 1, "maximum": 100, "default": 3, "description": "How many steps the work takes" },
            "step_ms": { "type": "integer", "minimum": 0, "maximum": 60000, "default": 300, "description": "How long each step takes, in milliseconds" },
            "poll_ms": { "type": "integer", "minimum": 10, "maximum": 60000, "default": 100, "description": "The poll interval the task suggests, in milliseconds" },
            "status_ms": { "type": "integer", "minimum": 0, "maximum": 10000, "default": 0, "description": "How long the server takes to answer each tasks/get about the task, in milliseconds" }
        }
    })
}

/// The definitions, as MCP JSON; `execution` only where tasks can be asked.
pub fn definitions(tasks: bool) -> Vec<Value> {
    let support = |s: &str| {
        if tasks {
            json!({ "taskSupport": s })
        } else {
            Value::Null
        }
    };
    let mut tools = vec![
        json!({
            "name": "task_report",
            "title": "Report (may run as a task)",
            "description": "Writes a report in steps; runs as a task when the client asks for tasks, directly otherwise.",
            "inputSchema": steps_schema(),
            "execution": support("optional"),
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }),
        json!({
            "name": "task_batch",
            "title": "Batch job (a task)",
            "description": "Processes a batch in steps, reporting each step in the task's status message. Runs only as a task.",
            "inputSchema": steps_schema(),
            "execution": support("required"),
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }),
        json!({
            "name": "task_approval",
            "title": "Needs approval midway (a task)",
            "description": "Starts a job, then asks the person to approve it (input required) before it finishes. Runs only as a task.",
            "inputSchema": { "type": "object", "properties": {} },
            "execution": support("required"),
            "annotations": { "readOnlyHint": false, "destructiveHint": false, "openWorldHint": false }
        }),
        json!({
            "name": "task_failing",
            "title": "Fails midway (a task)",
            "description": "Starts a job that fails after its first step with a JSON-RPC error. Runs only as a task.",
            "inputSchema": { "type": "object", "properties": {} },
            "execution": support("required"),
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }),
        json!({
            "name": "task_cancelled",
            "title": "Cancelled by the server (a task)",
            "description": "Starts a job that the server cancels after its first step. Runs only as a task.",
            "inputSchema": { "type": "object", "properties": {} },
            "execution": support("required"),
            "annotations": { "readOnlyHint": true, "openWorldHint": false }
        }),
    ];
    if !tasks {
        for tool in &mut tools {
            if let Some(t) = tool.as_object_mut() {
                t.remove("execution");
            }
        }
    }
    tools
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn steps(args: &Value) -> (u64, u64) {
    let steps = args
        .get("steps")
        .and_then(Value::as_u64)
        .unwrap_or(3)
        .clamp(1, 100);
    let ms = args
        .get("step_ms")
        .and_then(Value::as_u64)
        .unwrap_or(300)
        .min(60_000);
    (steps, ms)
}

/// Sleep `ms`, or stop if the task is cancelled meanwhile.
async fn step(task: &TaskContext, ms: u64) -> Result<(), TaskExit> {
    tokio::select! {
        _ = task.cancelled() => Err(TaskExit::Cancelled),
        _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(()),
    }
}

/// The work of one task tool, run inside the task.
async fn work(name: &str, args: Value, task: TaskContext) -> Result<CallToolResult, TaskExit> {
    let (n, ms) = steps(&args);
    match name {
        "task_report" | "task_batch" => {
            for i in 1..=n {
                task.set_status_message(format!("step {i} of {n}"));
                step(&task, ms).await?;
            }
            Ok(text(format!("{name} done after {n} steps")))
        }
        "task_approval" => {
            task.set_status_message("waiting for approval");
            let ask = from_json::<ElicitRequest>(json!({
                "method": "elicitation/create",
                "params": {
                    "message": "Approve the demo job?",
                    "requestedSchema": {
                        "type": "object",
                        "properties": { "approve": { "type": "boolean", "title": "Approve" } },
                        "required": ["approve"]
                    }
                }
            }))
            .map_err(TaskExit::Error)?;
            let answer = task
                .request_input("approval", InputRequest::Elicitation(ask))
                .await?;
            let approved = answer["action"] == "accept" && answer["content"]["approve"] == true;
            task.set_status_message("finishing");
            step(&task, ms).await?;
            Ok(text(if approved {
                "approved and done"
            } else {
                "not approved: nothing done"
            }))
        }
        "task_failing" => {
            task.set_status_message("step 1 of 2");
            step(&task, ms).await?;
            Err(TaskExit::Error(McpError::internal_error(
                "the demo job failed on purpose at step 2",
                None,
            )))
        }
        _ => {
            task.set_status_message("step 1 of 2");
            step(&task, ms).await?;
            Err(TaskExit::Cancelled)
        }
    }
}

/// Answer a call of a task tool: as a task where the client declared the
/// extension, refused (-32021) for a required one where it did not, and
/// directly for the optional one.
pub async fn call(
    request: &CallToolRequestParams,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let name = request.name.to_string();
    let args = Value::Object(request.arguments.clone().unwrap_or_default());
    let new_era = ctx
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    let declared = ctx
        .client_capabilities()
        .is_some_and(|c| c.supports_tasks());
    if !(new_era && declared) {
        if new_era && name != "task_report" {
            return Err(McpError::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ));
        }
        // Directly, as a server without tasks would.
        let (n, ms) = steps(&args);
        tokio::time::sleep(Duration::from_millis(n * ms)).await;
        return Ok(text(format!("{name} done after {n} steps (not as a task)")).into());
    }
    let poll = args
        .get("poll_ms")
        .and_then(Value::as_u64)
        .unwrap_or(POLL_MS)
        .clamp(10, 60_000);
    let options = TaskOptions::new()
        .with_poll_interval_ms(poll)
        .with_status_message("starting");
    let status_ms = args.get("status_ms").and_then(Value::as_u64);
    let seed = manager().spawn(options, move |task| Box::pin(work_owned(name, args, task)));
    if let Some(ms) = status_ms.filter(|ms| *ms > 0) {
        let mut slow = SLOW.lock().unwrap_or_else(|e| e.into_inner());
        slow.get_or_insert_default()
            .insert(seed.task_id.clone(), ms.min(10_000));
    }
    Ok(CallToolResponse::Task(CreateTaskResult::new(seed)))
}

async fn work_owned(
    name: String,
    args: Value,
    task: TaskContext,
) -> Result<CallToolResult, TaskExit> {
    work(&name, args, task).await
}
