//! A server's `sampling/createMessage` answered by the configured model:
//! the MCP request (messages with text, images, tool use and tool results;
//! system prompt; max tokens; temperature; stop sequences; `tools` and
//! `toolChoice`) becomes one provider call, and the reply becomes the MCP
//! result (text, or `tool_use` blocks with `stopReason: "toolUse"`).
//! The model is chosen by the request's `modelPreferences` among the
//! configured ones (`preferences.rs`). The window shows the request, the
//! model and why, and the reply for approval; `mcpwb --sampling auto` and
//! the per-server setting answer without asking.

use std::time::Duration;

use genai::chat::{
    Binary, ChatMessage, ChatOptions, ChatRequest, ContentPart, MessageContent, StopReason, Tool,
    ToolCall, ToolChoice, ToolResponse,
};
use serde_json::{Value, json};
use tokio_util::sync::{CancellationToken, DropGuard};
use workbench_core::asks::{Answer, AskKind};
use workbench_core::events::Event;

use crate::error::{Error, Result};
use crate::{Agent, providers, retry};

/// The content blocks of a sampling message (one block or a list).
fn blocks(content: &Value) -> Vec<Value> {
    match content {
        Value::Array(list) => list.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    }
}

fn text_of(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The provider's messages for a sampling request's messages.
pub fn to_chat(messages: &[Value]) -> Vec<ChatMessage> {
    let mut out = Vec::new();
    for m in messages {
        let role = m["role"].as_str().unwrap_or("user");
        let mut parts: Vec<ContentPart> = Vec::new();
        let mut responses = Vec::new();
        for b in blocks(&m["content"]) {
            match b["type"].as_str().unwrap_or_default() {
                "text" => parts.push(ContentPart::Text(
                    b["text"].as_str().unwrap_or_default().into(),
                )),
                "image" => parts.push(ContentPart::Binary(Binary::from_base64(
                    b["mimeType"].as_str().unwrap_or("image/png").to_string(),
                    b["data"].as_str().unwrap_or_default().to_string(),
                    None,
                ))),
                "audio" => parts.push(ContentPart::Text("[audio: not passed to the model]".into())),
                "tool_use" => parts.push(ContentPart::ToolCall(ToolCall {
                    call_id: b["id"].as_str().unwrap_or_default().into(),
                    fn_name: b["name"].as_str().unwrap_or_default().into(),
                    fn_arguments: b["input"].clone(),
                    thought_signatures: None,
                })),
                "tool_result" => responses.push(ToolResponse::new(
                    b["toolUseId"].as_str().unwrap_or_default(),
                    text_of(&blocks(&b["content"])),
                )),
                _ => {}
            }
        }
        out.extend(responses.into_iter().map(ChatMessage::from));
        if !parts.is_empty() {
            let content = MessageContent::from_parts(parts);
            out.push(if role == "assistant" {
                ChatMessage::assistant(content)
            } else {
                ChatMessage::user(content)
            });
        }
    }
    out
}

/// The MCP result for the model's reply.
pub fn to_result(response: &genai::chat::ChatResponse, model: &str) -> Value {
    let calls = response.content.tool_calls();
    let stop = match &response.stop_reason {
        Some(StopReason::MaxTokens(_)) => "maxTokens",
        Some(StopReason::StopSequence(_)) => "stopSequence",
        _ if !calls.is_empty() => "toolUse",
        _ => "endTurn",
    };
    let content = if calls.is_empty() {
        json!({ "type": "text", "text": response.content.texts().join("") })
    } else {
        Value::Array(
            calls
                .iter()
                .map(|c| {
                    json!({
                        "type": "tool_use",
                        "id": c.call_id,
                        "name": c.fn_name,
                        "input": crate::stream::parse_arguments(c.fn_arguments.clone())
                    })
                })
                .collect(),
        )
    };
    json!({ "role": "assistant", "content": content, "model": model, "stopReason": stop })
}

impl Agent {
    /// The model that answers a sampling request, by its
    /// `modelPreferences` among the configured models, and why.
    pub fn sampling_model(&self, params: &Value) -> Result<crate::preferences::ModelChoice> {
        let settings = self.settings()?;
        crate::preferences::choose(&settings, &params["modelPreferences"]).ok_or_else(|| {
            Error::NoProvider(
                "a server asked for an LLM answer (sampling), and no LLM provider with a default model is configured"
                    .into(),
            )
        })
    }

    /// Answer a sampling request (its params as the server sent them) with
    /// the model its preferences choose (`sampling_model`).
    pub async fn sample(&self, params: &Value) -> Result<Value> {
        let settings = self.settings()?;
        let choice = self.sampling_model(params)?;
        let provider = settings
            .provider(&choice.provider)
            .cloned()
            .ok_or_else(|| {
                Error::NoProvider(format!(
                    "provider \"{}\" is no longer in the settings",
                    choice.provider
                ))
            })?;
        let model = choice.model;
        let (key, _) = providers::resolve_key(&provider, &self.inner.keychain);
        let target = providers::target(&provider, &model, key)?;
        let messages = params["messages"].as_array().cloned().unwrap_or_default();
        let mut request = ChatRequest::new(to_chat(&messages));
        if let Some(system) = params["systemPrompt"]
            .as_str()
            .filter(|s| !s.trim().is_empty())
        {
            request = request.with_system(system);
        }
        if let Some(tools) = params["tools"].as_array() {
            request = request.with_tools(tools.iter().map(|t| {
                Tool::new(t["name"].as_str().unwrap_or_default().to_string())
                    .with_description(t["description"].as_str().unwrap_or_default().to_string())
                    .with_schema(t["inputSchema"].clone())
            }));
        }
        let mut options = ChatOptions::default().with_capture_usage(true);
        if let Some(n) = params["maxTokens"].as_u64() {
            options = options.with_max_tokens(n.min(u64::from(u32::MAX)) as u32);
        }
        if let Some(t) = params["temperature"].as_f64() {
            options = options.with_temperature(t);
        }
        if let Some(stops) = params["stopSequences"].as_array() {
            options = options.with_stop_sequences(
                stops
                    .iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect(),
            );
        }
        if let Some(mode) = params.pointer("/toolChoice/mode").and_then(Value::as_str) {
            options = options.with_tool_choice(match mode {
                "required" => ToolChoice::Required,
                "none" => ToolChoice::None,
                _ => ToolChoice::Auto,
            });
        }
        let response = tokio::time::timeout(
            Duration::from_secs(180),
            self.inner
                .client
                .exec_chat(genai::ModelSpec::Target(target), request, Some(&options)),
        )
        .await
        .map_err(|_| retry::no_answer(&provider, 180))?
        .map_err(|e| retry::classify(&provider, &e))?;
        Ok(to_result(&response, &model))
    }

    /// Answer servers' sampling asks without a person: every server's when
    /// `all`, else those the settings list. Dropping the guard stops it.
    pub fn answer_sampling(&self, all: bool) -> DropGuard {
        let token = CancellationToken::new();
        let agent = self.clone();
        let stop = token.clone();
        let mut events = self.workbench().subscribe();
        tokio::spawn(async move {
            loop {
                let event = tokio::select! {
                    _ = stop.cancelled() => return,
                    e = events.recv() => e,
                };
                let ask = match event {
                    Ok(Event::Ask { ask }) if ask.kind == AskKind::Sampling => ask,
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(_) => return,
                };
                // Listed for this very entry: a project's server of the
                // same name inherits nothing.
                let listed = agent
                    .settings()
                    .map(|s| {
                        s.auto_sampling_servers.contains(&ask.server)
                            && s.grants_hold(&agent.calls().grantee(&ask.server))
                    })
                    .unwrap_or(false);
                if !(all || listed) {
                    continue;
                }
                let agent = agent.clone();
                tokio::spawn(async move {
                    let answer = match agent.sample(&ask.params).await {
                        Ok(result) => Answer::Result(result),
                        Err(e) => Answer::Refuse(e.to_string()),
                    };
                    let _ = agent.workbench().asks().answer(ask.id, answer);
                });
            }
        });
        token.drop_guard()
    }
}
