//! Chat sessions over the shared store: create, list, search, rename,
//! delete, change what they run with, read back as typed parts; the
//! default title from the first message; idle sessions cleaned up.

use serde::{Deserialize, Serialize};
use workbench_store::{MessageRow, NewSession, SessionRow, Usage};

use crate::error::{Error, Result};
use crate::parts::Part;
use crate::toolset::SessionOptions;
use crate::{Agent, Approval};

/// The title a chat has until its first message names it.
pub const UNTITLED: &str = "New chat";

/// A stored message with its parts typed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Message {
    pub id: i64,
    pub seq: i64,
    /// `user`, `assistant`, or `tool` (results).
    pub role: String,
    pub parts: Vec<Part>,
    pub usage: Option<Usage>,
    pub created_at: i64,
}

impl Message {
    pub fn from_row(row: MessageRow) -> Message {
        Message {
            parts: serde_json::from_value(row.content).unwrap_or_default(),
            id: row.id,
            seq: row.seq,
            role: row.role,
            usage: row.usage,
            created_at: row.created_at,
        }
    }
}

/// What a new chat starts with (absent: the settings' defaults).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct NewChat {
    pub title: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    pub options: Option<SessionOptions>,
}

/// A change to a chat (each `Some` replaces that field).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SessionChange {
    pub title: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    pub options: Option<SessionOptions>,
}

/// A chat as opened: the session, its messages, whether a turn is running
/// and the calls waiting for a decision.
#[derive(Debug, Clone, Serialize)]
pub struct ChatView {
    pub session: SessionRow,
    pub options: SessionOptions,
    pub messages: Vec<Message>,
    pub running: bool,
    pub pending: Vec<Approval>,
    /// Whether the chat's model takes images (an image attached to a
    /// message for one that does not is not sent, and the composer says so).
    pub accepts_images: bool,
}

/// A first message, cut to a title.
fn title_from(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= 60 {
        return line;
    }
    let mut t: String = line.chars().take(59).collect();
    t.push('…');
    t
}

pub(crate) fn options_of(session: &SessionRow) -> SessionOptions {
    serde_json::from_value(session.options.clone()).unwrap_or_default()
}

impl Agent {
    /// A new chat with the given or default provider, model and prompt.
    pub fn create_chat(&self, new: NewChat) -> Result<SessionRow> {
        self.new_session(new, false)
    }

    /// A new chat; `hidden`: an eval's run (kept for its transcript, not
    /// listed among the chats).
    pub(crate) fn new_session(&self, new: NewChat, hidden: bool) -> Result<SessionRow> {
        let settings = self.settings()?;
        let provider = match new.provider {
            Some(id) => settings
                .provider(&id)
                .cloned()
                .ok_or_else(|| Error::NoProvider(format!("no provider named \"{id}\" in the settings")))?,
            None => settings.default_provider().cloned().ok_or_else(|| {
                Error::NoProvider(
                    "no LLM provider is configured: add one (OpenAI, Anthropic, Gemini, Ollama or an OpenAI-compatible address) first".into(),
                )
            })?,
        };
        let model = new
            .model
            .or_else(|| provider.default_model.clone())
            .ok_or_else(|| {
                Error::NoProvider(format!(
                    "provider \"{}\" has no default model: choose a model",
                    provider.id
                ))
            })?;
        let options = serde_json::to_value(new.options.unwrap_or_default())
            .map_err(|e| Error::Invalid(e.to_string()))?;
        Ok(self.store().create_session(NewSession {
            hidden,
            title: new.title.unwrap_or_else(|| UNTITLED.to_string()),
            provider: provider.id,
            model,
            system_prompt: new.system_prompt.unwrap_or_default(),
            options,
        })?)
    }

    /// Chats, most recent first; with `search`, those whose title or
    /// messages contain it.
    pub fn chats(&self, search: Option<&str>) -> Result<Vec<SessionRow>> {
        Ok(self.store().sessions(search)?)
    }

    /// The chat `--session NAME` means: by id, else the latest with that title.
    pub fn find_chat(&self, name: &str) -> Result<Option<SessionRow>> {
        match self.store().session(name) {
            Ok(s) => Ok(Some(s)),
            Err(workbench_store::Error::NoSession(_)) => Ok(self.store().session_by_title(name)?),
            Err(e) => Err(e.into()),
        }
    }

    pub fn chat(&self, id: &str) -> Result<ChatView> {
        let session = self.store().session(id)?;
        let messages = self.messages(id)?;
        Ok(ChatView {
            options: options_of(&session),
            accepts_images: crate::providers::accepts_images(&session.model),
            running: self.is_running(id),
            pending: self.pending_approvals(id),
            session,
            messages,
        })
    }

    pub fn messages(&self, id: &str) -> Result<Vec<Message>> {
        Ok(self
            .store()
            .messages(id)?
            .into_iter()
            .map(Message::from_row)
            .collect())
    }

    pub fn update_chat(&self, id: &str, change: SessionChange) -> Result<SessionRow> {
        if self.is_running(id) && (change.provider.is_some() || change.model.is_some()) {
            return Err(Error::Busy(
                "a turn is running in this chat: stop it before changing the model".into(),
            ));
        }
        if let Some(p) = &change.provider
            && self.settings()?.provider(p).is_none()
        {
            return Err(Error::NoProvider(format!(
                "no provider named \"{p}\" in the settings"
            )));
        }
        if let Some(title) = &change.title {
            let title = title.trim();
            if title.is_empty() {
                return Err(Error::Invalid("a chat's title cannot be empty".into()));
            }
            self.store().rename_session(id, title)?;
        }
        let options = change
            .options
            .map(|o| serde_json::to_value(o).map_err(|e| Error::Invalid(e.to_string())))
            .transpose()?;
        Ok(self.store().update_session(
            id,
            change.provider.as_deref(),
            change.model.as_deref(),
            change.system_prompt.as_deref(),
            options.as_ref(),
        )?)
    }

    pub fn delete_chat(&self, id: &str) -> Result<()> {
        self.stop(id);
        Ok(self.store().delete_session(id)?)
    }

    /// Delete chats idle past the settings' age; returns how many.
    pub fn clean_up_idle(&self) -> Result<usize> {
        let days = self.settings()?.session_max_idle_days;
        if days == 0 {
            return Ok(0);
        }
        Ok(self
            .store()
            .delete_idle_sessions(i64::from(days) * 86_400_000)?)
    }

    /// Name an untitled chat after its first message.
    pub(crate) fn title_if_untitled(&self, id: &str, text: &str) -> Result<()> {
        let session = self.store().session(id)?;
        if session.title == UNTITLED && !text.trim().is_empty() {
            self.store().rename_session(id, &title_from(text))?;
        }
        Ok(())
    }

    /// Change a chat's options in place (servers and tools chosen, step limit, ...).
    pub fn change_chat_options(
        &self,
        id: &str,
        change: impl FnOnce(&mut SessionOptions),
    ) -> Result<SessionOptions> {
        let session = self.store().session(id)?;
        let mut options = options_of(&session);
        change(&mut options);
        let value = serde_json::to_value(&options).map_err(|e| Error::Invalid(e.to_string()))?;
        self.store()
            .update_session(id, None, None, None, Some(&value))?;
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_the_first_line_cut_to_sixty() {
        assert_eq!(title_from("  what is\nthe weather "), "what is the weather");
        let long = title_from(&"word ".repeat(30));
        assert_eq!(long.chars().count(), 60);
        assert!(long.ends_with('…'));
    }
}
