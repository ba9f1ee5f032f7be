#[allow(unused_imports)]
use super::*;
use serde::Deserialize;
/// A change to the agent's settings (each `Some` replaces that setting).
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct AgentSettingsChange {
    pub default_provider: Option<String>,
    pub max_steps: Option<u32>,
    pub deferred_threshold: Option<u32>,
    pub session_max_idle_days: Option<u32>,
    /// One tool's policy (`server/tool`, and the policy).
    pub tool_policy: Option<(String, crate::wire::calls::ToolPolicy)>,
    /// Mark a server trusted (its read-only tools run without asking) or not.
    pub trusted: Option<(String, bool)>,
    /// Let the model answer a server's sampling requests without asking, or not.
    pub auto_sampling: Option<(String, bool)>,
}
impl From<AgentSettingsChange> for workbench_app::agent::AgentSettingsChange {
    fn from(v: AgentSettingsChange) -> Self {
        let AgentSettingsChange {
            default_provider,
            max_steps,
            deferred_threshold,
            session_max_idle_days,
            tool_policy,
            trusted,
            auto_sampling,
        } = v;
        workbench_app::agent::AgentSettingsChange {
            default_provider,
            max_steps,
            deferred_threshold,
            session_max_idle_days,
            tool_policy: tool_policy.map(|v| {
                let (t0, t1) = v;
                (t0, t1.into())
            }),
            trusted,
            auto_sampling,
        }
    }
}
