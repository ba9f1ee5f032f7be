#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
/// One part of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
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
        status: crate::wire::store::CallStatus,
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
impl From<Part> for workbench_agent::parts::Part {
    fn from(v: Part) -> Self {
        match v {
            Part::Text { text } => workbench_agent::parts::Part::Text { text },
            Part::Reasoning { text } => workbench_agent::parts::Part::Reasoning { text },
            Part::ToolCall {
                call_id,
                name,
                server,
                tool,
                arguments,
                signatures,
            } => workbench_agent::parts::Part::ToolCall {
                call_id,
                name,
                server,
                tool,
                arguments,
                signatures,
            },
            Part::ToolResult {
                call_id,
                name,
                status,
                content,
                result,
                arguments,
                duration_ms,
                traffic,
            } => workbench_agent::parts::Part::ToolResult {
                call_id,
                name,
                status: status.into(),
                content,
                result,
                arguments,
                duration_ms,
                traffic,
            },
            Part::Resource {
                server,
                uri,
                mime_type,
                text,
                blob,
            } => workbench_agent::parts::Part::Resource {
                server,
                uri,
                mime_type,
                text,
                blob,
            },
            Part::Image {
                mime_type,
                data,
                name,
            } => workbench_agent::parts::Part::Image {
                mime_type,
                data,
                name,
            },
            Part::Notice { text, error } => workbench_agent::parts::Part::Notice { text, error },
        }
    }
}
crate::wire::to_wire!(workbench_agent::parts::Part => Part);
impl From<workbench_agent::parts::Part> for Part {
    fn from(v: workbench_agent::parts::Part) -> Self {
        match v {
            workbench_agent::parts::Part::Text { text } => Self::Text { text },
            workbench_agent::parts::Part::Reasoning { text } => Self::Reasoning { text },
            workbench_agent::parts::Part::ToolCall {
                call_id,
                name,
                server,
                tool,
                arguments,
                signatures,
            } => Self::ToolCall {
                call_id,
                name,
                server,
                tool,
                arguments,
                signatures,
            },
            workbench_agent::parts::Part::ToolResult {
                call_id,
                name,
                status,
                content,
                result,
                arguments,
                duration_ms,
                traffic,
            } => Self::ToolResult {
                call_id,
                name,
                status: status.into(),
                content,
                result,
                arguments,
                duration_ms,
                traffic,
            },
            workbench_agent::parts::Part::Resource {
                server,
                uri,
                mime_type,
                text,
                blob,
            } => Self::Resource {
                server,
                uri,
                mime_type,
                text,
                blob,
            },
            workbench_agent::parts::Part::Image {
                mime_type,
                data,
                name,
            } => Self::Image {
                mime_type,
                data,
                name,
            },
            workbench_agent::parts::Part::Notice { text, error } => Self::Notice { text, error },
        }
    }
}
