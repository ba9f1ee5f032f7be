//! Where traces go: the OTLP/HTTP collector named in the person's settings
//! (Settings' Traces; `mcpwb --otlp` for one run), started and stopped.

use workbench_core::otel::SECTION;
pub use workbench_core::otel::TraceSettings;
use workbench_core::settings::{SettingsFile, default_path};
use workbench_core::{ErrorCode, ErrorInfo};

fn failed(e: impl std::fmt::Display) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Internal, e.to_string())
}

/// The collector traces go to, as the settings say.
pub fn settings() -> Result<TraceSettings, ErrorInfo> {
    SettingsFile::new(default_path())
        .section(SECTION)
        .map_err(failed)
}

/// Send traces from `service` to `endpoint` from now on (None or blank:
/// send none), kept in the settings. A collector address that is not one
/// is refused, and nothing is kept.
pub fn set_endpoint(endpoint: Option<String>, service: &str) -> Result<(), ErrorInfo> {
    let endpoint = endpoint.filter(|e| !e.trim().is_empty());
    match &endpoint {
        Some(url) => workbench_core::otel::export_to(url, service)?,
        None => workbench_core::otel::stop(),
    }
    SettingsFile::new(default_path())
        .update(SECTION, |s: &mut TraceSettings| s.otlp_endpoint = endpoint)
        .map(|_| ())
        .map_err(failed)
}
