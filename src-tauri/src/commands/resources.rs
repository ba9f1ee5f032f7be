//! Resources, prompts and skills: the catalog's lists, and the requests a
//! person makes by hand (read, subscribe, get a prompt, ask for
//! completions, load a skill, read one of its files) — the application
//! layer's `offers`.

use serde_json::Value;
use tauri::{Runtime, State};
use workbench_app::CallOptions;
use workbench_app::offers::{self};

use crate::state::AppState;

#[tauri::command]
#[specta::specta]
pub async fn list_resources<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::ResourceRow>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(offers::resources(&state.workbench)) }.await)
}

#[tauri::command]
#[specta::specta]
pub async fn list_prompts<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::PromptRow>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(offers::prompts(&state.workbench)) }.await)
}

/// `resources/read`: the contents (text, or base64 blobs) as the server sent them.
#[tauri::command]
#[specta::specta]
pub async fn read_resource<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    uri: String,
) -> Result<Value, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            offers::read_resource(&state.workbench, &server, &uri, CallOptions::default()).await
        }
        .await,
    )
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
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { offers::subscribe(&state.workbench, &server, &uri, subscribe).await }.await,
    )
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
) -> Result<Value, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            offers::get_prompt(
                &state.workbench,
                &server,
                &name,
                args,
                CallOptions::default(),
            )
            .await
        }
        .await,
    )
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
) -> Result<Vec<String>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
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
        .await,
    )
}

#[tauri::command]
#[specta::specta]
pub async fn list_skills<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::SkillRow>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(offers::skills(&state.workbench)) }.await)
}

/// A skill loaded: its entry, its SKILL.md checked against it.
#[tauri::command]
#[specta::specta]
pub async fn load_skill<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    name: String,
) -> Result<crate::wire::LoadedSkill, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { offers::load_skill(&state.workbench, &server, &name, None).await }.await,
    )
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
) -> Result<crate::wire::SkillFile, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { offers::skill_file(&state.workbench, &server, &name, &path, None).await }
            .await,
    )
}
