#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
/// Which API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
    /// Any server speaking OpenAI's chat completions at `base_url`: LM
    /// Studio, vLLM, llama.cpp, OpenRouter, Groq, DeepSeek, ...
    OpenAiCompatible,
}
/// One configured provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct ProviderConfig {
    /// A short unique name (`openai`, `lmstudio`, `work-proxy`).
    pub id: String,
    pub kind: ProviderKind,
    /// Where its API is (absent: the provider's own address; required for
    /// OpenAI-compatible servers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The environment variable holding the key, instead of the kind's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// The model new chats start with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_model: Option<String>,
    /// Context windows (tokens) by model, over the built-in table.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub context_windows: BTreeMap<String, u32>,
}
/// The agent's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
#[serde(default)]
pub struct AgentSettings {
    pub providers: Vec<ProviderConfig>,
    /// The provider new chats use (absent: the first).
    pub default_provider: Option<String>,
    /// Model steps (LLM calls) a turn may take.
    pub max_steps: u32,
    /// From this many enabled tools on, the model gets `search_tools`
    /// instead of every schema.
    pub deferred_threshold: u32,
    /// ...or when the tools' schemas would take more than this share of the
    /// model's context window.
    pub deferred_context_share: f64,
    /// Sessions with no activity for this many days are deleted (0: never).
    pub session_max_idle_days: u32,
    /// Per tool (`server/tool`): ask, allow, deny. These three are the
    /// standing approval rules; workbench-calls reads them live from here.
    pub tool_policies: BTreeMap<String, crate::wire::calls::ToolPolicy>,
    /// Servers whose read-only tools (by their annotations) run without asking.
    pub trusted_servers: Vec<String>,
    /// Servers whose sampling requests the model answers without asking.
    pub auto_sampling_servers: Vec<String>,
    /// What each allowed tool looked like when it was allowed (`server/tool`
    /// → description and schemas): a tool that changed since is asked about again.
    pub approved_definitions: BTreeMap<String, Value>,
    /// Server name → the entry its grants above were given to (see
    /// `workbench_calls::rules::claim`).
    pub grant_owners: BTreeMap<String, String>,
}
impl Default for AgentSettings {
    fn default() -> Self {
        workbench_agent::settings::AgentSettings::default().into()
    }
}
impl From<ProviderConfig> for workbench_agent::settings::ProviderConfig {
    fn from(v: ProviderConfig) -> Self {
        let ProviderConfig {
            id,
            kind,
            base_url,
            api_key_env,
            default_model,
            context_windows,
        } = v;
        workbench_agent::settings::ProviderConfig {
            id,
            kind: kind.into(),
            base_url,
            api_key_env,
            default_model,
            context_windows,
        }
    }
}
impl From<ProviderKind> for workbench_agent::settings::ProviderKind {
    fn from(v: ProviderKind) -> Self {
        match v {
            ProviderKind::OpenAi => workbench_agent::settings::ProviderKind::OpenAi,
            ProviderKind::Anthropic => workbench_agent::settings::ProviderKind::Anthropic,
            ProviderKind::Gemini => workbench_agent::settings::ProviderKind::Gemini,
            ProviderKind::Ollama => workbench_agent::settings::ProviderKind::Ollama,
            ProviderKind::OpenAiCompatible => {
                workbench_agent::settings::ProviderKind::OpenAiCompatible
            }
        }
    }
}
crate::wire::to_wire!(workbench_agent::settings::AgentSettings => AgentSettings);
impl From<workbench_agent::settings::AgentSettings> for AgentSettings {
    fn from(v: workbench_agent::settings::AgentSettings) -> Self {
        let workbench_agent::settings::AgentSettings {
            providers,
            default_provider,
            max_steps,
            deferred_threshold,
            deferred_context_share,
            session_max_idle_days,
            tool_policies,
            trusted_servers,
            auto_sampling_servers,
            approved_definitions,
            grant_owners,
        } = v;
        Self {
            providers: providers.into_iter().map(|v| v.into()).collect(),
            default_provider,
            max_steps,
            deferred_threshold,
            deferred_context_share,
            session_max_idle_days,
            tool_policies: tool_policies
                .into_iter()
                .map(|(k, v)| (k, v.into()))
                .collect(),
            trusted_servers,
            auto_sampling_servers,
            approved_definitions,
            grant_owners,
        }
    }
}
crate::wire::to_wire!(workbench_agent::settings::ProviderConfig => ProviderConfig);
impl From<workbench_agent::settings::ProviderConfig> for ProviderConfig {
    fn from(v: workbench_agent::settings::ProviderConfig) -> Self {
        let workbench_agent::settings::ProviderConfig {
            id,
            kind,
            base_url,
            api_key_env,
            default_model,
            context_windows,
        } = v;
        Self {
            id,
            kind: kind.into(),
            base_url,
            api_key_env,
            default_model,
            context_windows,
        }
    }
}
crate::wire::to_wire!(workbench_agent::settings::ProviderKind => ProviderKind);
impl From<workbench_agent::settings::ProviderKind> for ProviderKind {
    fn from(v: workbench_agent::settings::ProviderKind) -> Self {
        match v {
            workbench_agent::settings::ProviderKind::OpenAi => Self::OpenAi,
            workbench_agent::settings::ProviderKind::Anthropic => Self::Anthropic,
            workbench_agent::settings::ProviderKind::Gemini => Self::Gemini,
            workbench_agent::settings::ProviderKind::Ollama => Self::Ollama,
            workbench_agent::settings::ProviderKind::OpenAiCompatible => Self::OpenAiCompatible,
        }
    }
}
