#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// The last refusal a server gave.
#[derive(Debug, Clone, Serialize, PartialEq, specta::Type)]
pub struct Refusal {
    /// 401 or 403.
    pub status: u16,
    /// The refused request's method (`tools/call`), when it was one.
    pub method: Option<String>,
    /// The `WWW-Authenticate` header as sent.
    pub header: String,
    /// The scopes the challenge names.
    pub scope: Option<String>,
    /// The challenge's `error` (`invalid_token`, `insufficient_scope`).
    pub error: Option<String>,
}
crate::wire::to_wire!(workbench_core::challenge::Refusal => Refusal);
impl From<workbench_core::challenge::Refusal> for Refusal {
    fn from(v: workbench_core::challenge::Refusal) -> Self {
        let workbench_core::challenge::Refusal {
            status,
            method,
            header,
            scope,
            error,
        } = v;
        Self {
            status,
            method,
            header,
            scope,
            error,
        }
    }
}
