//! The agent's model providers as the person manages them: the configured
//! ones with where each key comes from, added or replaced, removed, a key
//! kept in the OS keychain (empty: forgotten), the address a request would
//! go to (said before anything is saved), the models one lists, a test
//! call, the local servers (Ollama, LM Studio) not added yet; and a
//! server's sampling request answered by the model its preferences choose.

use serde_json::Value;
pub use workbench_agent::ProviderKind;
use workbench_agent::eval::provider_for;
use workbench_agent::preferences::ModelChoice;
use workbench_agent::providers::{LocalServer, ProviderView, TestReport};
use workbench_agent::{Agent, ProviderConfig};
use workbench_calls::suite::prompt::split_model;
use workbench_core::ErrorInfo;

pub fn list(agent: &Agent) -> Result<Vec<ProviderView>, ErrorInfo> {
    Ok(agent.providers()?)
}

/// Where a request for `model` would go with `config` (its address and the
/// path its API adds); no model yet reads as `MODEL`. An address that
/// cannot be used says why.
pub fn request_url(config: &ProviderConfig, model: &str) -> Result<String, ErrorInfo> {
    let model = match model.trim() {
        "" => "MODEL",
        m => m,
    };
    Ok(workbench_agent::providers::request_url(config, model)?)
}

/// Add a provider or replace the one with its id.
pub fn save(agent: &Agent, config: ProviderConfig, make_default: bool) -> Result<(), ErrorInfo> {
    Ok(agent.save_provider(config, make_default)?)
}

pub fn remove(agent: &Agent, id: &str) -> Result<(), ErrorInfo> {
    Ok(agent.remove_provider(id)?)
}

/// Keep the provider's API key in the OS keychain (empty: forget it).
pub fn set_key(agent: &Agent, id: &str, key: &str) -> Result<(), ErrorInfo> {
    Ok(agent.set_provider_key(id, key)?)
}

pub async fn models(agent: &Agent, id: &str) -> Result<Vec<String>, ErrorInfo> {
    Ok(agent.provider_models(id).await?)
}

pub async fn test(agent: &Agent, id: &str, model: &str) -> Result<TestReport, ErrorInfo> {
    Ok(agent.test_provider(id, model).await?)
}

/// LLM servers answering on this machine (Ollama, LM Studio) not yet added.
pub async fn local(agent: &Agent) -> Vec<LocalServer> {
    agent.local_providers().await
}

/// The model that would answer a sampling request, by its preferences, and why.
pub fn sampling_model(agent: &Agent, params: &Value) -> Result<ModelChoice, ErrorInfo> {
    Ok(agent.sampling_model(params)?)
}

/// Answer a sampling request (as the person edited it) with the model its
/// preferences choose; the caller shows the reply for approval before it
/// is sent.
pub async fn sample(agent: &Agent, params: &Value) -> Result<Value, ErrorInfo> {
    Ok(agent.sample(params).await?)
}

/// The types a provider's adapter names.
pub mod types {
    pub use workbench_agent::preferences::ModelChoice;
    pub use workbench_agent::providers::{LocalServer, ProviderView, TestReport};
    pub use workbench_agent::{AgentSettings, ProviderConfig};
}

/// The provider a person names on the command line (`mcpwb chat`): all
/// optional, flags over a configured one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked<'a> {
    /// A configured provider's id, or a kind (openai, anthropic, ...).
    pub provider: Option<&'a str>,
    pub base_url: Option<&'a str>,
    pub model: Option<&'a str>,
    pub api_key_env: Option<&'a str>,
}

/// A model to start with when the provider has no default.
fn default_model(kind: ProviderKind) -> Option<&'static str> {
    match kind {
        ProviderKind::OpenAi => Some("gpt-4o-mini"),
        ProviderKind::Anthropic => Some("claude-sonnet-4-5"),
        ProviderKind::Gemini => Some("gemini-2.5-flash"),
        _ => None,
    }
}

