//! What passes from an upstream server to the bridge's caller as the server
//! meant it: a server's own errors (code and data), the capabilities a
//! request declares upstream (the caller's), multi-round input and tasks
//! for a 2026-07-28 caller that handles them itself (handed on, and its
//! next round, `tasks/get`, `tasks/update`, `tasks/cancel` routed back to
//! the server that made them).

use std::collections::HashMap;
use std::sync::Mutex;

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use workbench_core::CallOptions;

use crate::service::Handler;

pub(crate) use crate::upstream::{caller_capabilities, caller_new_era, resume_of, upstream};

/// Tasks handed to callers, by id: the server that runs each.
#[derive(Default)]
pub(crate) struct Tasks(Mutex<HashMap<String, String>>);

/// How many task ids are remembered (the oldest are forgotten).
const TASKS_MAX: usize = 4096;

impl Tasks {
    pub(crate) fn note(&self, task_id: &str, server: &str) {
        let mut all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() >= TASKS_MAX {
            all.clear();
        }
        all.insert(task_id.to_string(), server.to_string());
    }

    fn server(&self, task_id: &str) -> Result<String, ErrorData> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(task_id)
            .cloned()
            .ok_or_else(|| ErrorData::invalid_params(format!("no task {task_id} here"), None))
    }
}

/// Whether a caller gets a task as the server made it: a 2026-07-28 caller
/// that declared the tasks extension, calling a server of that form.
pub(crate) fn passes_tasks(
    handler: &Handler,
    ctx: &RequestContext<RoleServer>,
    server: &str,
) -> bool {
    caller_new_era(ctx)
        && ctx
            .client_capabilities()
            .is_some_and(|c| c.supports_tasks())
        && handler.bridge.wb().task_form(server).ok() == Some(workbench_core::TaskForm::Extension)
}

impl Handler {
    /// A task method of a task handed to this caller, sent to its server.
    async fn task_method(
        &self,
        ctx: &RequestContext<RoleServer>,
        method: &str,
        params: Value,
    ) -> Result<Value, ErrorData> {
        let id = params["taskId"].as_str().unwrap_or_default().to_string();
        let server = self.bridge.tasks().server(&id)?;
        let options = CallOptions {
            cancel: Some(ctx.ct.clone()),
            ..CallOptions::default()
        };
        let out = self
            .bridge
            .wb()
            .request(&server, method, params, options)
            .await
            .map_err(upstream)?;
        Ok(out.result)
    }

    pub(crate) async fn pass_get_task(
        &self,
        request: GetTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let params = serde_json::to_value(&request).unwrap_or_default();
        let got = self.task_method(&ctx, "tasks/get", params).await?;
        self.answer(&ctx, got, || {
            GetTaskResult::new(DetailedTask::new(Task::default(), TaskPayload::Working))
        })
    }

    pub(crate) async fn pass_update_task(
        &self,
        request: UpdateTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let params = serde_json::to_value(&request).unwrap_or_default();
        self.task_method(&ctx, "tasks/update", params)
            .await
            .map(|_| ())
    }

    pub(crate) async fn pass_cancel_task(
        &self,
        request: CancelTaskParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let params = json!({ "taskId": request.task_id });
        self.task_method(&ctx, "tasks/cancel", params)
            .await
            .map(|_| ())
    }
}
