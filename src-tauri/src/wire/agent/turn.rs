#[allow(unused_imports)]
use super::*;
/// One tool as a chat's tool list shows it.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
pub struct ChatTool {
    /// The name the model uses (`load_skill` for a skill, whose `tool` is
    /// `skill:NAME`).
    pub name: String,
    pub server: String,
    pub tool: String,
    /// Whether the model sees its schema now (deferred: only once loaded).
    pub offered: bool,
}
/// What a chat's model would get now: its tools, how they were adapted,
/// and how full the context is.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
pub struct ChatTools {
    pub tools: Vec<ChatTool>,
    pub deferred: bool,
    pub notes: Vec<String>,
    pub context: ContextMeter,
}
crate::wire::to_wire!(workbench_agent::ChatTools => ChatTools);
impl From<workbench_agent::ChatTools> for ChatTools {
    fn from(v: workbench_agent::ChatTools) -> Self {
        let workbench_agent::ChatTools {
            tools,
            deferred,
            notes,
            context,
        } = v;
        Self {
            tools: tools.into_iter().map(|v| v.into()).collect(),
            deferred,
            notes,
            context: context.into(),
        }
    }
}
crate::wire::to_wire!(workbench_agent::ChatTool => ChatTool);
impl From<workbench_agent::ChatTool> for ChatTool {
    fn from(v: workbench_agent::ChatTool) -> Self {
        let workbench_agent::ChatTool {
            name,
            server,
            tool,
            offered,
        } = v;
        Self {
            name,
            server,
            tool,
            offered,
        }
    }
}
