#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// One declaration the host did not take, and why.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct Refused {
    /// `connectDomains`, `resourceDomains`, ...
    pub field: String,
    pub value: String,
    pub why: String,
}
/// The CSP an App runs under and what of its declaration was not taken.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct AppPolicy {
    /// The header's value, directives separated by `; `.
    pub csp: String,
    /// The frame's Permission Policy (`allow` attribute): camera,
    /// microphone, geolocation, clipboard-write as declared.
    pub allow: String,
    pub refused: Vec<Refused>,
}
crate::wire::to_wire!(workbench_core::apps::AppPolicy => AppPolicy);
impl From<workbench_core::apps::AppPolicy> for AppPolicy {
    fn from(v: workbench_core::apps::AppPolicy) -> Self {
        let workbench_core::apps::AppPolicy {
            csp,
            allow,
            refused,
        } = v;
        Self {
            csp,
            allow,
            refused: refused.into_iter().map(|v| v.into()).collect(),
        }
    }
}
crate::wire::to_wire!(workbench_core::apps::Refused => Refused);
impl From<workbench_core::apps::Refused> for Refused {
    fn from(v: workbench_core::apps::Refused) -> Self {
        let workbench_core::apps::Refused { field, value, why } = v;
        Self { field, value, why }
    }
}
