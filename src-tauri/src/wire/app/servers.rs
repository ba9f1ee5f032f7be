#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// The servers of the open config file.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ServerList {
    /// The absolute path of the user's mcp.json.
    pub config_path: String,
    /// The project's `.mcp.json` merged in (it may not exist yet), when the
    /// app was opened on a project folder.
    pub project_path: Option<String>,
    /// False when the file does not exist yet (the list is then empty).
    pub exists: bool,
    pub servers: Vec<crate::wire::config::ServerSummary>,
    /// Entries that could not be understood, with the key at fault.
    pub problems: Vec<crate::wire::config::Problem>,
}
crate::wire::to_wire!(workbench_app::servers::ServerList => ServerList);
impl From<workbench_app::servers::ServerList> for ServerList {
    fn from(v: workbench_app::servers::ServerList) -> Self {
        let workbench_app::servers::ServerList {
            config_path,
            project_path,
            exists,
            servers,
            problems,
        } = v;
        Self {
            config_path,
            project_path,
            exists,
            servers: servers.into_iter().map(|v| v.into()).collect(),
            problems: problems.into_iter().map(|v| v.into()).collect(),
        }
    }
}
