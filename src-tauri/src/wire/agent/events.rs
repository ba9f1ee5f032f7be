#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// How full the model's context is.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, specta::Type)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
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
#[derive(Debug, Clone, Serialize, specta::Type)]
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
    ApprovalNeeded {
        approval: crate::wire::calls::Approval,
    },
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
        task: crate::wire::core::TaskState,
    },
    ToolFinished {
        call_id: String,
        status: crate::wire::store::CallStatus,
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
        step: crate::wire::store::Usage,
        session: crate::wire::store::Usage,
        context: ContextMeter,
    },
    /// The turn failed; `retryable` offers Retry.
    Error {
        code: crate::wire::codes::ErrorCode,
        message: String,
        retryable: bool,
    },
    /// The turn is over.
    End { reason: EndReason },
}
crate::wire::to_wire!(workbench_agent::events::EndReason => EndReason);
impl From<workbench_agent::events::EndReason> for EndReason {
    fn from(v: workbench_agent::events::EndReason) -> Self {
        match v {
            workbench_agent::events::EndReason::Done => Self::Done,
            workbench_agent::events::EndReason::Stopped => Self::Stopped,
            workbench_agent::events::EndReason::StepLimit => Self::StepLimit,
            workbench_agent::events::EndReason::Error => Self::Error,
        }
    }
}
crate::wire::to_wire!(workbench_agent::events::AgentEvent => AgentEvent);
impl From<workbench_agent::events::AgentEvent> for AgentEvent {
    fn from(v: workbench_agent::events::AgentEvent) -> Self {
        match v {
            workbench_agent::events::AgentEvent::Message { message } => Self::Message {
                message: message.into(),
            },
            workbench_agent::events::AgentEvent::TextDelta { text } => Self::TextDelta { text },
            workbench_agent::events::AgentEvent::ReasoningDelta { text } => {
                Self::ReasoningDelta { text }
            }
            workbench_agent::events::AgentEvent::ToolCallDelta {
                call_id,
                name,
                arguments,
            } => Self::ToolCallDelta {
                call_id,
                name,
                arguments,
            },
            workbench_agent::events::AgentEvent::ApprovalNeeded { approval } => {
                Self::ApprovalNeeded {
                    approval: approval.into(),
                }
            }
            workbench_agent::events::AgentEvent::ApprovalResolved { id, approved } => {
                Self::ApprovalResolved { id, approved }
            }
            workbench_agent::events::AgentEvent::ToolStarted {
                call_id,
                server,
                tool,
                arguments,
            } => Self::ToolStarted {
                call_id,
                server,
                tool,
                arguments,
            },
            workbench_agent::events::AgentEvent::ToolProgress {
                call_id,
                progress,
                total,
                message,
            } => Self::ToolProgress {
                call_id,
                progress,
                total,
                message,
            },
            workbench_agent::events::AgentEvent::ToolTask { call_id, task } => Self::ToolTask {
                call_id,
                task: task.into(),
            },
            workbench_agent::events::AgentEvent::ToolFinished {
                call_id,
                status,
                duration_ms,
            } => Self::ToolFinished {
                call_id,
                status: status.into(),
                duration_ms,
            },
            workbench_agent::events::AgentEvent::Notice { text } => Self::Notice { text },
            workbench_agent::events::AgentEvent::ToolsLoaded { names } => {
                Self::ToolsLoaded { names }
            }
            workbench_agent::events::AgentEvent::Retrying {
                attempt,
                wait_ms,
                reason,
            } => Self::Retrying {
                attempt,
                wait_ms,
                reason,
            },
            workbench_agent::events::AgentEvent::Usage {
                step,
                session,
                context,
            } => Self::Usage {
                step: step.into(),
                session: session.into(),
                context: context.into(),
            },
            workbench_agent::events::AgentEvent::Error {
                code,
                message,
                retryable,
            } => Self::Error {
                code: code.into(),
                message,
                retryable,
            },
            workbench_agent::events::AgentEvent::End { reason } => Self::End {
                reason: reason.into(),
            },
        }
    }
}
crate::wire::to_wire!(workbench_agent::events::ContextMeter => ContextMeter);
impl From<workbench_agent::events::ContextMeter> for ContextMeter {
    fn from(v: workbench_agent::events::ContextMeter) -> Self {
        let workbench_agent::events::ContextMeter {
            used,
            window,
            window_known,
            tools,
        } = v;
        Self {
            used,
            window,
            window_known,
            tools,
        }
    }
}
