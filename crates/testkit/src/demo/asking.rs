//! The demo tools that ask the client something: a form (`ask_user`), a web
//! address to open (`sign_in`), an LLM answer (`ask_llm`) and the roots
//! (`list_roots`). Up to 2025-11-25 the server sends the request itself; from
//! 2026-07-28 on it cannot, so the tool answers `input_required` with the
//! request inside and the client calls again with the answer (SEP-2322).

use rmcp::model::*;
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde_json::{Value, json};

use super::{from_json, text_result};

/// The key the one input request of a demo tool has.
const KEY: &str = "answer";

/// The request `tool` makes of the client, as `(method, params)`.
pub fn request_of(tool: &str, args: &Value) -> Option<(&'static str, Value)> {
    Some(match tool {
        "ask_user" => (
            "elicitation/create",
            json!({
                "message": args["message"].as_str().unwrap_or("Tell me about yourself"),
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "title": "Your name", "minLength": 1 },
                        "age": { "type": "integer", "title": "Age", "minimum": 0, "maximum": 150 },
                        "colour": { "type": "string", "title": "Favourite colour", "enum": ["red", "green", "blue"] },
                        "subscribe": { "type": "boolean", "title": "Subscribe to news", "default": false }
                    },
                    "required": ["name"]
                }
            }),
        ),
        "sign_in" => (
            "elicitation/create",
            json!({
                "mode": "url",
                "message": "Sign in to the demo service in your browser",
                "url": args["url"].as_str().unwrap_or("https://example.com/mcp-demo/sign-in"),
                "elicitationId": "demo-sign-in"
            }),
        ),
        "ask_llm" => (
            "sampling/createMessage",
            json!({
                "messages": [{ "role": "user", "content": { "type": "text", "text": args["question"].as_str().unwrap_or("Hello?") } }],
                "maxTokens": args.get("max_tokens").and_then(Value::as_u64).unwrap_or(200),
                "systemPrompt": "You are answering a question from the MCP Workbench demo server."
            }),
        ),
        "list_roots" => ("roots/list", json!({})),
        _ => return None,
    })
}

/// What `tool` returns once it has the client's answer.
pub fn result_of(tool: &str, answer: &Value) -> Value {
    match tool {
        "ask_user" => {
            json!({ "content": [{ "type": "text", "text": format!("action: {}; content: {}", answer["action"].as_str().unwrap_or("?"), answer["content"]) }], "structuredContent": answer })
        }
        "sign_in" => text_result(
            format!("action: {}", answer["action"].as_str().unwrap_or("?")),
            false,
        ),
        "ask_llm" => {
            let text = answer["content"]["text"].as_str().unwrap_or("(no text)");
            let model = answer["model"].as_str().unwrap_or("?");
            text_result(format!("The model ({model}) said: {text}"), false)
        }
        _ => json!({ "content": [{ "type": "text", "text": answer["roots"].to_string() }] }),
    }
}

/// Ask the client directly (up to 2025-11-25): the server sends the request.
pub async fn ask_directly(
    tool: &str,
    method: &str,
    params: Value,
    ctx: &RequestContext<RoleServer>,
) -> Result<Value, McpError> {
    let peer = &ctx.peer;
    let answer = match method {
        "elicitation/create" => peer
            .create_elicitation(from_json::<ElicitRequestParams>(params)?)
            .await
            .map(|a| serde_json::to_value(a).unwrap_or_default()),
        #[allow(deprecated)]
        "sampling/createMessage" => peer
            .create_message(from_json::<CreateMessageRequestParams>(params)?)
            .await
            .map(|a| serde_json::to_value(a).unwrap_or_default()),
        #[allow(deprecated)]
        _ => peer
            .list_roots()
            .await
            .map(|a| serde_json::to_value(a).unwrap_or_default()),
    };
    Ok(match answer {
        Ok(answer) => result_of(tool, &answer),
        Err(e) => text_result(format!("{method} failed: {e}"), true),
    })
}

/// From 2026-07-28 on: the first call gets `input_required`; the call that
/// brings the answer gets the result.
pub fn ask_in_rounds(
    tool: &str,
    method: &str,
    params: Value,
    request: &CallToolRequestParams,
) -> Result<CallToolResponse, McpError> {
    ask_in_rounds_with(tool, method, params, request, |answer| {
        result_of(tool, answer)
    })
}

/// [`ask_in_rounds`] with the result made from the answer by `result`.
pub fn ask_in_rounds_with(
    tool: &str,
    method: &str,
    params: Value,
    request: &CallToolRequestParams,
    result: impl FnOnce(&Value) -> Value,
) -> Result<CallToolResponse, McpError> {
    if let Some(answer) = request.input_responses.as_ref().and_then(|r| r.get(KEY)) {
        if request.request_state.as_deref() != Some(tool) {
            return Err(McpError::invalid_params(
                "requestState was not echoed back as it was sent",
                None,
            ));
        }
        return Ok(super::complete::<CallToolResult>(result(answer))?.into());
    }
    let input: InputRequest = from_json(json!({ "method": method, "params": params }))?;
    let requests: InputRequests = [(KEY.to_string(), input)].into_iter().collect();
    Ok(InputRequiredResult::new(Some(requests), Some(tool.to_string())).into())
}

/// `busy_once`: on 2026-07-28, no input asked, only state to echo; the
/// retry that echoes it is served.
pub fn busy_once(
    request: &CallToolRequestParams,
    ctx: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, McpError> {
    let new_era = ctx
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    if new_era && request.request_state.as_deref() != Some("busy") {
        return Ok(InputRequiredResult::from_request_state("busy").into());
    }
    Ok(super::complete::<CallToolResult>(text_result("served after a retry", false))?.into())
}
