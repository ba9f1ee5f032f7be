#[allow(unused_imports)]
use super::*;
use serde::{Deserialize, Serialize};
/// Who made a call (kept with it in the history).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
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
crate::wire::to_wire!(workbench_calls::Origin => Origin);
impl From<workbench_calls::Origin> for Origin {
    fn from(v: workbench_calls::Origin) -> Self {
        match v {
            workbench_calls::Origin::Window => Self::Window,
            workbench_calls::Origin::Chat => Self::Chat,
            workbench_calls::Origin::Bridge => Self::Bridge,
            workbench_calls::Origin::Cli => Self::Cli,
            workbench_calls::Origin::Suite => Self::Suite,
            workbench_calls::Origin::App => Self::App,
            workbench_calls::Origin::Doctor => Self::Doctor,
            workbench_calls::Origin::Eval => Self::Eval,
            workbench_calls::Origin::Agent => Self::Agent,
            workbench_calls::Origin::Load => Self::Load,
        }
    }
}
