#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// One change of a server's state.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct LifeEvent {
    /// Milliseconds since the Unix epoch.
    pub at_ms: f64,
    /// `starting`, `slow`, `ready`, `failed`, `restarting`, `stopped`,
    /// `disabled`, `untrusted`; or `catalog` (its lists could not be read).
    pub state: String,
    pub code: Option<FailureCode>,
    /// Why, for a failure or a restart (masked like every reason).
    pub reason: Option<String>,
    /// For a restart: which attempt.
    pub attempt: Option<u32>,
}
crate::wire::to_wire!(workbench_core::connect::life::LifeEvent => LifeEvent);
impl From<workbench_core::connect::life::LifeEvent> for LifeEvent {
    fn from(v: workbench_core::connect::life::LifeEvent) -> Self {
        let workbench_core::connect::life::LifeEvent {
            at_ms,
            state,
            code,
            reason,
            attempt,
        } = v;
        Self {
            at_ms,
            state,
            code: code.map(|v| v.into()),
            reason,
            attempt,
        }
    }
}
