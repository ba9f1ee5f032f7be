#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
/// A server's prompt as a draft of the person's message (`/`): its
/// messages' text, editable before it is sent, and what is not text (images,
/// embedded resources) as attachments.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PromptDraft {
    pub text: String,
    pub attachments: Vec<Part>,
    /// What did not fit a message (the model's turns in the prompt, audio).
    pub notes: Vec<String>,
    /// The prompt's name: an untitled chat it starts is named after it
    /// (not after its text, which can open with "User: …").
    pub title: String,
}
/// The person's message as sent: its text, what is attached, and the
/// title an untitled chat takes (a prompt's name; none: from the text).
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
pub struct Outgoing {
    pub text: String,
    #[serde(default)]
    pub attachments: Vec<Part>,
    #[serde(default)]
    pub title: Option<String>,
}
impl From<Outgoing> for workbench_agent::attach::Outgoing {
    fn from(v: Outgoing) -> Self {
        let Outgoing {
            text,
            attachments,
            title,
        } = v;
        workbench_agent::attach::Outgoing {
            text,
            attachments: attachments.into_iter().map(|v| v.into()).collect(),
            title,
        }
    }
}
crate::wire::to_wire!(workbench_agent::attach::PromptDraft => PromptDraft);
impl From<workbench_agent::attach::PromptDraft> for PromptDraft {
    fn from(v: workbench_agent::attach::PromptDraft) -> Self {
        let workbench_agent::attach::PromptDraft {
            text,
            attachments,
            notes,
            title,
        } = v;
        Self {
            text,
            attachments: attachments.into_iter().map(|v| v.into()).collect(),
            notes,
            title,
        }
    }
}
