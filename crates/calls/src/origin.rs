//! Who made a call, as the History keeps it, and what that says of who
//! answers for it (a person's own act, or a caller that must carry the
//! person's consent).

use serde::{Deserialize, Serialize};

/// Who made a call (kept with it in the history).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// A person, by hand in the window's tool panel.
    Window,
    /// The agent, in a chat.
    Chat,
    /// A client of the bridge.
    Bridge,
    /// `mcpwb call`.
    Cli,
    /// A suite's case (`mcpwb test`, the Suites room).
    Suite,
    /// An MCP App's own call.
    App,
    /// The doctor's probe of a read-only tool (`--probe`, asked for).
    Doctor,
    /// A model's call in a suite's prompt case (an eval), unattended.
    Eval,
    /// A coding agent through the workbench's own tools (`mcpwb serve --workbench`).
    Agent,
    /// A load run's calls (`mcpwb load`, the tool panel's Load): never kept
    /// one by one; the run is kept as one summary row.
    Load,
}

impl Origin {
    pub const ALL: [Origin; 10] = [
        Origin::Window,
        Origin::Chat,
        Origin::Bridge,
        Origin::Cli,
        Origin::Suite,
        Origin::App,
        Origin::Doctor,
        Origin::Eval,
        Origin::Agent,
        Origin::Load,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Window => "window",
            Origin::Chat => "chat",
            Origin::Bridge => "bridge",
            Origin::Cli => "cli",
            Origin::Suite => "suite",
            Origin::App => "app",
            Origin::Doctor => "doctor",
            Origin::Eval => "eval",
            Origin::Agent => "agent",
            Origin::Load => "load",
        }
    }

    pub fn parse(s: &str) -> Option<Origin> {
        Origin::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// Whether a person drove this call directly (their own act is its
    /// approval). A suite's case and the doctor's probe are not: their
    /// calls come from a file or a server's own marks, and pass the
    /// standing rules (`Calls::standing_refusal`).
    pub fn by_person(self) -> bool {
        matches!(self, Origin::Window | Origin::Cli)
    }

    /// Whether a person answers for this call as it is made (they are asked,
    /// or a standing rule they set answers): it must carry a `Consent`.
    pub fn answered_for(self) -> bool {
        matches!(
            self,
            Origin::Chat | Origin::Bridge | Origin::App | Origin::Agent
        )
    }
}
