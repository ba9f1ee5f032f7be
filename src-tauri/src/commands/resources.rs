//! Resources, prompts and skills: the catalog's lists, and the requests a
//! person makes by hand (read, subscribe, get a prompt, ask for
//! completions, load a skill, read one of its files) — the application
//! layer's `offers`.

use serde_json::Value;
use tauri::{Runtime, State};
use workbench_app::offers::{self, PromptRow, ResourceRow, SkillRow};
use workbench_app::{CallOptions, ErrorInfo};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_resources<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<ResourceRow>, ErrorInfo> {
    Ok(offers::resources(&state.workbench))
}

#[tauri::command]
#[specta::specta]
pub async fn list_prompts<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<PromptRow>, ErrorInfo> {
    Ok(offers::prompts(&state.workbench))
}

/// `resources/read`: the contents (text, or base64 blobs) as the server sent them.
#[tauri::command]
#[specta::specta]
pub async fn read_resource<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    uri: String,
) -> Result<Value, ErrorInfo> {
    offers::read_resource(&state.workbench, &server, &uri, CallOptions::default()).await
}

/// Subscribe to (or unsubscribe from) a resource's updates.
#[tauri::command]
#[specta::specta]
pub async fn subscribe_resource<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    uri: String,
    subscribe: bool,
) -> Result<(), ErrorInfo> {
    offers::subscribe(&state.workbench, &server, &uri, subscribe).await
}

/// `prompts/get` with string arguments: the messages.
#[tauri::command]
#[specta::specta]
pub async fn get_prompt<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    name: String,
    args: Value,
) -> Result<Value, ErrorInfo> {
    offers::get_prompt(
        &state.workbench,
        &server,
        &name,
        args,
        CallOptions::default(),
    )
    .await
}

/// `completion/complete` for a prompt argument or a template variable:
/// `reference` is `{"type": "ref/prompt", "name"}` or `{"type": "ref/resource", "uri"}`.
#[tauri::command]
#[specta::specta]
pub async fn complete<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    reference: Value,
    argument: String,
    value: String,
    context: Option<serde_json::Map<String, Value>>,
) -> Result<Vec<String>, ErrorInfo> {
    offers::complete(
        &state.workbench,
        &server,
        reference,
        &argument,
        &value,
        context,
    )
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn list_skills<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<SkillRow>, ErrorInfo> {
    Ok(offers::skills(&state.workbench))
}

/// A skill loaded: its entry, its SKILL.md checked against it.
#[tauri::command]
#[specta::specta]
pub async fn load_skill<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    name: String,
) -> Result<offers::LoadedSkill, ErrorInfo> {
    offers::load_skill(&state.workbench, &server, &name, None).await
}

/// One file of a skill, read and checked.
#[tauri::command]
#[specta::specta]
pub async fn skill_file<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    name: String,
    path: String,
) -> Result<offers::SkillFile, ErrorInfo> {
    offers::skill_file(&state.workbench, &server, &name, &path, None).await
}
