//! The conformance suite's multi-round fixtures (SEP-2322, 2026-07-28): a
//! tool or prompt answers `input_required` with the requests inside (and an
//! integrity-protected `requestState` where the scenario asks for one), and
//! the call that brings the answers gets the result.

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::{complete, from_json, text_result};

/// The tools, by the names the scenarios call.
pub const TOOLS: [&str; 11] = [
    "test_missing_capability",
    "test_streaming_elicitation",
    "test_logging_tool",
    "test_input_required_result_elicitation",
    "test_input_required_result_sampling",
    "test_input_required_result_list_roots",
    "test_input_required_result_request_state",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_multi_round",
    "test_input_required_result_tampered_state",
    "test_input_required_result_capabilities",
];

/// The prompt asking for input before it is given.
pub const PROMPT: &str = "test_input_required_result_prompt";

pub fn tools() -> Vec<Value> {
    TOOLS
        .iter()
        .map(|name| {
            json!({
                "name": name,
                "description": "Asks the client for input in rounds (SEP-2322)",
                "inputSchema": { "type": "object", "properties": {} }
            })
        })
        .collect()
}

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({ "method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": { "type": "object", "properties": { field: { "type": kind } }, "required": [field] }
    } })
}

fn sample(text: &str, max: u32) -> Value {
    json!({ "method": "sampling/createMessage", "params": {
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
        "maxTokens": max
    } })
}

fn roots() -> Value {
    json!({ "method": "roots/list", "params": {} })
}

/// A process-wide key for the states this server hands out.
fn key() -> &'static [u8; 32] {
    static KEY: std::sync::OnceLock<[u8; 32]> = std::sync::OnceLock::new();
    KEY.get_or_init(|| {
        let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
        Sha256::digest(seed.as_bytes()).into()
    })
}

