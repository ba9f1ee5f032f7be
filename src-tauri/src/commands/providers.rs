//! The agent's providers and settings: configured providers with where
//! each key comes from, keys into the OS keychain, model lists, a test
//! call, local servers found; approvals, trusted servers, limits; a
//! sampling request answered by the model for the ask dialog to show.

use tauri::{Runtime, State};
use workbench_app::agent::AgentSettingsChange;
use workbench_app::providers;
use workbench_app::providers::types::ProviderConfig;

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_providers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::ProviderView>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { providers::list(&state.agent) }.await)
}

/// Where a request for `model` would go with `config` (its address and the
/// path its API adds), for the provider form to say before anything is
/// saved; an address that cannot be used says why.
#[tauri::command]
#[specta::specta]
pub async fn provider_request_url<R: Runtime>(
    _app: tauri::AppHandle<R>,
    config: crate::wire::ProviderConfig,
    model: String,
) -> Result<String, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let config: ProviderConfig = config.into();
            providers::request_url(&config, &model)
        }
        .await,
    )
}

/// Add a provider or replace the one with its id.
#[tauri::command]
#[specta::specta]
pub async fn save_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    config: crate::wire::ProviderConfig,
    make_default: bool,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let config: ProviderConfig = config.into();
            providers::save(&state.agent, config, make_default)
        }
        .await,
    )
}

#[tauri::command]
#[specta::specta]
pub async fn remove_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { providers::remove(&state.agent, &id) }.await)
}

/// Keep the provider's API key in the OS keychain (empty: forget it).
#[tauri::command]
#[specta::specta]
pub async fn set_provider_key<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    key: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { providers::set_key(&state.agent, &id, &key) }.await)
}

#[tauri::command]
#[specta::specta]
pub async fn provider_models<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<Vec<String>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { providers::models(&state.agent, &id).await }.await)
}

#[tauri::command]
#[specta::specta]
pub async fn test_provider<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    model: String,
) -> Result<crate::wire::TestReport, crate::wire::ErrorInfo> {
    crate::wire::out(async move { providers::test(&state.agent, &id, &model).await }.await)
}

/// LLM servers answering on this machine (Ollama, LM Studio) not yet added.
#[tauri::command]
#[specta::specta]
pub async fn local_providers<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::LocalServer>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(providers::local(&state.agent).await) }.await)
}

#[tauri::command]
#[specta::specta]
pub async fn agent_settings<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<crate::wire::AgentSettings, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { workbench_app::agent::settings(&state.agent, &state.calls) }.await,
    )
}

#[tauri::command]
#[specta::specta]
pub async fn update_agent_settings<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    change: crate::wire::AgentSettingsChange,
) -> Result<crate::wire::AgentSettings, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let change: AgentSettingsChange = change.into();
            workbench_app::agent::change(&state.agent, &state.calls, change)
        }
        .await,
    )
}

/// The model that would answer a sampling request, by its preferences, and why.
#[tauri::command]
#[specta::specta]
pub async fn sampling_model<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    params: serde_json::Value,
) -> Result<crate::wire::ModelChoice, crate::wire::ErrorInfo> {
    crate::wire::out(async move { providers::sampling_model(&state.agent, &params) }.await)
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
) -> Result<serde_json::Value, crate::wire::ErrorInfo> {
    crate::wire::out(async move { providers::sample(&state.agent, &params).await }.await)
}
