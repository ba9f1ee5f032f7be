//! The doctor in the window: a server's findings (run on demand, with
//! probes and both eras when asked), a count per server for the sidebar,
//! and what changed in a server's surface since it was last ready.

use tauri::{Runtime, State};
use workbench_core::ErrorInfo;
use workbench_doctor::follow::SurfaceChange;
use workbench_doctor::{DoctorReport, Options, Severity, Surface};

use crate::state::AppState;

/// Examine one server.
#[tauri::command]
#[specta::specta]
pub async fn run_doctor<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    probe: bool,
    eras: bool,
) -> Result<DoctorReport, ErrorInfo> {
    Ok(workbench_doctor::examine(&state.calls, &server, Options { probe, eras }).await?)
}

/// What the shape checks find of a server, counted (the sidebar's badge).
#[derive(Debug, Clone, serde::Serialize, specta::Type)]
pub struct DoctorCount {
    pub server: String,
    pub errors: u32,
    pub warnings: u32,
}

/// The shape checks of every ready server, counted (fast: no request is sent).
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
            let duplicates = wb
                .catalog()
                .server(h.name())
                .map(|c| c.duplicate_tools)
                .unwrap_or_default();
            let (findings, _) = workbench_doctor::shape(h.name(), &surface, &duplicates);
            let count = |s| findings.iter().filter(|f| f.severity == s).count() as u32;
            Some(DoctorCount {
                server: h.name().to_string(),
                errors: count(Severity::Error),
                warnings: count(Severity::Warning),
            })
        })
        .collect())
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
