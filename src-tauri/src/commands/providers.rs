//! The agent's providers and settings: configured providers with where
//! each key comes from, keys into the OS keychain, model lists, a test
//! call, local servers found; approvals, trusted servers, limits; a
//! sampling request answered by the model for the ask dialog to show.

use tauri::{Runtime, State};
use workbench_app::ErrorInfo;
use workbench_app::agent::AgentSettingsChange;
use workbench_app::providers;
use workbench_app::providers::types::{
    AgentSettings, LocalServer, ModelChoice, ProviderConfig, ProviderView, TestReport,
};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_providers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<ProviderView>, ErrorInfo> {
    providers::list(&state.agent)
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
    providers::request_url(&config, &model)
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
    providers::save(&state.agent, config, make_default)
}

#[tauri::command]
#[specta::specta]
pub async fn remove_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), ErrorInfo> {
    providers::remove(&state.agent, &id)
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
    providers::set_key(&state.agent, &id, &key)
}

#[tauri::command]
#[specta::specta]
pub async fn provider_models<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<String>, ErrorInfo> {
    providers::models(&state.agent, &id).await
}

#[tauri::command]
#[specta::specta]
pub async fn test_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    model: String,
) -> Result<TestReport, ErrorInfo> {
    providers::test(&state.agent, &id, &model).await
}

/// LLM servers answering on this machine (Ollama, LM Studio) not yet added.
#[tauri::command]
#[specta::specta]
pub async fn local_providers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<LocalServer>, ErrorInfo> {
    Ok(providers::local(&state.agent).await)
}

#[tauri::command]
#[specta::specta]
pub async fn agent_settings<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<AgentSettings, ErrorInfo> {
    workbench_app::agent::settings(&state.agent, &state.calls)
}

#[tauri::command]
#[specta::specta]
pub async fn update_agent_settings<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    change: AgentSettingsChange,
) -> Result<AgentSettings, ErrorInfo> {
    workbench_app::agent::change(&state.agent, &state.calls, change)
}

/// The model that would answer a sampling request, by its preferences, and why.
#[tauri::command]
#[specta::specta]
pub async fn sampling_model<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    params: serde_json::Value,
) -> Result<ModelChoice, ErrorInfo> {
    providers::sampling_model(&state.agent, &params)
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
    providers::sample(&state.agent, &params).await
}
