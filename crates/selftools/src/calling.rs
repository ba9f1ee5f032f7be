//! `workbench_call` and `workbench_answer_input`: a call of a server's tool
//! that an agent drives. The call runs on its own (the agent's request may
//! end first); a question the server asks meanwhile (elicitation, sampling)
//! is parked — not refused, not sent to a window — and the agent gets it
//! with its schema, answers it, and gets the result or the next question.
//! A question goes to the oldest call running on its server.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use workbench_app::Workbench;
use workbench_app::asks::{self, PendingAsk};
use workbench_app::calling::{self as for_agent, NotCalled, Origin};
use workbench_app::servers::{self, Event};

use crate::{SelfTools, failed, ok};

/// One call running, with what it may still say.
struct Running {
    server: String,
    tool: String,
    done: oneshot::Receiver<Value>,
    asks: mpsc::UnboundedReceiver<PendingAsk>,
}

#[derive(Default)]
struct State {
    /// Calls running (taken out while a request waits on one).
    running: HashMap<u64, Running>,
    /// Where each running call's questions go, by call, with its server.
    routes: BTreeMap<u64, (String, mpsc::UnboundedSender<PendingAsk>)>,
    /// Questions asked and not answered yet: ask id → call.
    open: HashMap<u32, u64>,
}

/// The calls running, and the follower that parks their questions.
#[derive(Clone)]
pub(crate) struct Calling {
    state: Arc<Mutex<State>>,
    next: Arc<AtomicU64>,
}

impl Calling {
    pub(crate) fn follow(wb: &Workbench) -> Calling {
        let calling = Calling {
            state: Arc::default(),
            next: Arc::new(AtomicU64::new(1)),
        };
        let me = calling.clone();
        let mut events = servers::events(wb);
        tokio::spawn(async move {
            loop {
                match events.recv().await {
                    Ok(Event::Ask { ask }) => me.park(ask),
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return,
                }
            }
        });
        calling
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a call of ours runs on `server` (its questions are ours).
    pub(crate) fn takes(&self, server: &str) -> bool {
        self.lock().routes.values().any(|(s, _)| s == server)
    }

    fn park(&self, ask: PendingAsk) {
        let mut state = self.lock();
        let found = state
            .routes
            .iter()
            .find(|(_, (s, _))| *s == ask.server)
            .map(|(id, (_, tx))| (*id, tx.clone()));
        if let Some((call, tx)) = found {
            state.open.insert(ask.id, call);
            let _ = tx.send(ask);
        }
    }

    fn start(&self, server: &str, tool: &str, done: oneshot::Receiver<Value>) -> u64 {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = mpsc::unbounded_channel();
        let mut state = self.lock();
        state.routes.insert(id, (server.to_string(), tx));
        state.running.insert(
            id,
            Running {
                server: server.to_string(),
                tool: tool.to_string(),
                done,
                asks: rx,
            },
        );
        id
    }

    /// Wait (at most `wait`) for call `id`'s result or its next question.
    async fn wait(&self, id: u64, wait: Duration) -> Value {
        let Some(mut running) = self.lock().running.remove(&id) else {
            return failed(format!(
                "no call {id} is running (it ended, and its result was given)"
            ));
        };
        let out = tokio::select! {
            result = &mut running.done => {
                let mut state = self.lock();
                state.routes.remove(&id);
                state.open.retain(|_, c| *c != id);
                drop(state);
                return result.unwrap_or_else(|_| failed("the call ended without a result".into()));
            }
            Some(ask) = running.asks.recv() => {
                let kind = serde_json::to_value(ask.kind).unwrap_or_default();
                ok(json!({
                    "status": "input_required",
                    "call": id,
                    "server": running.server,
                    "tool": running.tool,
                    "input": { "id": ask.id, "kind": kind, "request": ask.params },
                    "next": "answer with workbench_answer_input {call, input, action, content}"
                }))
            }
            _ = tokio::time::sleep(wait) => ok(json!({
                "status": "running",
                "call": id,
                "server": running.server,
                "tool": running.tool,
                "next": "wait again with workbench_answer_input {call}"
            })),
        };
        self.lock().running.insert(id, running);
        out
    }
}

impl SelfTools {
    /// Call `tool` of `server` as the agent: decided by the person's rules,
    /// made through the one call path (origin agent).
    pub(crate) async fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        wait: Duration,
    ) -> Result<Value, String> {
        let options = &self.inner.options;
        let approved = match for_agent::decide(
            &self.inner.calls,
            &options.policy,
            &options.reach,
            Origin::Agent,
            "agent",
            server,
            tool,
            arguments,
        )
        .await
        {
            Ok(approved) => approved,
            Err(NotCalled::Unknown(why)) => return Err(why),
            Err(NotCalled::Untrusted) => return Ok(failed(crate::untrusted(server))),
            Err(NotCalled::NotReady(state)) => {
                return Ok(failed(format!(
                    "{server} is not ready ({state}): workbench_servers says why"
                )));
            }
            Err(NotCalled::NoTool) => {
                return Err(format!(
                    "{server} has no tool \"{tool}\" now (workbench_servers, or workbench_snapshot, lists them)"
                ));
            }
            Err(NotCalled::Refused(why)) => {
                return Ok(crate::failed_with(
                    format!("refused: {why}"),
                    json!({ "status": "refused", "reason": why }),
                ));
            }
        };
        let calls = self.inner.calls.clone();
        let (tx, rx) = oneshot::channel();
        let id = self.inner.calling.start(server, tool, rx);
        tokio::spawn(async move {
            let ran = approved.run(&calls, format!("agent-{id}")).await;
            let history = ran.key.clone();
            let out = match ran.outcome {
                Ok(o) => {
                    let is_error = o.result["isError"].as_bool() == Some(true);
                    let v = json!({
                        "status": "done",
                        "call": id,
                        "isError": is_error,
                        "result": o.result,
                        "durationMs": o.duration_ms,
                        "schemaViolations": ran.schema_violations,
                        "historyKey": history,
                    });
                    ok(v)
                }
                Err(e) => crate::failed_with(
                    format!("the call failed: {e}"),
                    json!({ "status": "failed", "call": id, "error": e.to_string(), "historyKey": history }),
                ),
            };
            let _ = tx.send(out);
        });
        Ok(self.inner.calling.wait(id, wait).await)
    }

    /// Answer call `call`'s question `input` (if given), then wait for its
    /// result or next question.
    pub(crate) async fn answer(
        &self,
        call: u64,
        input: Option<u32>,
        action: &str,
        content: Value,
        wait: Duration,
    ) -> Result<Value, String> {
        if let Some(input) = input {
            let owner = self.inner.calling.lock().open.remove(&input);
            if owner != Some(call) {
                return Err(format!(
                    "call {call} has no open question {input} (workbench_call's input_required gives its id)"
                ));
            }
            let mut answer = json!({ "action": action });
            if action == "accept" {
                answer["content"] = if content.is_null() {
                    json!({})
                } else {
                    content
                };
            }
            asks::answer(self.wb(), input, Some(answer), None)
                .map_err(|e| format!("the question could not be answered: {e}"))?;
        }
        Ok(self.inner.calling.wait(call, wait).await)
    }
}
