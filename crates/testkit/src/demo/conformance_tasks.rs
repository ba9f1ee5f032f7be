//! The fixtures the conformance suite's tasks-extension scenarios call
//! (`--conformance`, 2026-07-28): `greet` (never a task), `slow_compute`,
//! `failing_job`, `protocol_error_job`, `confirm_delete`, `multi_input` (tasks
//! the client may ask for), and `test_tool_with_task` (input first, then a
//! task). Run by the demo's task store (`tasked::manager`).

use std::time::Duration;

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskOptions};
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::{complete, from_json, text_result};

/// The tools, and whether each must run as a task (None: never a task).
const TOOLS: [(&str, Option<&str>); 7] = [
    ("greet", None),
    ("slow_compute", Some("optional")),
    ("failing_job", Some("required")),
    ("protocol_error_job", Some("optional")),
    ("confirm_delete", Some("optional")),
    ("multi_input", Some("optional")),
    ("test_tool_with_task", Some("required")),
];

pub fn tools() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|(name, support)| {
            let mut tool = json!({
                "name": name,
                "description": format!("The conformance suite's tasks fixture {name}"),
                "inputSchema": { "type": "object", "properties": {
                    "name": { "type": "string" },
                    "seconds": { "type": "number" },
                    "label": { "type": "string" }
                } }
            });
            if let Some(support) = support {
                // rmcp's Tool has no `execution`: the transport puts it back.
                tool["_meta"] = json!({ crate::wire::MARKER: { "taskSupport": support } });
            }
            tool
        })
        .collect()
}

fn text(t: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(t)])
}

fn elicitation(message: &str) -> Result<ElicitRequest, TaskExit> {
    from_json::<ElicitRequest>(json!({ "method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": { "type": "object", "properties": { "confirm": { "type": "boolean" } }, "required": ["confirm"] }
    } }))
    .map_err(TaskExit::Error)
}

async fn work(name: String, args: Value, task: TaskContext) -> Result<CallToolResult, TaskExit> {
    match name.as_str() {
        "slow_compute" => {
            let seconds = args["seconds"].as_f64().unwrap_or(1.0).clamp(0.0, 600.0);
            tokio::select! {
                _ = task.cancelled() => Err(TaskExit::Cancelled),
                _ = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {
                    let label = args["label"].as_str().unwrap_or("compute");
                    Ok(text(format!("{label}: done after {seconds} s")))
                }
            }
        }
        "failing_job" => {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Ok(CallToolResult::error(vec![ContentBlock::text(
                "the job failed",
            )]))
        }
        "protocol_error_job" => Err(TaskExit::Error(McpError::internal_error(
            "the job broke",
            None,
        ))),
        "confirm_delete" => {
            let answer = task
                .request_input(
                    "confirm",
                    InputRequest::Elicitation(elicitation("Delete it?")?),
                )
                .await?;
            Ok(text(format!(
                "confirmed: {}",
                answer["action"].as_str().unwrap_or("?")
            )))
        }
        "multi_input" => {
            let (a, b) = tokio::join!(
                task.request_input("first", InputRequest::Elicitation(elicitation("First?")?)),
                task.request_input("second", InputRequest::Elicitation(elicitation("Second?")?)),
            );
            let (a, b) = (a?, b?);
            Ok(text(format!(
                "first {}, second {}",
                a["action"], b["action"]
            )))
        }
        // test_tool_with_task: the name gathered before the task was made.
        _ => Ok(text(format!(
            "Hello, {}!",
            args["name"].as_str().unwrap_or("?")
        ))),
    }
}

/// A fixture's answer, or None when the tool is not one of them.
pub fn call(
    request: &CallToolRequestParams,
    ctx: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, McpError>> {
    let (name, support) = TOOLS.iter().find(|(n, _)| *n == &*request.name)?;
    let mut args = Value::Object(request.arguments.clone().unwrap_or_default());
    if *name == "greet" {
        let who = args["name"].as_str().unwrap_or("world");
        return Some(
            complete::<CallToolResult>(text_result(format!("Hello, {who}!"), false))
                .map(Into::into),
        );
    }
    let declared = ctx
        .client_capabilities()
        .is_some_and(|c| c.supports_tasks());
    if *name == "test_tool_with_task" {
        // Round 1 asks (no task yet); round 2 makes the task.
        let answer = request
            .input_responses
            .as_ref()
            .and_then(|r| serde_json::to_value(r).ok())
            .and_then(|v| v.get("user_name").cloned());
        let Some(answer) = answer else {
            let ask = json!({ "resultType": "input_required", "inputRequests": { "user_name": {
                "method": "elicitation/create",
                "params": { "message": "What is your name?", "requestedSchema": {
                    "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] } }
            } } });
            return Some(from_json::<InputRequiredResult>(ask).map(Into::into));
        };
        args["name"] = answer["content"]["name"].clone();
    }
    if !declared {
        if *support == Some("required") {
            let needs = ClientCapabilities::builder().enable_tasks().build();
            return Some(Err(McpError::missing_required_client_capability(needs)));
        }
        // Not a task: the call is answered when the work is done (a
        // synchronous handler cannot wait here; the fixtures' work is short).
        let result = text_result(
            format!("{name} ran directly (the client did not declare tasks)"),
            false,
        );
        return Some(complete::<CallToolResult>(result).map(Into::into));
    }
    let options = TaskOptions::new().with_poll_interval_ms(super::tasked::POLL_MS);
    let owned = name.to_string();
    let seed =
        super::tasked::manager().spawn(options, move |task| Box::pin(work(owned, args, task)));
    Some(Ok(CallToolResponse::Task(CreateTaskResult::new(seed))))
}
