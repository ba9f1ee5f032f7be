#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// Where a provider's key came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KeySource {
    /// Stored in the OS keychain through the window or `mcpwb`.
    Keychain,
    /// Read from this environment variable.
    Environment { var: String },
    /// None found.
    Missing,
}
/// What a test call found.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct TestReport {
    pub model: String,
    pub reply: String,
    pub latency_ms: f64,
}
/// A local LLM server answering on this machine.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct LocalServer {
    /// A provider ready to be added.
    pub provider: ProviderConfig,
    pub models: Vec<String>,
}
/// A configured provider as the window shows it.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct ProviderView {
    pub config: ProviderConfig,
    pub key: KeySource,
    pub is_default: bool,
}
crate::wire::to_wire!(workbench_agent::providers::TestReport => TestReport);
impl From<workbench_agent::providers::TestReport> for TestReport {
    fn from(v: workbench_agent::providers::TestReport) -> Self {
        let workbench_agent::providers::TestReport {
            model,
            reply,
            latency_ms,
        } = v;
        Self {
            model,
            reply,
            latency_ms,
        }
    }
}
crate::wire::to_wire!(workbench_agent::providers::LocalServer => LocalServer);
impl From<workbench_agent::providers::LocalServer> for LocalServer {
    fn from(v: workbench_agent::providers::LocalServer) -> Self {
        let workbench_agent::providers::LocalServer { provider, models } = v;
        Self {
            provider: provider.into(),
            models,
        }
    }
}
crate::wire::to_wire!(workbench_agent::providers::ProviderView => ProviderView);
impl From<workbench_agent::providers::ProviderView> for ProviderView {
    fn from(v: workbench_agent::providers::ProviderView) -> Self {
        let workbench_agent::providers::ProviderView {
            config,
            key,
            is_default,
        } = v;
        Self {
            config: config.into(),
            key: key.into(),
            is_default,
        }
    }
}
crate::wire::to_wire!(workbench_agent::providers::KeySource => KeySource);
impl From<workbench_agent::providers::KeySource> for KeySource {
    fn from(v: workbench_agent::providers::KeySource) -> Self {
        match v {
            workbench_agent::providers::KeySource::Keychain => Self::Keychain,
            workbench_agent::providers::KeySource::Environment { var } => Self::Environment { var },
            workbench_agent::providers::KeySource::Missing => Self::Missing,
        }
    }
}
