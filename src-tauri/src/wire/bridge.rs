use serde::{Deserialize, Serialize};
/// One connected client, as the Bridge panel lists it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct CallerInfo {
    pub id: u32,
    pub name: String,
    pub version: String,
    /// `stdio` or `http`.
    pub transport: String,
    /// The protocol version it negotiated.
    pub protocol: String,
    /// Milliseconds since the Unix epoch.
    pub since_ms: f64,
    pub calls: u32,
}
crate::wire::to_wire!(workbench_bridge::callers::CallerInfo => CallerInfo);
impl From<workbench_bridge::callers::CallerInfo> for CallerInfo {
    fn from(v: workbench_bridge::callers::CallerInfo) -> Self {
        let workbench_bridge::callers::CallerInfo {
            id,
            name,
            version,
            transport,
            protocol,
            since_ms,
            calls,
        } = v;
        Self {
            id,
            name,
            version,
            transport,
            protocol,
            since_ms,
            calls,
        }
    }
}
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, specta::Type)]
#[serde(default)]
pub struct BridgeSettings {
    pub enabled: bool,
    pub port: u16,
}
impl Default for BridgeSettings {
    fn default() -> Self {
        workbench_bridge::settings::BridgeSettings::default().into()
    }
}
crate::wire::to_wire!(workbench_bridge::settings::BridgeSettings => BridgeSettings);
impl From<workbench_bridge::settings::BridgeSettings> for BridgeSettings {
    fn from(v: workbench_bridge::settings::BridgeSettings) -> Self {
        let workbench_bridge::settings::BridgeSettings { enabled, port } = v;
        Self { enabled, port }
    }
}
