//! Tasks: a call that comes back as a task is followed to its end, in either
//! form a server speaks.
//!
//! - **2025-11-25** (`params.task` asked by the client where the server's
//!   `capabilities.tasks.requests.tools.call` and the tool's
//!   `execution.taskSupport` allow it): the answer is `{"task": {...}}`;
//!   `tasks/get` is polled at the server's `pollInterval`; once the task
//!   needs input or ends, `tasks/result` is asked (it blocks until the end,
//!   and the server's own requests for the task come meanwhile and are
//!   answered as any other). Sent as methods rmcp does not model.
//! - **2026-07-28 extension** (`io.modelcontextprotocol/tasks`, declared by
//!   the client; the server chooses): the answer has `resultType: "task"`;
//!   `tasks/get` is polled at `pollIntervalMs` and carries the result, the
//!   error or the input requests, which are answered with `tasks/update`.
//!
//! Either way each status is reported to the caller ([`TaskState`]) and
//! published ([`Event::Task`]); a `notifications/tasks…` about the task
//! wakes the poll early; cancelling the call sends `tasks/cancel`.

use std::time::Duration;

use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::Workbench;
use super::calls::{CallOptions, Params};
use crate::connect::ServerHandle;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::traffic::Direction;

use crate::task::{MIN_POLL, TaskForm, TaskState};
/// The most input requests one task may bring (each one asks the person or
/// the model): past it the call fails, the task cancelled.
pub const MAX_TASK_INPUTS: usize = 64;
/// How long a task is asked to be kept when the workbench asks for one (2025-11-25).
pub const ASKED_TTL_MS: u64 = 60 * 60 * 1000;

/// `tasks/*` as the form wants it sent: the extension's methods typed (rmcp
/// adds the per-request capabilities), 2025-11-25's as methods rmcp does not model.
fn task_params(form: TaskForm, params: Value) -> Params {
    match form {
        TaskForm::Extension => Params::Json(params),
        TaskForm::V2025 => Params::Custom(params),
    }
}

/// Whether `server`'s declared capabilities let `tools/call` be asked as a
/// 2025-11-25 task.
impl Workbench {
    /// The form of tasks `server` speaks: the extension on a 2026-07-28
    /// session, 2025-11-25's otherwise.
    pub fn task_form(&self, server: &str) -> Result<TaskForm> {
        let handle = self.server(server)?;
        let version = handle
            .status()
            .info
            .map(|i| i.protocol_version)
            .unwrap_or_default();
        Ok(if version.as_str() >= "2026" {
            TaskForm::Extension
        } else {
            TaskForm::V2025
        })
    }

    /// One of the task methods (`get`, `result`, `list`, `cancel`) for a
    /// task of `server` (`mcpwb task`, the window's task list), in the form
    /// the server speaks.
    pub async fn task_request(
        &self,
        server: &str,
        what: &str,
        task_id: Option<&str>,
    ) -> Result<super::CallOutcome> {
        let form = self.task_form(server)?;
        let method = format!("tasks/{what}");
        if form == TaskForm::Extension && matches!(what, "list" | "result") {
            return Err(Error::Refused(format!(
                "{server} speaks the 2026-07-28 tasks extension, which has no {method} (a task's outcome comes with tasks/get)"
            )));
        }
        let params = match task_id {
            Some(id) => json!({ "taskId": id }),
            None => json!({}),
        };
        self.request_with(
            server,
            &method,
            task_params(form, params),
            CallOptions::default(),
        )
        .await
    }

    /// The tasks calls to `server` became this session, newest first.
    pub fn tasks_seen(&self, server: &str) -> Vec<TaskState> {
        self.inner.tasks.of(server)
    }

    pub(super) fn report(&self, server: &str, state: &TaskState, options: &CallOptions) {
        self.inner.tasks.note(server, state);
        if let Some(sink) = &options.sink {
            sink.task(state);
        }
        let _ = self.inner.events.send(Event::Task {
            server: server.to_string(),
            task: Box::new(state.clone()),
        });
    }

