//! The agent's model providers as the person manages them: the configured
//! ones with where each key comes from, added or replaced, removed, a key
//! kept in the OS keychain (empty: forgotten), the address a request would
//! go to (said before anything is saved), the models one lists, a test
//! call, the local servers (Ollama, LM Studio) not added yet; and a
//! server's sampling request answered by the model its preferences choose.

use serde_json::Value;
use workbench_agent::preferences::ModelChoice;
use workbench_agent::providers::{LocalServer, ProviderView, TestReport};
use workbench_agent::{Agent, ProviderConfig};
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
