//! Evals: a suite's prompt cases run with each of its models. Every run is
//! a hidden chat (kept for its transcript, not listed among the chats): the
//! case's prompt, the case's servers' tools, the model's turn to its end or
//! its step limit. Nobody is asked: a call runs under the person's standing
//! rules only (origin `eval`: a Deny wins; a tool that may change things
//! only under a rule), or — when the case gives `results` — nothing runs
//! and the model gets those. Then the turn is judged
//! (`workbench_calls::suite::prompt::judge`). Models run in parallel within
//! a limit; one model's runs one after another.

mod report;
mod run;
mod turn_case;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use workbench_calls::suite::prompt::{self, SeenCall};
use workbench_calls::suite::{PromptCase, Suite};
use workbench_core::connect::ServerState;
use workbench_core::{ErrorCode, ErrorInfo};

pub use report::{CellChange, EvalCell, EvalReport, EvalRun, compare};
pub use turn_case::TurnCase;

use crate::events::EndReason;
use crate::parts::Part;
use crate::settings::{AgentSettings, ProviderConfig, ProviderKind};
use crate::{Agent, ApproveMode, NewChat, SessionOptions, Sink};

/// How a run of evals goes.
#[derive(Debug, Clone)]
pub struct EvalOptions {
    /// Run with these models instead of the suite's (`PROVIDER:MODEL`).
    pub models: Vec<String>,
    /// Each case this many times instead of its `runs`.
    pub runs: Option<u32>,
    /// Only these cases (None: all).
    pub case: Option<workbench_calls::suite::CasePick>,
    /// Models run at once.
    pub parallel: usize,
    /// A run is cut after this long unless its case says otherwise.
    pub timeout: Duration,
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            models: Vec::new(),
            runs: None,
            case: None,
            parallel: 4,
            timeout: Duration::from_secs(300),
        }
    }
}

/// What a run of evals says as it goes.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum EvalProgress {
    Started {
        total: u32,
    },
    RunDone {
        model: String,
        case: String,
        run: u32,
        passed: bool,
        done: u32,
        total: u32,
    },
}

pub type Progress = Arc<dyn Fn(EvalProgress) + Send + Sync>;

/// What an eval's turn does differently from a person's chat.
#[derive(Debug)]
pub(crate) struct EvalTurn {
    /// `server/tool` → the result given in the case (nothing runs).
    pub results: Option<BTreeMap<String, Value>>,
}

/// The configured provider a suite's `PROVIDER:MODEL` names: by its id, or
/// the one provider of that kind.
pub fn provider_for(
    settings: &AgentSettings,
    spec: &str,
) -> Result<(ProviderConfig, String), ErrorInfo> {
    let Some((name, model)) = prompt::split_model(spec) else {
        return Err(ErrorInfo::new(
            ErrorCode::Invalid,
            format!("{spec:?} is not PROVIDER:MODEL"),
        ));
    };
    if let Some(p) = settings.provider(name) {
        return Ok((p.clone(), model.to_string()));
    }
    if let Some(kind) = ProviderKind::parse(name) {
        let of_kind: Vec<&ProviderConfig> = settings
            .providers
            .iter()
            .filter(|p| p.kind == kind)
            .collect();
        match of_kind.as_slice() {
            [one] => return Ok(((*one).clone(), model.to_string())),
            [] => {}
            many => {
                let ids: Vec<&str> = many.iter().map(|p| p.id.as_str()).collect();
                return Err(ErrorInfo::new(
                    ErrorCode::Invalid,
                    format!(
                        "{spec}: several {} providers are configured ({}); name one by its id",
                        kind.label(),
                        ids.join(", ")
                    ),
                ));
            }
        }
    }
    Err(ErrorInfo::new(
        ErrorCode::NotFound,
        format!(
            "{spec}: no provider \"{name}\" is configured (add it in the Chat's providers, or pass --model with one you have)"
        ),
    ))
}

/// What one finished turn showed, read back from its chat.
pub(crate) fn seen_of(messages: &[crate::Message], reason: EndReason) -> prompt::Seen {
    let mut seen = prompt::Seen {
        step_limit: reason == EndReason::StepLimit,
        ..Default::default()
    };
    for m in messages.iter().filter(|m| m.role == "assistant") {
        let mut stepped = false;
        let mut text = String::new();
        for p in &m.parts {
            match p {
                Part::ToolCall {
                    name,
                    server,
                    tool,
                    arguments,
                    ..
                } => {
                    stepped = true;
                    seen.calls.push(SeenCall {
                        tool: match (server, tool) {
                            (Some(s), Some(t)) => workbench_calls::tool_key(s, t),
                            _ => name.clone(),
                        },
                        arguments: arguments.clone(),
                    });
                }
                Part::Text { text: t } => {
                    stepped = true;
                    text.push_str(t);
                }
                Part::Notice {
                    text: t,
                    error: true,
                } => seen.error = Some(t.clone()),
                _ => {}
            }
        }
        if stepped {
            seen.steps += 1;
        }
        if !text.is_empty() {
            seen.answer = text;
        }
    }
    if reason == EndReason::Error && seen.error.is_none() {
        seen.error = Some("the turn ended with an error".into());
    }
    seen
}