    /// Follow the task `created` (the server's answer to `method`) to its end.
    pub(super) async fn follow_task(
        &self,
        handle: &ServerHandle,
        peer: &rmcp::Peer<rmcp::RoleClient>,
        method: &str,
        created: TaskState,
        options: &CallOptions,
    ) -> Result<(Value, TaskState)> {
        let server = handle.name();
        let cancel = options.cancel.clone().unwrap_or_default();
        let mut state = created;
        self.report(server, &state, options);
        // One deadline for the whole call when its caller set one (`mcpwb
        // call --timeout`, a suite case's timeoutMs): the task's rounds,
        // however many, and the 2025-11-25 `tasks/result` wait all end there.
        let rounds = self.follow_rounds(handle, peer, method, &mut state, options, &cancel);
        let followed = match options.timeout {
            Some(limit) => match tokio::time::timeout(limit, rounds).await {
                Ok(followed) => followed,
                Err(_) => Err(Error::Timeout {
                    server: server.to_string(),
                    method: method.to_string(),
                    seconds: limit.as_secs_f64(),
                    progressing: false,
                }),
            },
            None => rounds.await,
        };
        // Cancelled by the person, whatever round was in flight (a wait, a
        // tasks/get, an answer to the server's input request), or out of
        // time: the server is told with tasks/cancel and the task shown
        // cancelled once it agrees.
        // Why the workbench ends the task, when it does: the server is told.
        let why = match &followed {
            Err(Error::Timeout { seconds, .. }) if !state.is_terminal() => {
                Some(format!("cut: no result within {seconds:.0} s"))
            }
            Err(Error::Cancelled { .. }) if cancel.is_cancelled() && !state.is_terminal() => {
                Some("cancelled at your request".to_string())
            }
            _ => None,
        };
        let Some(why) = why else {
            return followed;
        };
        let params = json!({ "taskId": state.task_id });
        let sent = self
            .send_once(
                handle,
                peer,
                "tasks/cancel",
                &task_params(state.form, params),
                &short(&CancellationToken::new()),
            )
            .await;
        if sent.is_ok() {
            state.status = "cancelled".into();
            state.status_message = Some(why);
            self.report(server, &state, options);
        }
        match followed {
            Err(e @ Error::Timeout { .. }) => Err(e),
            _ => Err(Error::Cancelled {
                server: server.to_string(),
                method: method.to_string(),
            }),
        }
    }

    /// The rounds of following a task; `state` is the task as last said.
    async fn follow_rounds(
        &self,
        handle: &ServerHandle,
        peer: &rmcp::Peer<rmcp::RoleClient>,
        method: &str,
        state: &mut TaskState,
        options: &CallOptions,
        cancel: &CancellationToken,
    ) -> Result<(Value, TaskState)> {
        let server = handle.name();
        // Wakes the poll early: the server's notifications about this task.
        let mut heard = self.traffic().subscribe();
        // The last `tasks/get` answer (the extension's carries the outcome).
        let mut last: Option<Value> = None;
        // Input requests answered (their keys are unique over the task's
        // life; the server may still list one it has not taken yet).
        let mut answered = std::collections::HashSet::new();
        let mut last_get = std::time::Instant::now() - MIN_POLL;
        loop {
            match (state.form, state.status.as_str()) {
                (TaskForm::V2025, "cancelled") => return Err(cancelled(server, state)),
                (TaskForm::V2025, status) if status == "input_required" || state.is_terminal() => {
                    return self.task_result(handle, peer, state, options, cancel).await;
                }
                (TaskForm::Extension, _) if state.is_terminal() && last.is_some() => {
                    let result = outcome(server, method, state, last.take().unwrap_or_default());
                    return result.map(|v| (v, state.clone()));
                }
                (TaskForm::Extension, "input_required") => {
                    self.answer_inputs(
                        (handle, peer),
                        method,
                        state,
                        last.as_ref(),
                        &mut answered,
                        cancel,
                    )
                    .await?;
                }
                _ => {}
            }
            // Wait for the interval, a word from the server, or a cancel.
            let wait = if state.is_terminal() && last.is_none() {
                Duration::ZERO
            } else {
                state.poll()
            };
            self.until_word(server, method, &state.task_id, &mut heard, wait, cancel)
                .await?;
            // However often the server wakes the poll, not faster than the floor.
            let since = last_get.elapsed();
            if since < MIN_POLL {
                tokio::select! {
                    biased;
                    _ = cancel.cancelled() => {
                        return Err(Error::Cancelled { server: server.to_string(), method: method.to_string() });
                    }
                    _ = tokio::time::sleep(MIN_POLL - since) => {}
                }
            }
            last_get = std::time::Instant::now();
            let params = json!({ "taskId": state.task_id });
            let got = self
                .send_once(
                    handle,
                    peer,
                    "tasks/get",
                    &task_params(state.form, params),
                    &short(cancel),
                )
                .await?;
            let got = super::rounds::result_json(got)?;
            let next = TaskState::read(&got, state.form).ok_or_else(|| Error::Transport {
                server: server.to_string(),
                method: "tasks/get".into(),
                message: format!("the answer is not a task: {}", cut(&got)),
            })?;
            let mut next = next;
            next.tool = state.tool.clone();
            next.arguments = state.arguments.clone();
            if next.differs(state) {
                self.report(server, &next, options);
            }
            *state = next;
            last = Some(got);
        }
    }

