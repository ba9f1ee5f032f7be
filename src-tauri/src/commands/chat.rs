//! Chat: sessions, turns (their events on a per-turn `Channel`), Stop,
//! approvals, the tools a chat's model sees, export through a save dialog.

use tauri::ipc::Channel;
use tauri::{Runtime, State};
use workbench_app::chat::{self, Turn};
use workbench_app::chat_types::{Decision, NewChat, Outgoing, SessionChange, SessionOptions, Sink};

use crate::state::AppState;

fn sink(channel: Channel<crate::wire::AgentEvent>) -> Sink {
    std::sync::Arc::new(move |event| {
        let _ = channel.send(event.into());
    })
}

/// Chats, most recent first; with `search`, those whose title or messages contain it.
#[tauri::command]
#[specta::specta]
pub async fn list_chats<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    search: Option<String>,
) -> Result<Vec<crate::wire::SessionRow>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { chat::list(&state.agent, search.as_deref()) }.await)
}

#[tauri::command]
#[specta::specta]
pub async fn create_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    init: crate::wire::NewChat,
) -> Result<crate::wire::SessionRow, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let init: NewChat = init.into();
            chat::create(&state.agent, init)
        }
        .await,
    )
}

/// A chat with its messages, whether a turn runs, and the calls waiting.
#[tauri::command]
#[specta::specta]
pub async fn open_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<crate::wire::ChatView, crate::wire::ErrorInfo> {
    crate::wire::out(async move { chat::open(&state.agent, &id) }.await)
}

/// Rename, change the provider, model or system prompt, or the chat's tools.
#[tauri::command]
#[specta::specta]
pub async fn update_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    change: crate::wire::SessionChange,
) -> Result<crate::wire::SessionRow, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let change: SessionChange = change.into();
            chat::update(&state.agent, &id, change)
        }
        .await,
    )
}

#[tauri::command]
#[specta::specta]
pub async fn delete_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(async move { chat::delete(&state.agent, &id) }.await)
}

/// Send a message; the turn's events arrive on `on_event`; resolves when it ends.
#[tauri::command]
#[specta::specta]
pub async fn send_message<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    message: crate::wire::Outgoing,
    on_event: Channel<crate::wire::AgentEvent>,
) -> Result<crate::wire::EndReason, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let message: Outgoing = message.into();
            chat::run_turn(&state.agent, &id, Turn::Send(message), sink(on_event)).await
        }
        .await,
    )
}

/// A server's resource read as attachments of a message (`@`).
#[tauri::command]
#[specta::specta]
pub async fn attach_resource<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    uri: String,
) -> Result<Vec<crate::wire::Part>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { chat::attach_resource(&state.agent, &server, &uri).await }.await)
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
) -> Result<crate::wire::PromptDraft, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { chat::prompt_draft(&state.agent, &server, &name, args).await }.await,
    )
}

/// Ask again for the last answer (also Retry after a failure).
#[tauri::command]
#[specta::specta]
pub async fn regenerate<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    on_event: Channel<crate::wire::AgentEvent>,
) -> Result<crate::wire::EndReason, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { chat::run_turn(&state.agent, &id, Turn::Regenerate, sink(on_event)).await }
            .await,
    )
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
    on_event: Channel<crate::wire::AgentEvent>,
) -> Result<crate::wire::EndReason, crate::wire::ErrorInfo> {
    crate::wire::out(async move {
        chat::run_turn(&state.agent, &id, Turn::Edit { seq, text }, sink(on_event)).await
    }
    .await)
}

/// Stop the chat's turn (stream dropped, calls cancelled); false if none ran.
#[tauri::command]
#[specta::specta]
pub async fn stop_chat<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<bool, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(chat::stop(&state.agent, &id)) }.await)
}

/// Approve (perhaps with edited arguments, for this chat or always) or refuse a call.
#[tauri::command]
#[specta::specta]
pub async fn decide_call<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    approval: u32,
    decision: crate::wire::Decision,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let decision: Decision = decision.into();
            chat::decide(&state.agent, u64::from(approval), decision)
        }
        .await,
    )
}

/// The tools the chat's model sees now, how they were adapted, the context meter.
#[tauri::command]
#[specta::specta]
pub async fn chat_tools<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
) -> Result<crate::wire::ChatTools, crate::wire::ErrorInfo> {
    crate::wire::out(async move { chat::tools(&state.agent, &id) }.await)
}

/// Replace the chat's options (servers and tools chosen, step limit).
#[tauri::command]
#[specta::specta]
pub async fn set_chat_options<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    id: String,
    options: crate::wire::SessionOptions,
) -> Result<crate::wire::SessionOptions, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let options: SessionOptions = options.into();
            chat::set_options(&state.agent, &id, options)
        }
        .await,
    )
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
) -> Result<Option<String>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let (name, text) = chat::export(&state.agent, &id, json)?;
            crate::commands::files::save_as(&app, &name, text.as_bytes()).await
        }
        .await,
    )
}
