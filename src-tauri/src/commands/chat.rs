//! Chat: sessions, turns (their events on a per-turn `Channel`), Stop,
//! approvals, the tools a chat's model sees, export through a save dialog.

use tauri::ipc::Channel;
use tauri::{Runtime, State};
use workbench_app::ErrorInfo;
use workbench_app::chat::{self, Turn};
use workbench_app::chat_types::{
    AgentEvent, ChatTools, ChatView, Decision, EndReason, NewChat, Outgoing, Part, PromptDraft,
    SessionChange, SessionOptions, SessionRow, Sink,
};

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
    chat::list(&state.agent, search.as_deref())
}

#[tauri::command]
#[specta::specta]
pub async fn create_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    init: NewChat,
) -> Result<SessionRow, ErrorInfo> {
    chat::create(&state.agent, init)
}

/// A chat with its messages, whether a turn runs, and the calls waiting.
#[tauri::command]
#[specta::specta]
pub async fn open_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<ChatView, ErrorInfo> {
    chat::open(&state.agent, &id)
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
    chat::update(&state.agent, &id, change)
}

#[tauri::command]
#[specta::specta]
pub async fn delete_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), ErrorInfo> {
    chat::delete(&state.agent, &id)
}

/// Send a message; the turn's events arrive on `on_event`; resolves when it ends.
#[tauri::command]
#[specta::specta]
pub async fn send_message<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    message: Outgoing,
    on_event: Channel<AgentEvent>,
) -> Result<EndReason, ErrorInfo> {
    chat::run_turn(&state.agent, &id, Turn::Send(message), sink(on_event)).await
}

/// A server's resource read as attachments of a message (`@`).
#[tauri::command]
#[specta::specta]
pub async fn attach_resource<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    uri: String,
) -> Result<Vec<Part>, ErrorInfo> {
    chat::attach_resource(&state.agent, &server, &uri).await
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
) -> Result<PromptDraft, ErrorInfo> {
    chat::prompt_draft(&state.agent, &server, &name, args).await
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
    chat::run_turn(&state.agent, &id, Turn::Regenerate, sink(on_event)).await
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
    chat::run_turn(&state.agent, &id, Turn::Edit { seq, text }, sink(on_event)).await
}

/// Stop the chat's turn (stream dropped, calls cancelled); false if none ran.
#[tauri::command]
#[specta::specta]
pub async fn stop_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<bool, ErrorInfo> {
    Ok(chat::stop(&state.agent, &id))
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
    chat::decide(&state.agent, u64::from(approval), decision)
}

/// The tools the chat's model sees now, how they were adapted, the context meter.
#[tauri::command]
#[specta::specta]
pub async fn chat_tools<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<ChatTools, ErrorInfo> {
    chat::tools(&state.agent, &id)
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
    chat::set_options(&state.agent, &id, options)
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
    let (name, text) = chat::export(&state.agent, &id, json)?;
    crate::commands::files::save_as(&app, &name, text.as_bytes()).await
}
