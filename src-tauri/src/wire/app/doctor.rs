#[allow(unused_imports)]
use super::*;
/// What the doctor finds of a server, counted (the sidebar's badge): each
/// code once, however many tools or pointers it is found at.
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
pub struct DoctorCount {
    pub server: String,
    /// Distinct codes found as errors.
    pub errors: u32,
    /// Distinct codes found as warnings, those of portability left out.
    pub warnings: u32,
    /// Distinct codes of portability: how one LLM provider would rewrite a
    /// schema (`provider.*`), not what is wrong with the server. The badge
    /// does not alarm for them.
    pub portability: u32,
    /// How many items (tools, resources, ...) those findings are about.
    pub items: u32,
    /// From the last full run (else the shape checks alone).
    pub from_run: bool,
}
crate::wire::to_wire!(workbench_app::doctor::DoctorCount => DoctorCount);
impl From<workbench_app::doctor::DoctorCount> for DoctorCount {
    fn from(v: workbench_app::doctor::DoctorCount) -> Self {
        let workbench_app::doctor::DoctorCount {
            server,
            errors,
            warnings,
            portability,
            items,
            from_run,
        } = v;
        Self {
            server,
            errors,
            warnings,
            portability,
            items,
            from_run,
        }
    }
}
