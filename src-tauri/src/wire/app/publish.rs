#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// One way started with one host's PATH.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct HostRun {
    pub way: String,
    pub host: String,
    /// It answered (initialize and its lists).
    pub started: bool,
    pub tools: Vec<String>,
    /// Why it did not start, as the workbench saw it.
    pub error: Option<String>,
    /// The doctor's checks of what it offered there (its tools' names,
    /// schemas and texts, its resources and prompts), worst first.
    pub doctor: Vec<crate::wire::doctor::Finding>,
}
/// What `publish check` found.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct PublishReport {
    pub folder: String,
    pub findings: Vec<crate::wire::doctor::Finding>,
    pub ways: Vec<crate::wire::doctor::PublishWay>,
    pub hosts: Vec<crate::wire::doctor::PublishHost>,
    /// Each way as each host started it (empty unless asked to run).
    pub runs: Vec<HostRun>,
    /// What the ways are, in short: sent back to start them.
    pub fingerprint: String,
}
crate::wire::to_wire!(workbench_app::publish::PublishReport => PublishReport);
impl From<workbench_app::publish::PublishReport> for PublishReport {
    fn from(v: workbench_app::publish::PublishReport) -> Self {
        let workbench_app::publish::PublishReport {
            folder,
            findings,
            ways,
            hosts,
            runs,
            fingerprint,
        } = v;
        Self {
            folder,
            findings: findings.into_iter().map(|v| v.into()).collect(),
            ways: ways.into_iter().map(|v| v.into()).collect(),
            hosts: hosts.into_iter().map(|v| v.into()).collect(),
            runs: runs.into_iter().map(|v| v.into()).collect(),
            fingerprint,
        }
    }
}
crate::wire::to_wire!(workbench_app::publish::HostRun => HostRun);
impl From<workbench_app::publish::HostRun> for HostRun {
    fn from(v: workbench_app::publish::HostRun) -> Self {
        let workbench_app::publish::HostRun {
            way,
            host,
            started,
            tools,
            error,
            doctor,
        } = v;
        Self {
            way,
            host,
            started,
            tools,
            error,
            doctor: doctor.into_iter().map(|v| v.into()).collect(),
        }
    }
}
