#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// The suite a session became: not trusted until the person trusts it in
/// its review (what a host sent is someone else's input).
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct SuiteMade {
    pub path: String,
    /// The entry its cases call.
    pub server: String,
    pub cases: u32,
    /// Calls answered with a JSON-RPC error, not made cases.
    pub left_out: u32,
    /// What it would do, for the person to trust it.
    pub review: crate::wire::calls::Review,
}
crate::wire::to_wire!(workbench_app::sessions::SuiteMade => SuiteMade);
impl From<workbench_app::sessions::SuiteMade> for SuiteMade {
    fn from(v: workbench_app::sessions::SuiteMade) -> Self {
        let workbench_app::sessions::SuiteMade {
            path,
            server,
            cases,
            left_out,
            review,
        } = v;
        Self {
            path,
            server,
            cases,
            left_out,
            review: review.into(),
        }
    }
}