    /// The extension's task asks for input: each request not answered yet
    /// is put to the person (or the caller's handler), and the answers sent
    /// with `tasks/update`. At most [`MAX_TASK_INPUTS`] over the task's life.
    async fn answer_inputs(
        &self,
        (handle, peer): (&ServerHandle, &rmcp::Peer<rmcp::RoleClient>),
        method: &str,
        state: &TaskState,
        last: Option<&Value>,
        answered: &mut std::collections::HashSet<String>,
        cancel: &CancellationToken,
    ) -> Result<()> {
        let server = handle.name();
        let requests = last
            .and_then(|l| l.get("inputRequests"))
            .and_then(Value::as_object);
        let new: Map<String, Value> = requests
            .into_iter()
            .flatten()
            .filter(|(k, _)| !answered.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if new.is_empty() {
            return Ok(());
        }
        answered.extend(new.keys().cloned());
        if answered.len() > MAX_TASK_INPUTS {
            return Err(Error::Transport {
                server: server.to_string(),
                method: method.to_string(),
                message: format!(
                    "the task asked for input more than {MAX_TASK_INPUTS} times; it is not followed further"
                ),
            });
        }
        let responses = self
            .answer_all(server, method, &new, cancel.clone())
            .await?;
        let params = json!({ "taskId": state.task_id, "inputResponses": responses });
        self.send_once(
            handle,
            peer,
            "tasks/update",
            &Params::Json(params),
            &short(cancel),
        )
        .await?;
        Ok(())
    }

    /// Wait `wait`, or less if the server says something of task `task_id`
    /// (a `notifications/tasks/*` naming it); Err once cancelled.
    async fn until_word(
        &self,
        server: &str,
        method: &str,
        task_id: &str,
        heard: &mut tokio::sync::broadcast::Receiver<std::sync::Arc<crate::traffic::TrafficEntry>>,
        wait: Duration,
        cancel: &CancellationToken,
    ) -> Result<()> {
        let sleep = tokio::time::sleep(wait);
        tokio::pin!(sleep);
        loop {
            tokio::select! {
                biased;
                _ = cancel.cancelled() => {
                    return Err(Error::Cancelled { server: server.to_string(), method: method.to_string() });
                }
                _ = &mut sleep => return Ok(()),
                entry = heard.recv() => match entry {
                    Ok(e) if &*e.server == server
                        && e.direction == Direction::Incoming
                        && e.method.as_deref().is_some_and(|m| m.starts_with("notifications/tasks"))
                        && e.body.contains(task_id) => return Ok(()),
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                        *heard = self.traffic().subscribe();
                    }
                    _ => {}
                },
            }
        }
    }

