#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
/// How long a decision holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Remember {
    /// This call only.
    #[default]
    Once,
    /// Every call of this tool in this chat.
    Chat,
    /// Always: written to the entry's `autoApprove` in mcp.json.
    Always,
}
/// The person's decision on one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct Decision {
    pub approve: bool,
    /// The arguments to run with instead of the model's (edited).
    #[serde(default)]
    pub arguments: Option<Value>,
    #[serde(default)]
    pub remember: Remember,
    /// Why it was refused (told to the model).
    #[serde(default)]
    pub reason: Option<String>,
}
/// A line of a definition's difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
pub struct DiffLine {
    /// `" "`, `"+"` or `"-"`.
    pub op: String,
    pub text: String,
}
/// A call waiting for a decision, with everything the approval card shows.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct Approval {
    pub id: u64,
    pub session: String,
    /// Calls asked for in the same step share a batch (approve together).
    pub batch: u64,
    pub call_id: String,
    pub server: String,
    pub tool: String,
    pub qualified: String,
    pub arguments: Value,
    /// The tool's definition now (title, description, schemas, annotations).
    pub definition: Value,
    /// Set when the tool changed since it was allowed: what changed.
    pub changed: Option<Vec<DiffLine>>,
}
impl From<Decision> for workbench_calls::gate::Decision {
    fn from(v: Decision) -> Self {
        let Decision {
            approve,
            arguments,
            remember,
            reason,
        } = v;
        // The consent is never taken from a window: the approvals queue adds it.
        workbench_calls::gate::Decision::answered(approve, arguments, remember.into(), reason)
    }
}
impl From<Remember> for workbench_calls::gate::Remember {
    fn from(v: Remember) -> Self {
        match v {
            Remember::Once => workbench_calls::gate::Remember::Once,
            Remember::Chat => workbench_calls::gate::Remember::Chat,
            Remember::Always => workbench_calls::gate::Remember::Always,
        }
    }
}
crate::wire::to_wire!(workbench_calls::gate::Approval => Approval);
impl From<workbench_calls::gate::Approval> for Approval {
    fn from(v: workbench_calls::gate::Approval) -> Self {
        let workbench_calls::gate::Approval {
            id,
            session,
            batch,
            call_id,
            server,
            tool,
            qualified,
            arguments,
            definition,
            changed,
        } = v;
        Self {
            id,
            session,
            batch,
            call_id,
            server,
            tool,
            qualified,
            arguments,
            definition,
            changed: changed.map(|v| v.into_iter().map(|v| v.into()).collect()),
        }
    }
}
crate::wire::to_wire!(workbench_calls::gate::DiffLine => DiffLine);
impl From<workbench_calls::gate::DiffLine> for DiffLine {
    fn from(v: workbench_calls::gate::DiffLine) -> Self {
        let workbench_calls::gate::DiffLine { op, text } = v;
        Self { op, text }
    }
}
