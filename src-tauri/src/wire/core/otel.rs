#[allow(unused_imports)]
use super::*;
/// What the settings file says about traces.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(default)]
pub struct TraceSettings {
    /// The OTLP/HTTP collector's base URL (e.g. http://127.0.0.1:4318);
    /// absent: no spans leave this machine.
    pub otlp_endpoint: Option<String>,
}
crate::wire::to_wire!(workbench_core::otel::TraceSettings => TraceSettings);
impl From<workbench_core::otel::TraceSettings> for TraceSettings {
    fn from(v: workbench_core::otel::TraceSettings) -> Self {
        let workbench_core::otel::TraceSettings { otlp_endpoint } = v;
        Self { otlp_endpoint }
    }
}
