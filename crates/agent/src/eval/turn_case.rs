//! Save to suite from a chat: the turn that began with the person's
//! message, as a prompt case could keep it — its prompt, the servers the
//! chat used, each call the model made, the steps it took, and the chat's
//! model.

use crate::Agent;
use crate::events::EndReason;
use crate::parts::Part;
use workbench_calls::suite::prompt::SeenCall;

use super::seen_of;

/// A chat's turn as a prompt case could keep it (Save to suite): the
/// person's message, the servers the chat used, each call the model made,
/// how many steps it took, and the chat's model as `PROVIDER:MODEL`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TurnCase {
    pub prompt: String,
    pub servers: Vec<String>,
    pub calls: Vec<SeenCall>,
    pub steps: u32,
    /// The model's last answer.
    pub answer: String,
    pub model: String,
}

impl Agent {
    /// The turn that began with the person's message `seq`.
    pub fn turn_case(&self, session: &str, seq: i64) -> crate::Result<TurnCase> {
        let row = self.store().session(session)?;
        let messages = self.messages(session)?;
        let Some(at) = messages
            .iter()
            .position(|m| m.seq == seq && m.role == "user")
        else {
            return Err(crate::Error::NotFound(format!(
                "this chat has no message {seq} of yours"
            )));
        };
        let prompt = messages[at]
            .parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        let turn: Vec<crate::Message> = messages[at + 1..]
            .iter()
            .take_while(|m| m.role != "user")
            .cloned()
            .collect();
        let seen = seen_of(&turn, EndReason::Done);
        let options = crate::sessions::options_of(&row);
        let mut servers: Vec<String> = options.servers.unwrap_or_default();
        if servers.is_empty() {
            for m in &turn {
                for p in &m.parts {
                    if let Part::ToolCall {
                        server: Some(s), ..
                    } = p
                        && !servers.contains(s)
                    {
                        servers.push(s.clone());
                    }
                }
            }
        }
        Ok(TurnCase {
            prompt,
            servers,
            calls: seen.calls,
            steps: seen.steps,
            answer: seen.answer,
            model: format!("{}:{}", row.provider, row.model),
        })
    }
}
