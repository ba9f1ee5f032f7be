#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
/// What happens when a model (or a bridge client, or an App) calls a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ToolPolicy {
    /// Ask the person each time (the default).
    #[default]
    Ask,
    /// Run without asking.
    Allow,
    /// Never offered to a model; refused for every caller a person does not drive.
    Deny,
}
/// How the history is bounded (`"history"` in the settings file).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct HistorySettings {
    /// The calls kept take at most this many MiB; the oldest go first,
    /// never saved ones.
    pub max_mib: u32,
    /// The sessions hosts had through `mcpwb tap` take at most this many
    /// MiB: the oldest ended ones go first; one session alone past it keeps
    /// nothing more (said in it).
    pub sessions_max_mib: u32,
}
impl Default for HistorySettings {
    fn default() -> Self {
        workbench_calls::rules::HistorySettings::default().into()
    }
}
impl From<ToolPolicy> for workbench_calls::rules::ToolPolicy {
    fn from(v: ToolPolicy) -> Self {
        match v {
            ToolPolicy::Ask => workbench_calls::rules::ToolPolicy::Ask,
            ToolPolicy::Allow => workbench_calls::rules::ToolPolicy::Allow,
            ToolPolicy::Deny => workbench_calls::rules::ToolPolicy::Deny,
        }
    }
}
crate::wire::to_wire!(workbench_calls::rules::HistorySettings => HistorySettings);
impl From<workbench_calls::rules::HistorySettings> for HistorySettings {
    fn from(v: workbench_calls::rules::HistorySettings) -> Self {
        let workbench_calls::rules::HistorySettings {
            max_mib,
            sessions_max_mib,
        } = v;
        Self {
            max_mib,
            sessions_max_mib,
        }
    }
}
crate::wire::to_wire!(workbench_calls::rules::ToolPolicy => ToolPolicy);
impl From<workbench_calls::rules::ToolPolicy> for ToolPolicy {
    fn from(v: workbench_calls::rules::ToolPolicy) -> Self {
        match v {
            workbench_calls::rules::ToolPolicy::Ask => Self::Ask,
            workbench_calls::rules::ToolPolicy::Allow => Self::Allow,
            workbench_calls::rules::ToolPolicy::Deny => Self::Deny,
        }
    }
}
