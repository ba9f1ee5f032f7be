//! The agent's section of the shared settings file (`"agent"` in
//! `settings.json`, owned by the core's `SettingsFile`): providers, the
//! loop's defaults, per-tool approval policies, trusted servers, servers
//! whose sampling is answered without asking, and the definitions of tools
//! as they were when they were allowed. API keys are never here (keychain).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use workbench_core::settings::SettingsFile;

use crate::error::Result;

/// The settings file's section this module owns.
pub const SECTION: &str = "agent";

/// Which API a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
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

impl ProviderKind {
    pub fn label(self) -> &'static str {
        match self {
            ProviderKind::OpenAi => "OpenAI",
            ProviderKind::Anthropic => "Anthropic",
            ProviderKind::Gemini => "Gemini",
            ProviderKind::Ollama => "Ollama",
            ProviderKind::OpenAiCompatible => "OpenAI-compatible",
        }
    }

    /// The environment variable read for the key when none is stored.
    pub fn default_key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::OpenAi => Some("OPENAI_API_KEY"),
            ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
            ProviderKind::Gemini => Some("GEMINI_API_KEY"),
            ProviderKind::Ollama | ProviderKind::OpenAiCompatible => None,
        }
    }

    /// Whether the provider refuses requests without a key.
    pub fn needs_key(self) -> bool {
        matches!(
            self,
            ProviderKind::OpenAi | ProviderKind::Anthropic | ProviderKind::Gemini
        )
    }

    pub fn parse(s: &str) -> Option<ProviderKind> {
        Some(match s {
            "openai" => ProviderKind::OpenAi,
            "anthropic" => ProviderKind::Anthropic,
            "gemini" => ProviderKind::Gemini,
            "ollama" => ProviderKind::Ollama,
            "openai-compatible" | "openai_compatible" | "compatible" => {
                ProviderKind::OpenAiCompatible
            }
            _ => return None,
        })
    }
}

/// One configured provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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

pub use workbench_calls::rules::{ToolPolicy, tool_key};

/// The agent's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    pub tool_policies: BTreeMap<String, ToolPolicy>,
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
        AgentSettings {
            providers: Vec::new(),
            default_provider: None,
            max_steps: 20,
            deferred_threshold: 40,
            deferred_context_share: 0.25,
            session_max_idle_days: 0,
            tool_policies: BTreeMap::new(),
            trusted_servers: Vec::new(),
            auto_sampling_servers: Vec::new(),
            approved_definitions: BTreeMap::new(),
            grant_owners: BTreeMap::new(),
        }
    }
}

impl AgentSettings {
    pub fn load(file: &SettingsFile) -> Result<AgentSettings> {
        Ok(file.section(SECTION)?)
    }

    /// Change the section and write it (atomically); returns the new settings.
    pub fn update(file: &SettingsFile, change: impl FnOnce(&mut AgentSettings)) -> Result<Self> {
        Ok(file.update(SECTION, change)?)
    }

    /// Whether the grants kept under `g`'s server name are `g`'s.
    pub fn grants_hold(&self, g: &workbench_calls::Grantee) -> bool {
        workbench_calls::rules::holds(&self.grant_owners, g)
    }

    /// These settings as they apply to the entries running now, for the
    /// window to show: under a name whose grants were given to another
    /// entry (a project's entry shadowing the person's own), that server is
    /// neither trusted nor answered without asking and its tools' allows
    /// read "ask" — until granted again for it; a deny still holds.
    /// `running` is the grantee of a running server (None: not running,
    /// shown as kept); `server_of` the server of a `server/tool` key.
    pub fn as_applied(
        &self,
        running: impl Fn(&str) -> Option<workbench_calls::Grantee>,
        server_of: impl Fn(&str) -> Option<String>,
    ) -> AgentSettings {
        let holds = |server: &str| running(server).is_none_or(|g| self.grants_hold(&g));
        let mut out = self.clone();
        out.trusted_servers.retain(|s| holds(s));
        out.auto_sampling_servers.retain(|s| holds(s));
        for (key, policy) in out.tool_policies.iter_mut() {
            if *policy == ToolPolicy::Allow && server_of(key).is_some_and(|s| !holds(&s)) {
                *policy = ToolPolicy::Ask;
            }
        }
        out
    }

    pub fn provider(&self, id: &str) -> Option<&ProviderConfig> {
        self.providers.iter().find(|p| p.id == id)
    }

    /// The provider new chats use.
    pub fn default_provider(&self) -> Option<&ProviderConfig> {
        self.default_provider
            .as_deref()
            .and_then(|id| self.provider(id))
            .or_else(|| self.providers.first())
    }

    pub fn policy(&self, server: &str, tool: &str) -> ToolPolicy {
        self.tool_policies
            .get(&tool_key(server, tool))
            .copied()
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use workbench_calls::Grantee;

    fn grantee(server: &str, owner: &str, own_file: bool) -> Grantee {
        Grantee {
            server: server.into(),
            owner: owner.into(),
            own_file,
        }
    }

    #[test]
    fn grants_given_to_another_entry_of_the_name_are_shown_as_not_given() {
        let mut s = AgentSettings {
            trusted_servers: vec!["docs".into(), "mine".into(), "gone".into()],
            auto_sampling_servers: vec!["docs".into()],
            ..AgentSettings::default()
        };
        for (key, policy) in [
            ("docs/read", ToolPolicy::Allow),
            ("docs/rm", ToolPolicy::Deny),
            ("mine/x", ToolPolicy::Allow),
        ] {
            s.tool_policies.insert(key.into(), policy);
        }
        s.grant_owners
            .insert("docs".into(), "the person's docs entry".into());
        let server_of = |key: &str| key.split_once('/').map(|(s, _)| s.to_string());

        // "docs" now runs a project's entry of that name.
        let shadowed = |name: &str| match name {
            "docs" => Some(grantee("docs", "a project's docs entry", false)),
            "mine" => Some(grantee("mine", "the person's mine entry", true)),
            _ => None,
        };
        let applied = s.as_applied(shadowed, server_of);
        assert_eq!(applied.trusted_servers, ["mine", "gone"]);
        assert!(applied.auto_sampling_servers.is_empty());
        assert_eq!(applied.tool_policies["docs/read"], ToolPolicy::Ask);
        assert_eq!(applied.tool_policies["docs/rm"], ToolPolicy::Deny);
        assert_eq!(applied.tool_policies["mine/x"], ToolPolicy::Allow);

        // The entry the grants were given to: all of them hold.
        let own =
            |name: &str| (name == "docs").then(|| grantee("docs", "the person's docs entry", true));
        assert_eq!(s.as_applied(own, server_of), s);
    }
}
