#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// The model chosen, and why (the ask dialog says it).
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct ModelChoice {
    pub provider: String,
    pub model: String,
    pub why: String,
}
crate::wire::to_wire!(workbench_agent::preferences::ModelChoice => ModelChoice);
impl From<workbench_agent::preferences::ModelChoice> for ModelChoice {
    fn from(v: workbench_agent::preferences::ModelChoice) -> Self {
        let workbench_agent::preferences::ModelChoice {
            provider,
            model,
            why,
        } = v;
        Self {
            provider,
            model,
            why,
        }
    }
}
