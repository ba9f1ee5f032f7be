use serde::Serialize;
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