impl Agent {
    pub(crate) fn eval_turn(&self, session: &str) -> Option<Arc<EvalTurn>> {
        self.inner
            .evals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(session)
            .cloned()
    }

    /// Why a case's servers cannot be used now (None: all Ready).
    pub(super) fn not_ready(&self, servers: &[String]) -> Option<String> {
        let wb = self.workbench();
        for s in servers {
            let Ok(handle) = wb.server(s) else {
                return Some(format!("there is no server \"{s}\" in the config"));
            };
            match handle.status().state {
                ServerState::Ready => {}
                ServerState::Untrusted => {
                    return Some(format!("{s} is not trusted yet (mcpwb config trust {s})"));
                }
                other => return Some(format!("{s} is not ready ({other:?})")),
            }
        }
        None
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) async fn run_once(
        &self,
        suite: &Suite,
        case: &PromptCase,
        servers: &[String],
        spec: &str,
        (provider, model): &(ProviderConfig, String),
        n: u32,
        options: &EvalOptions,
    ) -> crate::Result<EvalRun> {
        let settings = self.settings()?;
        let row = self.new_session(
            NewChat {
                title: Some(format!("{} · {} · {spec} · run {n}", suite.name, case.name)),
                provider: Some(provider.id.clone()),
                model: Some(model.clone()),
                system_prompt: case.system_prompt.clone(),
                options: Some(SessionOptions {
                    servers: Some(servers.to_vec()),
                    max_steps: Some(case.expect.max_steps.unwrap_or(settings.max_steps)),
                    ..Default::default()
                }),
            },
            true,
        )?;
        let session = row.id.clone();
        self.inner
            .evals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                session.clone(),
                Arc::new(EvalTurn {
                    results: case.results.clone(),
                }),
            );
        let _forget = Forget {
            agent: self.clone(),
            session: session.clone(),
        };
        let clock = Instant::now();
        let sink: Sink = Arc::new(|_| {});
        let handle = self.send(&session, &case.prompt, ApproveMode::All, sink)?;
        let limit = case
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(options.timeout);
        let waited = tokio::time::timeout(limit, handle.finished()).await;
        let (reason, timed_out) = match waited {
            Ok(r) => (r, false),
            Err(_) => {
                self.stop(&session);
                (EndReason::Stopped, true)
            }
        };
        // A stopped turn's task finishes its writes before the chat is read.
        if timed_out {
            for _ in 0..100 {
                if !self.is_running(&session) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
        let duration_ms = clock.elapsed().as_secs_f64() * 1000.0;
        let messages = self.messages(&session)?;
        let mut seen = seen_of(&messages, reason);
        if timed_out {
            seen.error = Some(format!(
                "the run took longer than {} s and was stopped",
                limit.as_secs_f64()
            ));
        }
        let failures = prompt::judge(&case.expect, &seen);
        let usage = self.store().session(&session)?.usage;
        Ok(EvalRun {
            session,
            passed: failures.is_empty(),
            failures,
            steps: seen.steps,
            input_tokens: usage.input,
            output_tokens: usage.output,
            duration_ms,
            calls: seen.calls,
        })
    }

    /// The runs of a suite kept in the store (by its path), newest first.
    pub fn eval_runs(&self, suite_path: &str) -> crate::Result<Vec<EvalReport>> {
        Ok(self
            .store()
            .eval_runs(suite_path)?
            .into_iter()
            .filter_map(|row| {
                let mut r: EvalReport = serde_json::from_value(row.report).ok()?;
                r.id = Some(row.id);
                Some(r)
            })
            .collect())
    }

    /// One kept run.
    pub fn eval_run(&self, id: i64) -> crate::Result<EvalReport> {
        let row = self
            .store()
            .eval_run(id)?
            .ok_or_else(|| crate::Error::NotFound(format!("no eval run {id}")))?;
        let mut r: EvalReport = serde_json::from_value(row.report)
            .map_err(|e| crate::Error::Invalid(format!("eval run {id} cannot be read: {e}")))?;
        r.id = Some(row.id);
        Ok(r)
    }
}

/// Forgets the eval's turn settings when its run is over.
struct Forget {
    agent: Agent,
    session: String,
}

impl Drop for Forget {
    fn drop(&mut self) {
        self.agent
            .inner
            .evals
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.session);
    }
}
