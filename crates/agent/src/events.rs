//! What a turn tells its watcher (the window through a per-turn channel,
//! `mcpwb chat` on the terminal or as JSON lines), in the order it happens.

use serde::Serialize;
use serde_json::Value;
use workbench_store::{CallStatus, Usage};

use crate::approvals::Approval;
use crate::sessions::Message;

/// How full the model's context is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContextMeter {
    /// Tokens the next request will take (system prompt, tool schemas,
    /// history): the provider's count of the last request plus an estimate
    /// of what came since, or an estimate.
    pub used: u32,
    /// The model's context window.
    pub window: u32,
    /// False when the window is assumed (the model is not in the table).
    pub window_known: bool,
    /// What the tool schemas alone take (estimate).
    pub tools: u32,
}

/// Why a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The model answered without asking for a tool.
    Done,
    /// The person stopped it.
    Stopped,
    /// The step limit was reached.
    StepLimit,
    /// The provider failed (see the error event before it).
    Error,
}

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AgentEvent {
    /// A message was stored (the person's, the model's, tool results):
    /// drafts built from deltas are replaced by it.
    Message { message: Message },
    /// The model's answer grows.
    TextDelta { text: String },
    /// The model's reasoning grows.
    ReasoningDelta { text: String },
    /// A tool call as the model is writing it (arguments so far).
    ToolCallDelta {
        call_id: String,
        name: String,
        arguments: String,
    },
    /// The person must decide on a call.
    ApprovalNeeded { approval: Approval },
    /// A call was decided (by the person, a policy, or Stop).
    ApprovalResolved { id: u64, approved: bool },
    /// A call went to its server.
    ToolStarted {
        call_id: String,
        server: String,
        tool: String,
        arguments: Value,
    },
    ToolProgress {
        call_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// The call became a task on its server: each status as it changes.
    ToolTask {
        call_id: String,
        task: workbench_core::TaskState,
    },
    ToolFinished {
        call_id: String,
        status: CallStatus,
        duration_ms: Option<f64>,
    },
    /// Something the person should know that the model does not see (how
    /// the tools were adapted to the provider, which were held back).
    Notice { text: String },
    /// Tools `search_tools` loaded into the conversation.
    ToolsLoaded { names: Vec<String> },
    /// The provider failed; trying again after `wait_ms`.
    Retrying {
        attempt: u32,
        wait_ms: u64,
        reason: String,
    },
    /// Tokens of this step, of the whole session, and the context meter.
    Usage {
        step: Usage,
        session: Usage,
        context: ContextMeter,
    },
    /// The turn failed; `retryable` offers Retry.
    Error {
        code: workbench_core::ErrorCode,
        message: String,
        retryable: bool,
    },
    /// The turn is over.
    End { reason: EndReason },
}