fn mac(payload: &str) -> String {
    let mut h = Sha256::new();
    h.update(key());
    h.update(payload.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `payload` with a keyed digest, so a changed state is told apart.
fn sign(payload: &str) -> String {
    format!("{payload}.{}", mac(payload))
}

/// The payload of a state this server signed, or None if it was changed.
fn verify(state: &str) -> Option<&str> {
    let (payload, digest) = state.rsplit_once('.')?;
    (mac(payload) == digest).then_some(payload)
}

fn needed(
    requests: Vec<(&str, Value)>,
    state: Option<String>,
) -> Result<InputRequiredResult, McpError> {
    let requests: Map<String, Value> = requests
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let mut v = json!({ "resultType": "input_required", "inputRequests": requests });
    if let Some(state) = state {
        v["requestState"] = json!(state);
    }
    from_json(v)
}

fn bad_state() -> McpError {
    McpError::invalid_params(
        "requestState failed its integrity check (changed, or not this server's)",
        None,
    )
}

/// A fixture tool's answer, or None when the tool is not one of them.
pub fn call(
    request: &CallToolRequestParams,
    ctx: &RequestContext<RoleServer>,
) -> Option<Result<CallToolResponse, McpError>> {
    let name = &*request.name;
    if !TOOLS.contains(&name) {
        return None;
    }
    let answers: Map<String, Value> = request
        .input_responses
        .as_ref()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    let state = request.request_state.as_deref();
    let done = |text: String| complete::<CallToolResult>(text_result(text, false)).map(Into::into);
    let ask = |requests: Vec<(&str, Value)>, state: Option<String>| {
        needed(requests, state).map(Into::into)
    };
    Some(match name {
        // Needs the client's sampling: refused (-32021) when not declared.
        "test_missing_capability" => {
            if ctx
                .client_capabilities()
                .is_some_and(|c| c.sampling.is_some())
            {
                done("the client declared sampling".into())
            } else {
                let needs: ClientCapabilities =
                    from_json(json!({ "sampling": {} })).unwrap_or_default();
                Err(McpError::missing_required_client_capability(needs))
            }
        }
        // Logs only when the request asked for a level (2026-07-28 has no
        // logging/setLevel: the level travels in each request's _meta).
        "test_logging_tool" => {
            let meta = serde_json::to_value(&ctx.meta).unwrap_or_default();
            let level = meta
                .get("io.modelcontextprotocol/logLevel")
                .and_then(Value::as_str)
                .map(str::to_string);
            if let Some(level) = level
                && let Ok(param) = from_json::<LoggingMessageNotificationParam>(
                    json!({ "level": level, "data": "the logging tool ran" }),
                )
            {
                let peer = ctx.peer.clone();
                #[allow(deprecated)]
                tokio::spawn(async move {
                    let _ = peer.notify_logging_message(param).await;
                });
            }
            done("logged only if asked".into())
        }
        // Asks on the response stream the 2026-07-28 way: input_required,
        // never a request of its own.
        "test_streaming_elicitation" | "test_input_required_result_elicitation" => {
            match answers.get("user_name") {
                Some(a) => done(format!(
                    "Hello, {}!",
                    a["content"]["name"].as_str().unwrap_or("?")
                )),
                None => ask(
                    vec![("user_name", elicit("What is your name?", "name", "string"))],
                    None,
                ),
            }
        }
        "test_input_required_result_sampling" => match answers.get("capital_question") {
            Some(a) => done(
                a["content"]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            ),
            None => ask(
                vec![(
                    "capital_question",
                    sample("What is the capital of France?", 100),
                )],
                None,
            ),
        },
        "test_input_required_result_list_roots" => match answers.get("client_roots") {
            Some(a) => {
                let uris: Vec<&str> = a["roots"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|r| r["uri"].as_str())
                    .collect();
                done(format!("Roots: {}", uris.join(", ")))
            }
            None => ask(vec![("client_roots", roots())], None),
        },
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => match (answers.get("confirm"), state) {
            (Some(_), Some(s)) => match verify(s) {
                Some("confirm") => {
                    done("state-ok: the requestState came back as it was sent".into())
                }
                _ => Err(bad_state()),
            },
            (Some(_), None) => Err(bad_state()),
            _ => {
                let confirm = json!({ "method": "elicitation/create", "params": {
                        "message": "Please confirm",
                        "requestedSchema": { "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] }
                    } });
                ask(vec![("confirm", confirm)], Some(sign("confirm")))
            }
        },
        "test_input_required_result_multiple_inputs" => {
            let all = ["user_name", "greeting", "client_roots"]
                .iter()
                .all(|k| answers.contains_key(*k));
            match (all, state.and_then(verify)) {
                (true, Some("multiple")) => done("all three answers came back".into()),
                (true, _) => Err(bad_state()),
                (false, _) => ask(
                    vec![
                        ("user_name", elicit("What is your name?", "name", "string")),
                        ("greeting", sample("Generate a greeting", 50)),
                        ("client_roots", roots()),
                    ],
                    Some(sign("multiple")),
                ),
            }
        }
        "test_input_required_result_multi_round" => match state.map(verify) {
            None => ask(
                vec![(
                    "step1",
                    elicit("Step 1: What is your name?", "name", "string"),
                )],
                Some(sign("round1")),
            ),
            Some(Some("round1")) => {
                let name = answers
                    .get("step1")
                    .and_then(|a| a["content"]["name"].as_str())
                    .unwrap_or("?");
                let next = sign(&format!("round2:{name}"));
                ask(
                    vec![(
                        "step2",
                        elicit("Step 2: What is your favorite color?", "color", "string"),
                    )],
                    Some(next),
                )
            }
            Some(Some(p)) if p.starts_with("round2:") => {
                let color = answers
                    .get("step2")
                    .and_then(|a| a["content"]["color"].as_str())
                    .unwrap_or("?");
                done(format!("{} likes {color}", &p["round2:".len()..]))
            }
            Some(_) => Err(bad_state()),
        },
        _ => {
            // Only what the client declared it answers (per request's _meta).
            if !answers.is_empty() {
                return Some(done("answered".into()));
            }
            let caps = ctx.client_capabilities();
            let mut requests = Vec::new();
            if caps.as_ref().is_some_and(|c| c.sampling.is_some()) {
                requests.push(("question", sample("What is 2 + 2?", 10)));
            }
            if caps.as_ref().is_some_and(|c| c.elicitation.is_some()) {
                requests.push(("user_name", elicit("What is your name?", "name", "string")));
            }
            if caps.as_ref().is_some_and(|c| c.roots.is_some()) {
                requests.push(("client_roots", roots()));
            }
            if requests.is_empty() {
                done("the client declared nothing to ask".into())
            } else {
                ask(requests, None)
            }
        }
    })
}

pub fn prompt() -> Value {
    json!({ "name": PROMPT, "description": "A prompt that asks for context first (SEP-2322)" })
}

/// `prompts/get` of the fixture prompt: input first, then the messages.
pub fn get_prompt(request: &GetPromptRequestParams) -> Result<GetPromptResponse, McpError> {
    let answer = request
        .input_responses
        .as_ref()
        .map(|r| serde_json::to_value(r).unwrap_or_default())
        .and_then(|v| v.get("user_context").cloned());
    match answer {
        Some(a) => {
            let context = a["content"]["context"].as_str().unwrap_or_default();
            let text = format!("Use this context: {context}");
            let result = json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": text } }] });
            Ok(complete::<GetPromptResult>(result)?.into())
        }
        None => {
            let ask = elicit("What context should the prompt use?", "context", "string");
            Ok(needed(vec![("user_context", ask)], None)?.into())
        }
    }
}
