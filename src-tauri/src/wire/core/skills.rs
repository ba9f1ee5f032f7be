#[allow(unused_imports)]
use super::*;
/// One file a listing promises: its URI, size and digest.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, specta::Type)]
pub struct Promised {
    pub uri: String,
    /// Its path inside the skill (`references/FORMS.md`).
    pub path: String,
    #[specta(type = Option<f64>)]
    pub size: Option<u64>,
    pub digest: Option<String>,
}
crate::wire::to_wire!(workbench_core::skills::Promised => Promised);
impl From<workbench_core::skills::Promised> for Promised {
    fn from(v: workbench_core::skills::Promised) -> Self {
        let workbench_core::skills::Promised {
            uri,
            path,
            size,
            digest,
        } = v;
        Self {
            uri,
            path,
            size,
            digest,
        }
    }
}
