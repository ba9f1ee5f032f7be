//! The doctor in the window: a server's findings (run on demand, with
//! probes and both eras when asked), a count per server for the sidebar,
//! and what changed in a server's surface since it was last ready.

use std::collections::HashMap;
use std::sync::Mutex;

use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_doctor::follow::SurfaceChange;
use workbench_doctor::{DoctorReport, Options, Severity, Surface};

use crate::state::AppState;

/// Each server's last full run, with the surface it examined: what the
/// sidebar counts and the Doctor shows while the surface is the same.
#[derive(Default)]
pub struct LastRuns(Mutex<HashMap<String, (String, DoctorReport)>>);

impl LastRuns {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (String, DoctorReport)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The last run of `server`, while its surface is still `now`.
    fn current(&self, server: &str, now: &str) -> Option<DoctorReport> {
        self.lock()
            .get(server)
            .filter(|(seen, _)| seen == now)
            .map(|(_, r)| r.clone())
    }
}

/// Examine one server (kept as its last run).
#[tauri::command]
#[specta::specta]
pub async fn run_doctor<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    probe: bool,
    eras: bool,
) -> Result<DoctorReport, ErrorInfo> {
    let report = workbench_doctor::examine(
        &state.calls,
        &server,
        Options {
            probe,
            eras,
            ..Default::default()
        },
    )
    .await?;
    if let Some(surface) = Surface::live(&state.workbench, &server) {
        state
            .doctor_runs
            .lock()
            .insert(server, (surface.to_text(), report.clone()));
    }
    Ok(report)
}

/// The last run of `server` while its surface is what it examined (None:
/// never run, or the server changed since).
#[tauri::command]
#[specta::specta]
pub async fn last_doctor_run<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<Option<DoctorReport>, ErrorInfo> {
    let Some(surface) = Surface::live(&state.workbench, &server) else {
        return Ok(None);
    };
    Ok(state.doctor_runs.current(&server, &surface.to_text()))
}

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

/// `findings` counted: distinct codes per severity, distinct items.
fn count(server: &str, findings: &[workbench_doctor::Finding], from_run: bool) -> DoctorCount {
    use std::collections::BTreeSet;
    let portable = |f: &&workbench_doctor::Finding| f.code.starts_with("provider.");
    let codes = |s: Severity, portability: bool| {
        findings
            .iter()
            .filter(|f| f.severity == s && (s == Severity::Error || portable(f) == portability))
            .map(|f| f.code.as_str())
            .collect::<BTreeSet<_>>()
            .len() as u32
    };
    let items = findings
        .iter()
        .filter(|f| {
            f.severity == Severity::Error || (f.severity == Severity::Warning && !portable(f))
        })
        .map(|f| f.item.as_str())
        .collect::<BTreeSet<_>>()
        .len() as u32;
    DoctorCount {
        server: server.to_string(),
        errors: codes(Severity::Error, false),
        warnings: codes(Severity::Warning, false),
        portability: codes(Severity::Warning, true),
        items,
        from_run,
    }
}

/// Every ready server counted: its last full run while its surface is the
/// same, else the shape checks (fast: no request is sent).
#[tauri::command]
#[specta::specta]
pub async fn doctor_counts<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<DoctorCount>, ErrorInfo> {
    let wb = &state.workbench;
    Ok(wb
        .servers()
        .iter()
        .filter_map(|h| {
            let surface = Surface::live(wb, h.name())?;
            if let Some(run) = state.doctor_runs.current(h.name(), &surface.to_text()) {
                return Some(count(h.name(), &run.findings, true));
            }
            let duplicates = wb
                .catalog()
                .server(h.name())
                .map(|c| c.duplicate_tools)
                .unwrap_or_default();
            let findings = workbench_doctor::shape_findings(h.name(), &surface, &duplicates);
            Some(count(h.name(), &findings, false))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use workbench_doctor::{Finding, Severity};

    #[test]
    fn a_code_counts_once_however_many_tools_it_is_found_in() {
        let draft07: Vec<Finding> = (0..9)
            .map(|i| Finding::new("schema.draft-07", Severity::Warning, format!("tool t{i}")))
            .chain([Finding::new("name.invalid", Severity::Error, "tool t0")])
            .collect();
        let c = super::count("fs", &draft07, true);
        assert_eq!((c.errors, c.warnings, c.items, c.from_run), (1, 1, 9, true));
    }

    /// The walk: the shipped example's servers wore ⚠2 on a newcomer's first
    /// window for how Gemini would rewrite one schema. Portability is
    /// counted apart and does not make the badge.
    #[test]
    fn portability_is_counted_apart_from_what_is_wrong() {
        let found = [
            Finding::new(
                "provider.gemini-enum",
                Severity::Warning,
                "tool create_order",
            ),
            Finding::new(
                "provider.gemini-rewrites",
                Severity::Warning,
                "tool create_order",
            ),
        ];
        let c = super::count("demo", &found, false);
        assert_eq!((c.errors, c.warnings, c.portability, c.items), (0, 0, 2, 0));
    }
}

/// What changed in a server's surface the last time it came back (None:
/// nothing since the window started).
#[tauri::command]
#[specta::specta]
pub async fn surface_change<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<Option<SurfaceChange>, ErrorInfo> {
    Ok(state.surfaces.last_change(&server))
}
