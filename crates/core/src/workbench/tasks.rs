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

use serde::Serialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::Workbench;
use super::calls::{CallOptions, Params};
use crate::connect::ServerHandle;
use crate::error::{Error, Result};
use crate::events::Event;
use crate::traffic::Direction;

/// The poll interval when a server names none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The shortest interval honoured between two `tasks/get` (a server asking
/// for 0, or waking the poll with a flood of notifications, does not get a
/// spin: played, 3,880 `tasks/get` in 90 s).
const MIN_POLL: Duration = Duration::from_millis(100);
/// The most input requests one task may bring (each one asks the person or
/// the model): past it the call fails, the task cancelled.
pub const MAX_TASK_INPUTS: usize = 64;
/// How long a task is asked to be kept when the workbench asks for one (2025-11-25).
pub const ASKED_TTL_MS: u64 = 60 * 60 * 1000;

/// How many tasks are remembered per server.
const SEEN_MAX: usize = 200;

/// The tasks calls became this session, per server (a server's own
/// `tasks/list` may not exist: the 2026-07-28 extension has none).
#[derive(Default)]
pub(super) struct Seen(std::sync::Mutex<std::collections::HashMap<String, Vec<TaskState>>>);

impl Seen {
    fn note(&self, server: &str, task: &TaskState) {
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
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
#[cfg_attr(feature = "specta", derive(specta::Type))]
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

    fn poll(&self) -> Duration {
        self.poll_interval_ms
            .map_or(DEFAULT_POLL, Duration::from_millis)
            .max(MIN_POLL)
    }

    /// Whether a person would see a change (not only the update time).
    fn differs(&self, other: &TaskState) -> bool {
        self.status != other.status || self.status_message != other.status_message
    }
}

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
        let seen = self.inner.tasks.0.lock().unwrap_or_else(|e| e.into_inner());
        seen.get(server)
            .map(|l| l.iter().rev().cloned().collect())
            .unwrap_or_default()
    }

    pub(super) fn report(&self, server: &str, state: &TaskState, options: &CallOptions) {
        self.inner.tasks.note(server, state);
        if let Some(tx) = &options.task {
            let _ = tx.send(state.clone());
        }
        let _ = self.inner.events.send(Event::Task {
            server: server.to_string(),
            task: state.clone(),
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
                    let requests = last
                        .as_ref()
                        .and_then(|l| l.get("inputRequests"))
                        .and_then(Value::as_object);
                    let new: Map<String, Value> = requests
                        .into_iter()
                        .flatten()
                        .filter(|(k, _)| !answered.contains(*k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    if !new.is_empty() {
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
                        let params =
                            json!({ "taskId": state.task_id, "inputResponses": responses });
                        self.send_once(
                            handle,
                            peer,
                            "tasks/update",
                            &Params::Json(params),
                            &short(cancel),
                        )
                        .await?;
                    }
                }
                _ => {}
            }
            // Wait for the interval, a word from the server, or a cancel.
            let wait = if state.is_terminal() && last.is_none() {
                Duration::ZERO
            } else {
                state.poll()
            };
            let sleep = tokio::time::sleep(wait);
            tokio::pin!(sleep);
            loop {
                tokio::select! {
                    biased;
                    _ = cancel.cancelled() => {
                        return Err(Error::Cancelled { server: server.to_string(), method: method.to_string() });
                    }
                    _ = &mut sleep => break,
                    entry = heard.recv() => match entry {
                        Ok(e) if &*e.server == server
                            && e.direction == Direction::Incoming
                            && e.method.as_deref().is_some_and(|m| m.starts_with("notifications/tasks"))
                            && e.body.contains(&state.task_id) => break,
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => {
                            heard = self.traffic().subscribe();
                        }
                        _ => {}
                    },
                }
            }
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

#[cfg(test)]
mod tests {
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
