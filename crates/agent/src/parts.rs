//! A chat as a thread of typed parts — text, reasoning, a tool call, its
//! result, a notice — as they are stored (one JSON array per message) and
//! shown; and how that thread becomes the provider's messages: a tool's MCP
//! result turned into what the model reads (text; images as images where the
//! model takes them; links and embedded resources as text; structured
//! content as JSON; an error result marked as an error).

use genai::chat::{
    Binary, ChatMessage, ContentPart, MessageContent, ToolCall as GenaiCall, ToolResponse,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use workbench_store::CallStatus;

/// One part of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text {
        text: String,
    },
    /// The model's reasoning, shown collapsed; not sent back.
    Reasoning {
        text: String,
    },
    /// The model asked for a tool.
    ToolCall {
        call_id: String,
        /// The name the model used (`server__tool`, or `search_tools`).
        name: String,
        /// Where it routes (absent: not a known tool).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        server: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        arguments: Value,
        /// Provider continuation data (Gemini thought signatures).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signatures: Option<Vec<String>>,
    },
    /// What came of a tool call.
    ToolResult {
        call_id: String,
        name: String,
        status: CallStatus,
        /// What the model reads.
        content: String,
        /// The MCP result as the server sent it (for the result view).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// The arguments the call ran with (the person may have edited them).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<Value>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<f64>,
        /// The traffic log's sequence numbers around the call (its rows).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        traffic: Option<(u64, u64)>,
    },
    /// A server's resource the person attached to their message (`@`):
    /// its contents as read (text, or a blob as base64), with its URI and
    /// MIME type for the model.
    Resource {
        server: String,
        uri: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// A blob's bytes, base64.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        blob: Option<String>,
    },
    /// An image the person pasted or dropped (or a prompt returned), base64.
    Image {
        mime_type: String,
        data: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Something the person should know that the model does not see
    /// (a step limit, adapted schemas, a provider error).
    Notice {
        text: String,
        #[serde(default)]
        error: bool,
    },
}

