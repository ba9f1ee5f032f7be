//! Resources and prompts: the catalog's lists, and the requests a person
//! makes by hand (read, subscribe, get a prompt, ask for completions).

use serde::Serialize;
use serde_json::{Value, json};
use tauri::{Runtime, State};
use workbench_core::{CallOptions, ErrorInfo};

use crate::state::AppState;

/// A resource, or a resource template (`uriTemplate`), of a server.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ResourceRow {
    pub server: String,
    pub template: bool,
    /// As the server listed it (uri or uriTemplate, name, title, mimeType, ...).
    pub resource: Value,
    pub stale: bool,
}

#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PromptRow {
    pub server: String,
    /// As the server listed it (name, title, description, arguments).
    pub prompt: Value,
    pub stale: bool,
}

#[tauri::command]
#[specta::specta]
pub async fn list_resources<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<ResourceRow>, ErrorInfo> {
    let mut out = Vec::new();
    for server in state.workbench.servers() {
        let Some(cat) = state.workbench.catalog().server(server.name()) else {
            continue;
        };
        let rows = cat
            .resources
            .iter()
            .map(|r| (false, r))
            .chain(cat.resource_templates.iter().map(|r| (true, r)));
        for (template, resource) in rows {
            out.push(ResourceRow {
                server: server.name().to_string(),
                template,
                resource: resource.clone(),
                stale: cat.stale,
            });
        }
    }
    Ok(out)
}

#[tauri::command]
#[specta::specta]
pub async fn list_prompts<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<PromptRow>, ErrorInfo> {
    let mut out = Vec::new();
    for server in state.workbench.servers() {
        if let Some(cat) = state.workbench.catalog().server(server.name()) {
            out.extend(cat.prompts.iter().map(|p| PromptRow {
                server: server.name().to_string(),
                prompt: p.clone(),
                stale: cat.stale,
            }));
        }
    }
    Ok(out)
}

async fn ask(
    state: &AppState,
    server: &str,
    method: &str,
    params: Value,
) -> Result<Value, ErrorInfo> {
    let outcome = state
        .workbench
        .request(server, method, params, CallOptions::default())
        .await?;
    Ok(outcome.result)
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
    ask(&state, &server, "resources/read", json!({ "uri": uri })).await
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
    // Either era: resources/subscribe, or the server's listen stream (2026-07-28).
    state
        .workbench
        .subscribe_resource(&server, &uri, subscribe)
        .await?;
    Ok(())
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
    ask(
        &state,
        &server,
        "prompts/get",
        json!({ "name": name, "arguments": args }),
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
    let mut params = json!({ "ref": reference, "argument": { "name": argument, "value": value } });
    // The values already chosen, for completions that depend on them.
    if let Some(arguments) = context.filter(|c| !c.is_empty()) {
        params["context"] = json!({ "arguments": arguments });
    }
    let result = ask(&state, &server, "completion/complete", params).await?;
    Ok(result["completion"]["values"]
        .as_array()
        .map(|v| {
            v.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default())
}

/// A skill (SEP-2640) of a server, as its `skills/list` gave it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct SkillRow {
    pub server: String,
    /// Its name (the folder of its SKILL.md).
    pub name: String,
    /// The entry as listed (uri, frontmatter, resources with digests and sizes).
    pub skill: Value,
    pub stale: bool,
}

#[tauri::command]
#[specta::specta]
pub async fn list_skills<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<SkillRow>, ErrorInfo> {
    let mut out = Vec::new();
    for server in state.workbench.servers() {
        if let Some(cat) = state.workbench.catalog().server(server.name()) {
            out.extend(cat.skills.iter().map(|s| SkillRow {
                server: server.name().to_string(),
                name: workbench_core::skills::name_of(s),
                skill: s.clone(),
                stale: cat.stale,
            }));
        }
    }
    Ok(out)
}

/// A skill loaded: its entry, its SKILL.md checked against it.
#[tauri::command]
#[specta::specta]
pub async fn load_skill<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    name: String,
) -> Result<workbench_core::LoadedSkill, ErrorInfo> {
    Ok(state.workbench.load_skill(&server, &name, None).await?)
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
) -> Result<workbench_core::SkillFile, ErrorInfo> {
    Ok(state
        .workbench
        .skill_file(&server, &name, &path, None)
        .await?)
}
