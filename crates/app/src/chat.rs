//! The chats a person has with the agent, as the window drives them: listed,
//! made, opened, changed, deleted; a message sent (or the last answer asked
//! again, or a message edited and sent again) with the turn's events going
//! to the caller's sink, the person's own approvals; a turn stopped; a call
//! decided; the tools the model sees; a chat's options replaced (what the
//! chat learned kept); a chat exported under a name made from its title.

use serde_json::Value;
use workbench_agent::attach::{Outgoing, PromptDraft};
pub use workbench_agent::{
    Agent, AgentEvent, Approval, ApproveMode, Decision, EndReason, Part, Remember, Sink,
};
use workbench_agent::{ChatTools, ChatView, NewChat, SessionChange, SessionOptions};
use workbench_core::ErrorInfo;
use workbench_store::SessionRow;

/// Chats, most recent first; with `search`, those whose title or messages
/// contain it.
pub fn list(agent: &Agent, search: Option<&str>) -> Result<Vec<SessionRow>, ErrorInfo> {
    Ok(agent.chats(search)?)
}

pub fn create(agent: &Agent, init: NewChat) -> Result<SessionRow, ErrorInfo> {
    Ok(agent.create_chat(init)?)
}

/// A chat with its messages, whether a turn runs, and the calls waiting.
pub fn open(agent: &Agent, id: &str) -> Result<ChatView, ErrorInfo> {
    Ok(agent.chat(id)?)
}

/// Rename, change the provider, model or system prompt, or the chat's tools.
pub fn update(agent: &Agent, id: &str, change: SessionChange) -> Result<SessionRow, ErrorInfo> {
    Ok(agent.update_chat(id, change)?)
}

pub fn delete(agent: &Agent, id: &str) -> Result<(), ErrorInfo> {
    Ok(agent.delete_chat(id)?)
}

/// What a turn is: a new message, the last answer asked again, or the
/// person's message `seq` replaced (and everything after it).
pub enum Turn {
    Send(Outgoing),
    Regenerate,
    Edit { seq: i64, text: String },
}

/// Run a turn of chat `id`, the person approving calls as they come (the
/// window's way); its events go to `sink`. Resolves when it ends.
pub async fn run_turn(
    agent: &Agent,
    id: &str,
    turn: Turn,
    sink: Sink,
) -> Result<EndReason, ErrorInfo> {
    let mode = ApproveMode::Ask;
    let handle = match turn {
        Turn::Send(message) => agent.send_with(id, message, mode, sink)?,
        Turn::Regenerate => agent.regenerate(id, mode, sink)?,
        Turn::Edit { seq, text } => agent.edit_and_resend(id, seq, &text, mode, sink)?,
    };
    Ok(handle.finished().await)
}

/// A turn of chat `id` from a terminal or a script: `text` sent, its
/// calls approved as `mode` says; its events go to `sink`. Resolves when it
/// ends ([`stop`] ends it early).
pub async fn send(
    agent: &Agent,
    id: &str,
    text: &str,
    mode: ApproveMode,
    sink: Sink,
) -> Result<EndReason, ErrorInfo> {
    let handle = agent.send(id, text, mode, sink)?;
    Ok(handle.finished().await)
}

/// A server's resource read as attachments of a message (`@`).
pub async fn attach_resource(
    agent: &Agent,
    server: &str,
    uri: &str,
) -> Result<Vec<Part>, ErrorInfo> {
    Ok(agent.resource_attachment(server, uri).await?)
}

/// A server's prompt as a draft of a message (`/`).
pub async fn prompt_draft(
    agent: &Agent,
    server: &str,
    name: &str,
    args: Value,
) -> Result<PromptDraft, ErrorInfo> {
    Ok(agent.prompt_draft(server, name, args).await?)
}

/// Stop the chat's turn (stream dropped, calls cancelled); false if none ran.
pub fn stop(agent: &Agent, id: &str) -> bool {
    agent.stop(id)
}

/// Approve (perhaps with edited arguments, for this chat or always) or
/// refuse a waiting call.
pub fn decide(agent: &Agent, approval: u64, decision: Decision) -> Result<(), ErrorInfo> {
    Ok(agent.decide(approval, decision)?)
}

/// The tools the chat's model sees now, how they were adapted, the context meter.
pub fn tools(agent: &Agent, id: &str) -> Result<ChatTools, ErrorInfo> {
    Ok(agent.chat_tools(id)?)
}

/// Replace the chat's choices (servers and tools chosen, step limit); what
/// the chat learned (tools allowed, skills loaded) is kept.
pub fn set_options(
    agent: &Agent,
    id: &str,
    options: SessionOptions,
) -> Result<SessionOptions, ErrorInfo> {
    Ok(agent.change_chat_options(id, move |o| {
        o.servers = options.servers;
        o.disabled_tools = options.disabled_tools;
        o.max_steps = options.max_steps;
    })?)
}

/// What a run of `mcpwb chat` asks of its chat.
#[derive(Debug, Clone, Default)]
pub struct ForRun {
    /// The chat's id or title (None, or no such chat: a new one, so named).
    pub name: Option<String>,
    pub system_prompt: Option<String>,
    /// The servers its tools come from (empty: as the chat has them).
    pub servers: Vec<String>,
    pub max_steps: Option<u32>,
}

/// The chat a run names, made if none has that name, set to the default
/// provider and its model, and to the run's prompt, servers and step limit.
pub fn for_run(agent: &Agent, run: ForRun) -> Result<SessionRow, ErrorInfo> {
    let found = match run.name.as_deref() {
        Some(n) => agent.find_chat(n)?,
        None => None,
    };
    let session = match found {
        Some(s) => s,
        None => agent.create_chat(NewChat {
            title: run.name.clone(),
            ..Default::default()
        })?,
    };
    let provider = agent.settings()?.default_provider().cloned();
    agent.update_chat(
        &session.id,
        SessionChange {
            provider: provider.as_ref().map(|p| p.id.clone()),
            model: provider.and_then(|p| p.default_model),
            system_prompt: run.system_prompt,
            ..Default::default()
        },
    )?;
    let (servers, max_steps) = (run.servers, run.max_steps);
    agent.change_chat_options(&session.id, |o| {
        if !servers.is_empty() {
            o.servers = Some(servers);
        }
        if max_steps.is_some() {
            o.max_steps = max_steps;
        }
    })?;
    Ok(session)
}

/// A chat as a file: its suggested name (from its title) and its text,
/// Markdown or (with `json`) JSON.
pub fn export(agent: &Agent, id: &str, json: bool) -> Result<(String, String), ErrorInfo> {
    let text = if json {
        serde_json::to_string_pretty(&agent.export_json(id)?).unwrap_or_default()
    } else {
        agent.export_markdown(id)?
    };
    let title = agent.chat(id)?.session.title;
    let name = format!("{}.{}", file_stem(&title), if json { "json" } else { "md" });
    Ok((name, text))
}

/// A file name made from a title: letters, digits, `-` and `_`, at most 60.
pub fn file_stem(title: &str) -> String {
    let stem: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let stem: String = stem.chars().take(60).collect();
    if stem.is_empty() {
        "export".into()
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    use super::file_stem;

    #[test]
    fn a_title_becomes_a_file_name() {
        assert_eq!(
            file_stem("Weather in Oslo? (today)"),
            "Weather-in-Oslo-today"
        );
        assert_eq!(file_stem("///"), "export");
        assert_eq!(file_stem(&"x".repeat(80)).len(), 60);
    }
}