/// The text a message contributes to search.
pub fn search_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text { text } => Some(text.as_str()),
            Part::ToolCall { name, .. } => Some(name.as_str()),
            Part::ToolResult { content, .. } => Some(content.as_str()),
            Part::Resource { uri, .. } => Some(uri.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// An image a tool returned, to show the model.
#[derive(Debug, Clone)]
pub struct Image {
    pub mime: String,
    pub data: String,
}

/// What the model reads of an MCP tool result, and the images in it.
pub fn result_for_model(result: &Value) -> (String, Vec<Image>) {
    let mut texts = Vec::new();
    let mut images = Vec::new();
    let blocks = result["content"].as_array().cloned().unwrap_or_default();
    for block in &blocks {
        match block["type"].as_str().unwrap_or_default() {
            "text" => texts.push(block["text"].as_str().unwrap_or_default().to_string()),
            "image" => {
                let mime = block["mimeType"]
                    .as_str()
                    .unwrap_or("image/png")
                    .to_string();
                let data = block["data"].as_str().unwrap_or_default().to_string();
                texts.push(format!("[image {mime}, {} bytes]", data.len() * 3 / 4));
                images.push(Image { mime, data });
            }
            "audio" => texts.push(format!(
                "[audio {}, {} bytes: not passed to the model]",
                block["mimeType"].as_str().unwrap_or("audio"),
                block["data"].as_str().map_or(0, |d| d.len() * 3 / 4)
            )),
            "resource_link" => texts.push(format!(
                "[resource link: {} <{}>{}{}]",
                block["title"]
                    .as_str()
                    .or(block["name"].as_str())
                    .unwrap_or("resource"),
                block["uri"].as_str().unwrap_or_default(),
                block["mimeType"]
                    .as_str()
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default(),
                block["description"]
                    .as_str()
                    .map(|d| format!(" — {d}"))
                    .unwrap_or_default(),
            )),
            "resource" => {
                let r = &block["resource"];
                let uri = r["uri"].as_str().unwrap_or_default();
                match r["text"].as_str() {
                    Some(text) => texts.push(format!("[resource {uri}]\n{text}")),
                    None => texts.push(format!(
                        "[resource {uri}: {} binary, {} bytes]",
                        r["mimeType"].as_str().unwrap_or("application/octet-stream"),
                        r["blob"].as_str().map_or(0, |d| d.len() * 3 / 4)
                    )),
                }
            }
            other => texts.push(format!("[{other} content]")),
        }
    }
    if let Some(structured) = result.get("structuredContent").filter(|v| !v.is_null()) {
        let json = structured.to_string();
        // Servers are asked to repeat structured content as text; say it once.
        if !texts.iter().any(|t| t.trim() == json) {
            texts.push(format!("Structured content: {json}"));
        }
    }
    let mut text = texts.join("\n");
    if text.is_empty() {
        text = "(the tool returned no content)".into();
    }
    if result["isError"].as_bool() == Some(true) {
        text = format!("The tool reported an error: {text}");
    }
    (text, images)
}

/// Turn stored messages into the provider's messages. Every tool call the
/// model made gets an answer (one never run — stopped — is answered as
/// such), reasoning and notices stay out, and images from tool results
/// follow as a user message when the model takes images.
pub fn to_chat_messages(
    messages: &[(String, Vec<Part>)],
    images: &dyn Fn(&str) -> Vec<Image>,
    vision: bool,
) -> Vec<ChatMessage> {
    let mut out = Vec::new();
    let mut open_calls: Vec<(String, String)> = Vec::new();
    let close_open = |out: &mut Vec<ChatMessage>, open: &mut Vec<(String, String)>| {
        for (call_id, name) in open.drain(..) {
            out.push(ChatMessage::from(
                ToolResponse::new(
                    call_id,
                    "The call was not made: the person stopped the turn.",
                )
                .with_fn_name(name),
            ));
        }
    };
    for (role, parts) in messages {
        match role.as_str() {
            "user" => {
                close_open(&mut out, &mut open_calls);
                out.push(ChatMessage::user(crate::attach::user_content(
                    parts, vision,
                )));
            }
            "assistant" => {
                close_open(&mut out, &mut open_calls);
                let mut content: Vec<ContentPart> = Vec::new();
                for p in parts {
                    match p {
                        Part::Text { text } if !text.is_empty() => {
                            content.push(ContentPart::Text(text.clone()))
                        }
                        Part::ToolCall {
                            call_id,
                            name,
                            arguments,
                            signatures,
                            ..
                        } => {
                            open_calls.push((call_id.clone(), name.clone()));
                            content.push(ContentPart::ToolCall(GenaiCall {
                                call_id: call_id.clone(),
                                fn_name: name.clone(),
                                fn_arguments: arguments.clone(),
                                thought_signatures: signatures.clone(),
                            }))
                        }
                        _ => {}
                    }
                }
                if !content.is_empty() {
                    out.push(ChatMessage::assistant(MessageContent::from_parts(content)));
                }
            }
            "tool" => {
                let mut pictures: Vec<ContentPart> = Vec::new();
                for p in parts {
                    if let Part::ToolResult {
                        call_id,
                        name,
                        content,
                        ..
                    } = p
                    {
                        open_calls.retain(|(id, _)| id != call_id);
                        out.push(ChatMessage::from(
                            ToolResponse::new(call_id.clone(), content.clone())
                                .with_fn_name(name.clone()),
                        ));
                        if vision {
                            for image in images(call_id) {
                                pictures.push(ContentPart::Binary(Binary::from_base64(
                                    image.mime, image.data, None,
                                )));
                            }
                        }
                    }
                }
                close_open(&mut out, &mut open_calls);
                if !pictures.is_empty() {
                    pictures.insert(
                        0,
                        ContentPart::Text("The images the tools above returned:".into()),
                    );
                    out.push(ChatMessage::user(MessageContent::from_parts(pictures)));
                }
            }
            _ => {}
        }
    }
    out
}

/// The images of the tool results in stored parts, by call id.
pub fn images_of(parts: &[Part], call_id: &str) -> Vec<Image> {
    parts
        .iter()
        .find_map(|p| match p {
            Part::ToolResult {
                call_id: id,
                result: Some(result),
                ..
            } if id == call_id => Some(result_for_model(result).1),
            _ => None,
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_content_block_becomes_something_the_model_can_read() {
        let result = json!({
            "content": [
                {"type": "text", "text": "hello"},
                {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
                {"type": "audio", "data": "aGVsbG8=", "mimeType": "audio/wav"},
                {"type": "resource_link", "uri": "demo://readme", "name": "readme", "mimeType": "text/markdown"},
                {"type": "resource", "resource": {"uri": "demo://a", "text": "inside"}},
                {"type": "resource", "resource": {"uri": "demo://b", "blob": "AAAA", "mimeType": "application/pdf"}}
            ],
            "structuredContent": {"n": 1}
        });
        let (text, images) = result_for_model(&result);
        for want in [
            "hello",
            "[image image/png",
            "[audio audio/wav",
            "readme <demo://readme> (text/markdown)",
            "[resource demo://a]\ninside",
            "application/pdf binary, 3 bytes",
            "Structured content: {\"n\":1}",
        ] {
            assert!(text.contains(want), "{want:?} missing from {text}");
        }
        assert_eq!(images.len(), 1);
        let (err, _) = result_for_model(
            &json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
        );
        assert_eq!(err, "The tool reported an error: boom");
        // Structured content already given as text is not repeated.
        let (once, _) = result_for_model(
            &json!({"content": [{"type": "text", "text": "{\"n\":1}"}], "structuredContent": {"n": 1}}),
        );
        assert_eq!(once, "{\"n\":1}");
    }

    #[test]
    fn a_call_left_unanswered_is_answered_before_the_next_user_message() {
        let call = Part::ToolCall {
            call_id: "c1".into(),
            name: "demo__echo".into(),
            server: None,
            tool: None,
            arguments: json!({}),
            signatures: None,
        };
        let messages = vec![
            ("user".to_string(), vec![Part::Text { text: "hi".into() }]),
            ("assistant".to_string(), vec![call]),
            (
                "user".to_string(),
                vec![Part::Text {
                    text: "again".into(),
                }],
            ),
        ];
        let out = to_chat_messages(&messages, &|_| Vec::new(), false);
        assert_eq!(out.len(), 4);
        let answer = serde_json::to_value(&out[2]).unwrap().to_string();
        assert!(answer.contains("stopped the turn"), "{answer}");
    }
}
