//! The agent's providers and settings: configured providers with where
//! each key comes from, keys into the OS keychain, model lists, a test
//! call, local servers found; approvals, trusted servers, limits; a
//! sampling request answered by the model for the ask dialog to show.

use serde::Deserialize;
use tauri::{Runtime, State};
use workbench_agent::providers::{LocalServer, ProviderView, TestReport};
use workbench_agent::{AgentSettings, ProviderConfig, ToolPolicy};
use workbench_core::ErrorInfo;

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_providers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<ProviderView>, ErrorInfo> {
    Ok(state.agent.providers()?)
}

/// Where a request for `model` would go with `config` (its address and the
/// path its API adds), for the provider form to say before anything is
/// saved; an address that cannot be used says why.
#[tauri::command]
#[specta::specta]
pub async fn provider_request_url<R: Runtime>(
    _app: tauri::AppHandle<R>,
    config: ProviderConfig,
    model: String,
) -> Result<String, ErrorInfo> {
    let model = if model.trim().is_empty() {
        "MODEL"
    } else {
        model.trim()
    };
    Ok(workbench_agent::providers::request_url(&config, model)?)
}

/// Add a provider or replace the one with its id.
#[tauri::command]
#[specta::specta]
pub async fn save_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    config: ProviderConfig,
    make_default: bool,
) -> Result<(), ErrorInfo> {
    Ok(state.agent.save_provider(config, make_default)?)
}

#[tauri::command]
#[specta::specta]
pub async fn remove_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), ErrorInfo> {
    Ok(state.agent.remove_provider(&id)?)
}

/// Keep the provider's API key in the OS keychain (empty: forget it).
#[tauri::command]
#[specta::specta]
pub async fn set_provider_key<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    key: String,
) -> Result<(), ErrorInfo> {
    Ok(state.agent.set_provider_key(&id, &key)?)
}

#[tauri::command]
#[specta::specta]
pub async fn provider_models<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<String>, ErrorInfo> {
    Ok(state.agent.provider_models(&id).await?)
}

#[tauri::command]
#[specta::specta]
pub async fn test_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    model: String,
) -> Result<TestReport, ErrorInfo> {
    Ok(state.agent.test_provider(&id, &model).await?)
}

/// LLM servers answering on this machine (Ollama, LM Studio) not yet added.
#[tauri::command]
#[specta::specta]
pub async fn local_providers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<LocalServer>, ErrorInfo> {
    Ok(state.agent.local_providers().await)
}

#[tauri::command]
#[specta::specta]
pub async fn agent_settings<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<AgentSettings, ErrorInfo> {
    Ok(applied(&state, state.agent.settings()?))
}

/// The settings as they apply to the entries running now (a grant given to
/// another entry of a name reads as not given).
fn applied(state: &AppState, settings: AgentSettings) -> AgentSettings {
    let running = |server: &str| {
        let wb = state.calls.workbench();
        wb.server(server)
            .ok()
            .map(|h| workbench_calls::Grantee::of(&h))
    };
    settings.as_applied(running, |key| state.calls.server_of_key(key))
}

/// A change to the agent's settings (each `Some` replaces that setting).
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct AgentSettingsChange {
    pub default_provider: Option<String>,
    pub max_steps: Option<u32>,
    pub deferred_threshold: Option<u32>,
    pub session_max_idle_days: Option<u32>,
    /// One tool's policy (`server/tool`, and the policy).
    pub tool_policy: Option<(String, ToolPolicy)>,
    /// Mark a server trusted (its read-only tools run without asking) or not.
    pub trusted: Option<(String, bool)>,
    /// Let the model answer a server's sampling requests without asking, or not.
    pub auto_sampling: Option<(String, bool)>,
}

fn toggle(list: &mut Vec<String>, item: String, on: bool) {
    list.retain(|s| *s != item);
    if on {
        list.push(item);
    }
}

#[tauri::command]
#[specta::specta]
pub async fn update_agent_settings<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    change: AgentSettingsChange,
) -> Result<AgentSettings, ErrorInfo> {
    // A grant is for the entry running under that name now: another entry
    // of the name (a project's shadowing the user's) had its grants dropped.
    let granted = change
        .tool_policy
        .as_ref()
        .and_then(|(key, _)| state.calls.server_of_key(key))
        .into_iter()
        .chain(change.trusted.as_ref().map(|(s, _)| s.clone()))
        .chain(change.auto_sampling.as_ref().map(|(s, _)| s.clone()));
    for server in granted {
        state.calls.claim(&server)?;
    }
    let updated = state.agent.update_settings(move |s| {
        if let Some(p) = change.default_provider {
            s.default_provider = Some(p);
        }
        if let Some(n) = change.max_steps {
            s.max_steps = n.max(1);
        }
        if let Some(n) = change.deferred_threshold {
            s.deferred_threshold = n.max(1);
        }
        if let Some(n) = change.session_max_idle_days {
            s.session_max_idle_days = n;
        }
        if let Some((tool, policy)) = change.tool_policy {
            match policy {
                ToolPolicy::Ask => s.tool_policies.remove(&tool),
                other => s.tool_policies.insert(tool, other),
            };
        }
        if let Some((server, on)) = change.trusted {
            toggle(&mut s.trusted_servers, server, on);
        }
        if let Some((server, on)) = change.auto_sampling {
            toggle(&mut s.auto_sampling_servers, server, on);
        }
    })?;
    Ok(applied(&state, updated))
}

/// The model that would answer a sampling request, by its preferences, and why.
#[tauri::command]
#[specta::specta]
pub async fn sampling_model<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    params: serde_json::Value,
) -> Result<workbench_agent::preferences::ModelChoice, ErrorInfo> {
    Ok(state.agent.sampling_model(&params)?)
}

/// Answer a sampling request (as the person edited it) with the model its
/// preferences choose; the window shows the reply for approval before it
/// is sent.
#[tauri::command]
#[specta::specta]
pub async fn sample_with_model<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    params: serde_json::Value,
) -> Result<serde_json::Value, ErrorInfo> {
    Ok(state.agent.sample(&params).await?)
}
