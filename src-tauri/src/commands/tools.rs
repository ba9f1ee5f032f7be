//! Tools: the catalog's list, calling one by hand through the one call path
//! (progress on a channel, cancellable; checked against the tool's output
//! schema and kept in the history), and that tool's recent calls.

use crate::wire::ToWire;
use std::collections::HashMap;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tauri::ipc::Channel;
use tauri::{Runtime, State};
use tokio_util::sync::CancellationToken;
use workbench_app::tools::{self, ByHand, CallSink, HandCall, Progress, TaskState};

use crate::state::AppState;

/// One progress notification of a running call.
#[derive(Debug, Clone, Serialize, Deserialize, specta::Type)]
pub struct CallProgress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ToolCallResult {
    /// The result object as the server sent it.
    pub result: serde_json::Value,
    pub duration_ms: f64,
    /// Where `structuredContent` breaks the tool's `outputSchema`.
    pub schema_violations: Vec<String>,
    /// The key of the call's row in the history (None: not kept). Made
    /// before the call: the answer does not wait for the row's write.
    pub history_key: Option<String>,
    /// The task the call ran as, as it ended (None: answered directly).
    pub task: Option<crate::wire::TaskState>,
    /// What happened on the way, one sentence each (a wait for the server
    /// to restart, the request sent again after it died under it).
    pub notes: Vec<String>,
}

/// How long a call by hand may take: its timeout (started again at each
/// progress notification unless `progress_resets` is off) and the longest
/// it may take however it progresses; None: the server's own.
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct CallLimits {
    pub timeout_s: Option<f64>,
    pub max_total_s: Option<f64>,
    pub progress_resets: bool,
}

fn seconds(s: Option<f64>) -> Option<std::time::Duration> {
    s.filter(|s| s.is_finite() && *s > 0.0)
        .map(std::time::Duration::from_secs_f64)
}

/// Calls under way, by the id the window gave them (for Cancel).
#[derive(Default)]
pub struct RunningCalls(Mutex<HashMap<String, CancellationToken>>);

impl RunningCalls {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[tauri::command]
#[specta::specta]
pub async fn list_tools<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::ToolRow>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(tools::rows(&state.workbench)) }.await)
}

#[tauri::command]
#[specta::specta]
// The window names each parameter; a struct would only rename them.
#[allow(clippy::too_many_arguments)]
pub async fn call_tool<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    tool: String,
    args: serde_json::Value,
    call_id: String,
    as_task: bool,
    limits: Option<CallLimits>,
    on_progress: Channel<CallProgress>,
    on_task: Channel<crate::wire::TaskState>,
) -> Result<ToolCallResult, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let limits = limits.unwrap_or(CallLimits {
                progress_resets: true,
                ..Default::default()
            });
            let cancel = CancellationToken::new();
            state.running.lock().insert(call_id.clone(), cancel.clone());
            let called = workbench_app::tools::call(
                &state.calls,
                HandCall {
                    from: ByHand::Window,
                    server: &server,
                    tool: &tool,
                    arguments: args,
                    as_task,
                    detach: false,
                    timeout: seconds(limits.timeout_s),
                    max_total: seconds(limits.max_total_s),
                    fixed_timeout: !limits.progress_resets,
                    cancel,
                },
                Some(std::sync::Arc::new(OnChannels {
                    progress: on_progress,
                    task: on_task,
                })),
            )
            .await;
            state.running.lock().remove(&call_id);
            let called = called?;
            Ok(ToolCallResult {
                result: called.result,
                duration_ms: called.duration_ms,
                schema_violations: called.schema_violations,
                history_key: called.history_key,
                task: called.task.wire(),
                notes: called.notes,
            })
        }
        .await,
    )
}

/// A call's progress and task statuses, onto the window's two channels.
struct OnChannels {
    progress: Channel<CallProgress>,
    task: Channel<crate::wire::TaskState>,
}

impl CallSink for OnChannels {
    fn progress(&self, p: Progress) {
        let _ = self.progress.send(CallProgress {
            progress: p.progress,
            total: p.total,
            message: p.message,
        });
    }

    fn task(&self, task: &TaskState) {
        let _ = self.task.send(task.clone().into());
    }

    /// Said where the call's progress shows: it has not been sent yet.
    fn waiting(&self, server: &str, state: &str) {
        let _ = self.progress.send(CallProgress {
            progress: 0.0,
            total: None,
            message: Some(format!("waiting for {server} to restart ({state})")),
        });
    }
}

/// The latest calls of one tool from the history (every caller's), newest first.
#[tauri::command]
#[specta::specta]
pub async fn tool_history<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    tool: String,
    limit: u32,
) -> Result<Vec<crate::wire::CallRow>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { tools::recent(&state.calls, &server, &tool, limit) }.await)
}

/// Cancel a call started with `call_id`; false if it already ended.
#[tauri::command]
#[specta::specta]
pub async fn cancel_call<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    call_id: String,
) -> Result<bool, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            Ok(match state.running.lock().remove(&call_id) {
                Some(token) => {
                    token.cancel();
                    true
                }
                None => false,
            })
        }
        .await,
    )
}

crate::wire::as_is!(ToolCallResult);