/// Settle the provider of a run from a terminal: a configured one (the
/// flags over it), a kind named, or one found on this machine (an API key
/// in the environment, else a local server). Invalid when what was named
/// is neither, or no model can be chosen.
pub async fn for_run(agent: &Agent, asked: Asked<'_>) -> Result<(), ErrorInfo> {
    let settings = agent.settings()?;
    let configured = match asked.provider {
        Some(id) => settings.provider(id).cloned(),
        None => settings.default_provider().cloned(),
    };
    let mut chosen = match (configured, asked.provider) {
        (Some(p), _) => p,
        (None, Some(kind)) => {
            let kind = ProviderKind::parse(kind).ok_or_else(|| {
                crate::invalid(format!(
                    "--provider {kind}: not a configured provider nor one of openai, anthropic, gemini, ollama, openai-compatible"
                ))
            })?;
            ProviderConfig {
                id: format!("{}-cli", kind.label().to_lowercase().replace(' ', "-")),
                kind,
                base_url: None,
                api_key_env: None,
                default_model: None,
                context_windows: Default::default(),
            }
        }
        (None, None) => from_environment(agent).await.ok_or_else(|| {
            ErrorInfo::from(workbench_agent::Error::NoProvider(
                "no LLM provider is configured: pass --provider (and --model), set OPENAI_API_KEY, ANTHROPIC_API_KEY or GEMINI_API_KEY, run Ollama, or add one in the window's Chat view".into(),
            ))
        })?,
    };
    let flagged = asked.base_url.is_some() || asked.api_key_env.is_some() || asked.model.is_some();
    if let Some(url) = asked.base_url {
        chosen.base_url = Some(url.to_string());
    }
    if let Some(var) = asked.api_key_env {
        chosen.api_key_env = Some(var.to_string());
    }
    if let Some(model) = asked.model {
        chosen.default_model = Some(model.to_string());
    }
    if chosen.default_model.is_none() {
        chosen.default_model = default_model(chosen.kind).map(str::to_string);
    }
    if chosen.default_model.is_none() {
        let models = agent.provider_models_of(&chosen).await.unwrap_or_default();
        chosen.default_model = models.into_iter().next();
    }
    if chosen.default_model.is_none() {
        return Err(crate::invalid(format!(
            "provider \"{}\" has no default model: pass --model",
            chosen.id
        )));
    }
    if flagged || settings.provider(&chosen.id) != Some(&chosen) {
        agent.use_provider(chosen);
    }
    Ok(())
}

/// A provider from what this machine has: an API key in the environment,
/// else a local server (Ollama, LM Studio).
async fn from_environment(agent: &Agent) -> Option<ProviderConfig> {
    for kind in [
        ProviderKind::OpenAi,
        ProviderKind::Anthropic,
        ProviderKind::Gemini,
    ] {
        let var = kind.default_key_env()?;
        if std::env::var(var).is_ok_and(|v| !v.is_empty()) {
            return Some(ProviderConfig {
                id: kind.label().to_lowercase(),
                kind,
                base_url: None,
                api_key_env: None,
                default_model: default_model(kind).map(str::to_string),
                context_windows: Default::default(),
            });
        }
    }
    agent
        .local_providers()
        .await
        .into_iter()
        .next()
        .map(|l| l.provider)
}

/// For each of `models` (`provider:model`) whose provider is not
/// configured: its kind's provider, for this run only, when its key is in
/// the environment (`openai:…` with `OPENAI_API_KEY`, as CI sets it).
pub fn from_environment_for(agent: &Agent, models: &[String]) {
    let Ok(settings) = agent.settings() else {
        return;
    };
    for spec in models {
        if provider_for(&settings, spec).is_ok() {
            continue;
        }
        let Some(kind) = split_model(spec).and_then(|(name, _)| ProviderKind::parse(name)) else {
            continue;
        };
        let has_key = kind
            .default_key_env()
            .is_none_or(|v| std::env::var(v).is_ok_and(|k| !k.is_empty()));
        if has_key && kind != ProviderKind::OpenAiCompatible {
            agent.use_provider(ProviderConfig {
                id: split_model(spec)
                    .map(|(n, _)| n.to_string())
                    .unwrap_or_default(),
                kind,
                base_url: None,
                api_key_env: None,
                default_model: None,
                context_windows: Default::default(),
            });
        }
    }
}