    /// 2025-11-25: the task's outcome from `tasks/result` (blocks until the
    /// task ends; the server's requests for it are answered meanwhile).
    async fn task_result(
        &self,
        handle: &ServerHandle,
        peer: &rmcp::Peer<rmcp::RoleClient>,
        state: &TaskState,
        options: &CallOptions,
        cancel: &CancellationToken,
    ) -> Result<(Value, TaskState)> {
        let server = handle.name();
        let wait = CallOptions {
            timeout: Some(
                Duration::from_millis(state.ttl_ms.unwrap_or(ASKED_TTL_MS))
                    .max(handle.options().call_timeout),
            ),
            cancel: Some(cancel.clone()),
            ..Default::default()
        };
        let params = Params::Custom(json!({ "taskId": state.task_id }));
        let result = self
            .send_once(handle, peer, "tasks/result", &params, &wait)
            .await;
        // Cancelled while waiting: follow_task tells the server.
        if let Err(e @ Error::Cancelled { .. }) = result {
            return Err(e);
        }
        // The task as it ended (one more tasks/get; guessed when that fails).
        let params = Params::Custom(json!({ "taskId": state.task_id }));
        let last = self
            .send_once(handle, peer, "tasks/get", &params, &short(cancel))
            .await
            .ok()
            .and_then(|r| super::rounds::result_json(r).ok())
            .and_then(|v| TaskState::read(&v, TaskForm::V2025));
        let done = last.unwrap_or_else(|| {
            let mut done = state.clone();
            done.status = if result.is_ok() {
                "completed"
            } else {
                "failed"
            }
            .into();
            done.status_message = None;
            done
        });
        if done.differs(state) {
            self.report(server, &done, options);
        }
        if done.status == "cancelled" {
            return Err(cancelled(server, &done));
        }
        // Said as the call that became the task, not as tasks/result.
        let result = result.map_err(|e| match e {
            Error::ServerError {
                server,
                code,
                message,
                data,
                ..
            } => Error::ServerError {
                server,
                method: "tools/call".into(),
                code,
                message,
                data,
            },
            other => other,
        })?;
        Ok((super::rounds::result_json(result)?, done))
    }

    /// Answer a task's input requests the way the server's own requests are.
    async fn answer_all(
        &self,
        server: &str,
        method: &str,
        requests: &Map<String, Value>,
        cancel: CancellationToken,
    ) -> Result<Map<String, Value>> {
        let mut responses = Map::new();
        for (key, request) in requests {
            let answer = Box::pin(self.fulfil(server, method, request, cancel.clone())).await?;
            responses.insert(key.clone(), answer);
        }
        Ok(responses)
    }
}

/// Options for one short task request (`tasks/get`, `/update`, `/cancel`).
fn short(cancel: &CancellationToken) -> CallOptions {
    CallOptions {
        cancel: Some(cancel.clone()),
        ..Default::default()
    }
}

/// The extension's ended task as the call's outcome.
fn outcome(server: &str, method: &str, state: &TaskState, detail: Value) -> Result<Value> {
    match state.status.as_str() {
        "completed" => Ok(detail.get("result").cloned().unwrap_or_else(|| json!({}))),
        "failed" => {
            let error = &detail["error"];
            Err(Error::ServerError {
                server: server.to_string(),
                method: method.to_string(),
                code: error["code"].as_i64().unwrap_or(-32603) as i32,
                message: error["message"]
                    .as_str()
                    .map(str::to_string)
                    .or_else(|| state.status_message.clone())
                    .unwrap_or_else(|| "the task failed".into()),
                data: error.get("data").cloned().map(Box::new),
            })
        }
        _ => Err(cancelled(server, state)),
    }
}

/// A task that ended cancelled (not by this caller: that is `Cancelled`).
fn cancelled(server: &str, state: &TaskState) -> Error {
    Error::TaskCancelled {
        server: server.to_string(),
        task_id: state.task_id.clone(),
        message: state.status_message.clone(),
    }
}

fn cut(v: &Value) -> String {
    let text = v.to_string();
    text.chars().take(200).collect()
}
