#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
/// A stored message with its parts typed.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct Message {
    pub id: i64,
    pub seq: i64,
    /// `user`, `assistant`, or `tool` (results).
    pub role: String,
    pub parts: Vec<Part>,
    pub usage: Option<crate::wire::store::Usage>,
    pub created_at: i64,
}
/// What a new chat starts with (absent: the settings' defaults).
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct NewChat {
    pub title: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    pub options: Option<SessionOptions>,
}
/// A change to a chat (each `Some` replaces that field).
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct SessionChange {
    pub title: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub system_prompt: Option<String>,
    pub options: Option<SessionOptions>,
}
/// A chat as opened: the session, its messages, whether a turn is running
/// and the calls waiting for a decision.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ChatView {
    pub session: crate::wire::store::SessionRow,
    pub options: SessionOptions,
    pub messages: Vec<Message>,
    pub running: bool,
    pub pending: Vec<crate::wire::calls::Approval>,
    /// Whether the chat's model takes images (an image attached to a
    /// message for one that does not is not sent, and the composer says so).
    pub accepts_images: bool,
}
impl From<NewChat> for workbench_agent::NewChat {
    fn from(v: NewChat) -> Self {
        let NewChat {
            title,
            provider,
            model,
            system_prompt,
            options,
        } = v;
        workbench_agent::NewChat {
            title,
            provider,
            model,
            system_prompt,
            options: options.map(|v| v.into()),
        }
    }
}
impl From<SessionChange> for workbench_agent::SessionChange {
    fn from(v: SessionChange) -> Self {
        let SessionChange {
            title,
            provider,
            model,
            system_prompt,
            options,
        } = v;
        workbench_agent::SessionChange {
            title,
            provider,
            model,
            system_prompt,
            options: options.map(|v| v.into()),
        }
    }
}
crate::wire::to_wire!(workbench_agent::ChatView => ChatView);
impl From<workbench_agent::ChatView> for ChatView {
    fn from(v: workbench_agent::ChatView) -> Self {
        let workbench_agent::ChatView {
            session,
            options,
            messages,
            running,
            pending,
            accepts_images,
        } = v;
        Self {
            session: session.into(),
            options: options.into(),
            messages: messages.into_iter().map(|v| v.into()).collect(),
            running,
            pending: pending.into_iter().map(|v| v.into()).collect(),
            accepts_images,
        }
    }
}
crate::wire::to_wire!(workbench_agent::Message => Message);
impl From<workbench_agent::Message> for Message {
    fn from(v: workbench_agent::Message) -> Self {
        let workbench_agent::Message {
            id,
            seq,
            role,
            parts,
            usage,
            created_at,
        } = v;
        Self {
            id,
            seq,
            role,
            parts: parts.into_iter().map(|v| v.into()).collect(),
            usage: usage.map(|v| v.into()),
            created_at,
        }
    }
}
