//! Chat: sessions, turns (their events on a per-turn `Channel`), Stop,
//! approvals, the tools a chat's model sees, export through a save dialog.

use tauri::ipc::Channel;
use tauri::{Runtime, State};
use workbench_agent::{
    AgentEvent, ApproveMode, ChatTools, ChatView, Decision, EndReason, NewChat, SessionChange,
    SessionOptions, Sink,
};
use workbench_core::ErrorInfo;
use workbench_store::SessionRow;

use crate::state::AppState;

fn sink(channel: Channel<AgentEvent>) -> Sink {
    std::sync::Arc::new(move |event| {
        let _ = channel.send(event);
    })
}

/// Chats, most recent first; with `search`, those whose title or messages contain it.
#[tauri::command]
#[specta::specta]
pub async fn list_chats<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    search: Option<String>,
) -> Result<Vec<SessionRow>, ErrorInfo> {
    Ok(state.agent.chats(search.as_deref())?)
}

#[tauri::command]
#[specta::specta]
pub async fn create_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    init: NewChat,
) -> Result<SessionRow, ErrorInfo> {
    Ok(state.agent.create_chat(init)?)
}

/// A chat with its messages, whether a turn runs, and the calls waiting.
#[tauri::command]
#[specta::specta]
pub async fn open_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<ChatView, ErrorInfo> {
    Ok(state.agent.chat(&id)?)
}

/// Rename, change the provider, model or system prompt, or the chat's tools.
#[tauri::command]
#[specta::specta]
pub async fn update_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    change: SessionChange,
) -> Result<SessionRow, ErrorInfo> {
    Ok(state.agent.update_chat(&id, change)?)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), ErrorInfo> {
    Ok(state.agent.delete_chat(&id)?)
}

/// Send a message; the turn's events arrive on `on_event`; resolves when it ends.
#[tauri::command]
#[specta::specta]
pub async fn send_message<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    message: workbench_agent::attach::Outgoing,
    on_event: Channel<AgentEvent>,
) -> Result<EndReason, ErrorInfo> {
    let handle = state
        .agent
        .send_with(&id, message, ApproveMode::Ask, sink(on_event))?;
    Ok(handle.finished().await)
}

/// A server's resource read as attachments of a message (`@`).
#[tauri::command]
#[specta::specta]
pub async fn attach_resource<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    uri: String,
) -> Result<Vec<workbench_agent::parts::Part>, ErrorInfo> {
    Ok(state.agent.resource_attachment(&server, &uri).await?)
}

/// A server's prompt as a draft of a message (`/`).
#[tauri::command]
#[specta::specta]
pub async fn prompt_draft<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    name: String,
    args: serde_json::Value,
) -> Result<workbench_agent::attach::PromptDraft, ErrorInfo> {
    Ok(state.agent.prompt_draft(&server, &name, args).await?)
}

/// Ask again for the last answer (also Retry after a failure).
#[tauri::command]
#[specta::specta]
pub async fn regenerate<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    on_event: Channel<AgentEvent>,
) -> Result<EndReason, ErrorInfo> {
    let handle = state
        .agent
        .regenerate(&id, ApproveMode::Ask, sink(on_event))?;
    Ok(handle.finished().await)
}

/// Replace message `seq` (the person's) and everything after it, and go again.
#[tauri::command]
#[specta::specta]
pub async fn edit_message<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    seq: i64,
    text: String,
    on_event: Channel<AgentEvent>,
) -> Result<EndReason, ErrorInfo> {
    let handle = state
        .agent
        .edit_and_resend(&id, seq, &text, ApproveMode::Ask, sink(on_event))?;
    Ok(handle.finished().await)
}

/// Stop the chat's turn (stream dropped, calls cancelled); false if none ran.
#[tauri::command]
#[specta::specta]
pub async fn stop_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<bool, ErrorInfo> {
    Ok(state.agent.stop(&id))
}

/// Approve (perhaps with edited arguments, for this chat or always) or refuse a call.
#[tauri::command]
#[specta::specta]
pub async fn decide_call<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    approval: u32,
    decision: Decision,
) -> Result<(), ErrorInfo> {
    Ok(state.agent.decide(u64::from(approval), decision)?)
}

/// The tools the chat's model sees now, how they were adapted, the context meter.
#[tauri::command]
#[specta::specta]
pub async fn chat_tools<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<ChatTools, ErrorInfo> {
    Ok(state.agent.chat_tools(&id)?)
}

/// Replace the chat's options (servers and tools chosen, step limit).
#[tauri::command]
#[specta::specta]
pub async fn set_chat_options<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    options: SessionOptions,
) -> Result<SessionOptions, ErrorInfo> {
    Ok(state.agent.change_chat_options(&id, move |o| {
        // What the chat learned (allowed, loaded) is kept; the choices replaced.
        o.servers = options.servers;
        o.disabled_tools = options.disabled_tools;
        o.max_steps = options.max_steps;
    })?)
}

/// Export the chat as Markdown or JSON to a file the person picks; returns
/// the path written, or None when they cancelled.
#[tauri::command]
#[specta::specta]
pub async fn export_chat<R: Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    json: bool,
) -> Result<Option<String>, ErrorInfo> {
    let text = if json {
        serde_json::to_string_pretty(&state.agent.export_json(&id)?).unwrap_or_default()
    } else {
        state.agent.export_markdown(&id)?
    };
    let title = state.agent.chat(&id)?.session.title;
    let name = format!(
        "{}.{}",
        crate::commands::files::file_stem(&title),
        if json { "json" } else { "md" }
    );
    crate::commands::files::save_as(&app, &name, text.as_bytes()).await
}
