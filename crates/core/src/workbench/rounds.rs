//! Multi-round calls (SEP-2322, protocol 2026-07-28): a server that needs
//! something from the client answers `tools/call`, `prompts/get` or
//! `resources/read` with `resultType: "input_required"` and the requests
//! inside (a form or a web address to open, an LLM answer, the roots). They
//! are put to the person exactly as a 2025-11-25 server's own requests are,
//! and the request is sent again with `inputResponses` and the echoed
//! `requestState`, for at most [`MAX_ROUNDS`] rounds.

use std::time::Duration;

use rmcp::model::ServerResult;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::Workbench;
use super::calls::{CallOptions, Params};
use crate::asks::{Answer, AskKind};
use crate::connect::ServerHandle;
use crate::error::{Error, Result};

/// Rounds a call may take before it is given up (rmcp's own default).
pub const MAX_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// A request's final answer, and the task it ran as if it became one.
pub(super) type Sent = (Value, Option<crate::task::TaskState>);

/// Whether an answer is `input_required` (typed, or kept as sent).
fn asks_for_input(result: &ServerResult) -> bool {
    match result {
        ServerResult::InputRequiredResult(_) => true,
        ServerResult::CustomResult(rmcp::model::CustomResult(v)) => {
            v.get("resultType").and_then(Value::as_str) == Some("input_required")
        }
        _ => false,
    }
}

/// A typed answer as JSON (a kept one as the server sent it).
pub(super) fn result_json(result: ServerResult) -> Result<Value> {
    match result {
        ServerResult::CustomResult(rmcp::model::CustomResult(v)) => Ok(v),
        other => serde_json::to_value(&other).map_err(|e| Error::Internal(e.to_string())),
    }
}

impl Workbench {
    /// Send `method` and drive its rounds until a final result. `params`
    /// are borrowed (a caller may send them again after a restart); only a
    /// next round, rare, makes params of its own.
    pub(super) async fn send(
        &self,
        handle: &ServerHandle,
        peer: &rmcp::Peer<rmcp::RoleClient>,
        method: &str,
        params: &Params,
        options: &CallOptions,
    ) -> Result<Sent> {
        let server = handle.name();
        let mut params = std::borrow::Cow::Borrowed(params);
        for round in 0..MAX_ROUNDS {
            let result = self
                .send_once(handle, peer, method, &params, options)
                .await?;
            if options.pass_input && asks_for_input(&result) {
                return Ok((result_json(result)?, None));
            }
            let needed = match result {
                ServerResult::InputRequiredResult(needed) => needed,
                // As the server sent it (the stdio transport keeps call results).
                ServerResult::CustomResult(rmcp::model::CustomResult(v))
                    if v.get("resultType").and_then(Value::as_str) == Some("input_required") =>
                {
                    serde_json::from_value(v).map_err(|e| Error::Transport {
                        server: server.to_string(),
                        method: method.to_string(),
                        message: format!(
                            "the server asked for input in a form that does not fit: {e}"
                        ),
                    })?
                }
                result => {
                    return self
                        .finished((handle, peer), method, &params, result, options)
                        .await;
                }
            };
            let cancel = options.cancel.clone().unwrap_or_default();
            let requests = needed.input_requests.unwrap_or_default();
            if requests.is_empty() {
                // Nothing asked, only state to echo (a busy server shedding
                // load): wait a little before asking again, longer each round.
                let wait = Duration::from_millis(200 * (round as u64 + 1));
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = cancel.cancelled() => {
                        return Err(Error::Cancelled { server: server.to_string(), method: method.to_string() });
                    }
                }
            }
            let mut responses = Map::new();
            for (key, request) in requests {
                let request = serde_json::to_value(&request).unwrap_or_default();
                // Boxed: rare, and it keeps the call's future small.
                let answer =
                    Box::pin(self.fulfil(server, method, &request, cancel.clone())).await?;
                responses.insert(key, answer);
            }
            params = std::borrow::Cow::Owned(next_round(
                params.into_owned(),
                responses,
                needed.request_state,
            ));
        }
        Err(Error::Transport {
            server: server.to_string(),
            method: method.to_string(),
            message: format!(
                "the server still asked for input after {MAX_ROUNDS} rounds; the call was given up"
            ),
        })
    }

    /// A final result: as it is, or the task it made (followed to its end,
    /// or handed back at once when the caller detaches). Only a tools/call
    /// becomes a task (in both forms).
    async fn finished(
        &self,
        (handle, peer): (&ServerHandle, &rmcp::Peer<rmcp::RoleClient>),
        method: &str,
        params: &Params,
        result: ServerResult,
        options: &CallOptions,
    ) -> Result<Sent> {
        let result = result_json(result)?;
        let task = (method == "tools/call")
            .then(|| crate::task::TaskState::handle(&result))
            .flatten()
            .map(|mut t| {
                // What the call was, for whoever lists the task.
                let (tool, arguments) = params.tool_call();
                t.tool = tool;
                t.arguments = arguments;
                t
            });
        let Some(task) = task else {
            return Ok((result, None));
        };
        if options.detach {
            self.report(handle.name(), &task, options);
            return Ok((result, Some(task)));
        }
        // Boxed: rare, and it keeps the call's future small.
        let ended = Box::pin(self.follow_task(handle, peer, method, task, options)).await;
        ended.map(|(result, state)| (result, Some(state)))
    }

    /// Answer one input request the way the server's own request would be.
    pub(super) async fn fulfil(
        &self,
        server: &str,
        method: &str,
        request: &Value,
        cancel: CancellationToken,
    ) -> Result<Value> {
        let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        let asks = self.asks();
        match request["method"].as_str().unwrap_or_default() {
            "elicitation/create" => {
                match asks.ask(server, AskKind::Elicitation, params, cancel).await {
                    Answer::Result(v) => Ok(v),
                    // Nobody to ask (headless) or refused: the form is declined.
                    Answer::Refuse(_) => Ok(json!({ "action": "decline" })),
                }
            }
            "sampling/createMessage" => {
                match asks.ask(server, AskKind::Sampling, params, cancel).await {
                    Answer::Result(v) => Ok(v),
                    Answer::Refuse(why) => Err(Error::Refused(format!(
                        "{server}: {method} needs an LLM answer (sampling) and got none: {why}"
                    ))),
                }
            }
            "roots/list" => Ok(json!({ "roots": asks.roots(server) })),
            other => Err(Error::Refused(format!(
                "{server}: {method} asked for \"{other}\", which a client cannot be asked for"
            ))),
        }
    }
}

/// The next round's params: the last ones with the answers to the input
/// requests and the state to echo (none: the last round's dropped). As
/// JSON (rare: typed params are turned into JSON once, here).
fn next_round(params: Params, responses: Map<String, Value>, state: Option<String>) -> Params {
    let (mut json, custom) = match params {
        Params::Json(v) if v.is_object() => (v, false),
        Params::Json(_) => (json!({}), false),
        Params::Custom(v) => (v, true),
        Params::Tool(p) => (
            serde_json::to_value(&p).unwrap_or_else(|_| json!({})),
            false,
        ),
    };
    json["inputResponses"] = Value::Object(responses);
    match state {
        Some(state) => json["requestState"] = Value::String(state),
        None => {
            if let Some(p) = json.as_object_mut() {
                p.remove("requestState");
            }
        }
    }
    if custom {
        Params::Custom(json)
    } else {
        Params::Json(json)
    }
}
