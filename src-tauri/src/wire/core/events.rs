#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// What a server asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum AskKind {
    /// `sampling/createMessage`: an LLM completion.
    Sampling,
    /// `elicitation/create`: a form (or a URL) for the user.
    Elicitation,
}
/// An ask waiting for its answer.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct PendingAsk {
    pub id: u32,
    pub server: String,
    pub kind: AskKind,
    /// The request's params as the server sent them.
    pub params: Value,
}
crate::wire::to_wire!(workbench_core::events::PendingAsk => PendingAsk);
impl From<workbench_core::events::PendingAsk> for PendingAsk {
    fn from(v: workbench_core::events::PendingAsk) -> Self {
        let workbench_core::events::PendingAsk {
            id,
            server,
            kind,
            params,
        } = v;
        Self {
            id,
            server,
            kind: kind.into(),
            params,
        }
    }
}
crate::wire::to_wire!(workbench_core::events::AskKind => AskKind);
impl From<workbench_core::events::AskKind> for AskKind {
    fn from(v: workbench_core::events::AskKind) -> Self {
        match v {
            workbench_core::events::AskKind::Sampling => Self::Sampling,
            workbench_core::events::AskKind::Elicitation => Self::Elicitation,
        }
    }
}
