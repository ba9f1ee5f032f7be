#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// How big the History may grow, and how big it is.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct HistoryUsage {
    pub settings: crate::wire::calls::HistorySettings,
    pub calls: i64,
    pub bytes: i64,
}
crate::wire::to_wire!(workbench_app::history::HistoryUsage => HistoryUsage);
impl From<workbench_app::history::HistoryUsage> for HistoryUsage {
    fn from(v: workbench_app::history::HistoryUsage) -> Self {
        let workbench_app::history::HistoryUsage {
            settings,
            calls,
            bytes,
        } = v;
        Self {
            settings: settings.into(),
            calls,
            bytes,
        }
    }
}
