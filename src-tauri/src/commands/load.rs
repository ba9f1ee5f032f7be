//! Load runs from the tool panel: a tool called by N at once for a time,
//! each second on a `Channel`, Stop; the run kept in History as one row.

use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{Runtime, State};
use tokio_util::sync::CancellationToken;
use workbench_app::load::{self, Concurrency, LoadPlan, LoadSecond, Stop, Target};
use workbench_app::{ErrorCode, ErrorInfo};

use crate::state::AppState;

/// The load run under way (one at a time), for Stop.
#[derive(Default)]
pub struct RunningLoad(Mutex<Option<CancellationToken>>);

/// A finished run and its row in History.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LoadRun {
    pub report: crate::wire::LoadReport,
    pub history_id: Option<i64>,
}

fn refused(message: String) -> ErrorInfo {
    ErrorInfo {
        code: ErrorCode::Refused,
        message,
    }
}

/// Call `tool` of `server` with `args` by `concurrency` workers for
/// `duration_ms` (at most `rate` calls a second); each second goes to
/// `on_second`. Refused by the rules as a whole, or while another runs.
#[tauri::command]
#[specta::specta]
#[allow(clippy::too_many_arguments)]
pub async fn run_load<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    tool: String,
    args: serde_json::Value,
    concurrency: u32,
    duration_ms: u64,
    rate: Option<f64>,
    on_second: Channel<crate::wire::LoadSecond>,
) -> Result<LoadRun, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let plan = LoadPlan {
                targets: vec![Target {
                    server,
                    tool,
                    arguments: args,
                    weight: 1,
                }],
                concurrency: Concurrency::Fixed(concurrency.clamp(1, 1024)),
                stop: Stop::Duration(Duration::from_millis(duration_ms.clamp(200, 3_600_000))),
                rate: rate.filter(|r| *r > 0.0),
                timeout: Duration::from_secs(30),
            };
            if let Some(why) = load::refusal(&state.calls, &plan) {
                return Err(why);
            }
            let cancel = CancellationToken::new();
            {
                let mut running = state.load.0.lock().unwrap_or_else(|e| e.into_inner());
                if running.is_some() {
                    return Err(refused("a load run is under way: stop it first".into()));
                }
                *running = Some(cancel.clone());
            }
            let tick = std::sync::Arc::new(move |s: &LoadSecond| {
                let _ = on_second.send(s.clone().into());
            });
            let ran = load::run(&state.calls, &plan, tick, cancel).await;
            *state.load.0.lock().unwrap_or_else(|e| e.into_inner()) = None;
            let ran = ran?;
            Ok(LoadRun {
                report: ran.report.into(),
                history_id: ran.history_id,
            })
        }
        .await,
    )
}

/// Stop the load run under way (false: none was).
#[tauri::command]
#[specta::specta]
pub async fn stop_load<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<bool, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            Ok(
                match state
                    .load
                    .0
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .as_ref()
                {
                    Some(c) => {
                        c.cancel();
                        true
                    }
                    None => false,
                },
            )
        }
        .await,
    )
}

crate::wire::as_is!(LoadRun);
