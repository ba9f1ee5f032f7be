#[allow(unused_imports)]
use super::*;
use serde::Serialize;
use serde_json::Value;
/// One declaration the host did not take, and why.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct Refused {
    /// `connectDomains`, `resourceDomains`, ...
    pub field: String,
    pub value: String,
    pub why: String,
}
crate::wire::to_wire!(workbench_core::apps::Refused => Refused);
impl From<workbench_core::apps::Refused> for Refused {
    fn from(v: workbench_core::apps::Refused) -> Self {
        let workbench_core::apps::Refused { field, value, why } = v;
        Self { field, value, why }
    }
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
/// An App resolved: its HTML and the policy it runs under.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct AppResource {
    pub server: String,
    pub uri: String,
    pub html: String,
    /// `_meta` of the content as the server sent it (or of the listed
    /// resource, where the content has none).
    pub meta: Value,
    pub policy: AppPolicy,
    /// `_meta.ui.prefersBorder` as declared.
    pub prefers_border: Option<bool>,
}
crate::wire::to_wire!(workbench_core::apps::AppResource => AppResource);
impl From<workbench_core::apps::AppResource> for AppResource {
    fn from(v: workbench_core::apps::AppResource) -> Self {
        let workbench_core::apps::AppResource {
            server,
            uri,
            html,
            meta,
            policy,
            prefers_border,
        } = v;
        Self {
            server,
            uri,
            html,
            meta,
            policy: policy.into(),
            prefers_border,
        }
    }
}
