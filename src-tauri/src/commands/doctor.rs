//! The doctor in the window: a server's findings (run on demand, with
//! probes and both eras when asked), a count per server for the sidebar,
//! and what changed in a server's surface since it was last ready
//! (`workbench_app::doctor`).

use tauri::{Runtime, State};
use workbench_app::ErrorInfo;
use workbench_app::doctor::{self, Options};

use crate::state::AppState;

/// Examine one server (kept as its last run).
#[tauri::command]
#[specta::specta]
pub async fn run_doctor<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
    probe: bool,
    eras: bool,
) -> Result<crate::wire::DoctorReport, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let options = Options {
                probe,
                eras,
                ..Default::default()
            };
            doctor::examine(&state.calls, Some(&state.doctor_runs), &server, options).await
        }
        .await,
    )
}

/// The last run of `server` while its surface is what it examined (None:
/// never run, or the server changed since).
#[tauri::command]
#[specta::specta]
pub async fn last_doctor_run<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<Option<crate::wire::DoctorReport>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { Ok(doctor::last_run(&state.calls, &state.doctor_runs, &server)) }.await,
    )
}

/// Every ready server counted: its last full run while its surface is the
/// same, else the shape checks (fast: no request is sent).
#[tauri::command]
#[specta::specta]
pub async fn doctor_counts<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
) -> Result<Vec<crate::wire::DoctorCount>, crate::wire::ErrorInfo> {
    crate::wire::out(async move { Ok(doctor::counts(&state.calls, &state.doctor_runs)) }.await)
}

/// What changed in a server's surface the last time it came back (None:
/// nothing since the window started).
#[tauri::command]
#[specta::specta]
pub async fn surface_change<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    server: String,
) -> Result<Option<crate::wire::SurfaceChange>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move { Ok(workbench_app::doctor::last_change(&state.surfaces, &server)) }.await,
    )
}

/// Check a server's folder before its author publishes it; with `run`,
/// start each way it describes with each host's PATH (the person asked,
/// having seen them: `shown` is the fingerprint of the check they saw;
/// without one nothing starts, the ways are only shown).
#[tauri::command]
#[specta::specta]
pub async fn publish_check<R: Runtime>(
    _app: tauri::AppHandle<R>,
    folder: String,
    run: bool,
    shown: Option<String>,
) -> Result<crate::wire::PublishReport, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let folder = std::path::PathBuf::from(folder.trim());
            if !folder.is_absolute() {
                return Err(ErrorInfo::new(
                    workbench_app::ErrorCode::Invalid,
                    "give the server's folder as a full path",
                ));
            }
            use workbench_app::publish::{PublishCheck, Start};
            // The window starts only what it showed: never the folder unseen.
            let start = match (run, shown.as_deref()) {
                (true, Some(seen)) => Start::AsShown(seen),
                _ => Start::No,
            };
            Ok(workbench_app::publish::check(PublishCheck {
                folder: &folder,
                start,
                inputs: &[],
                timeout: std::time::Duration::from_secs(120),
            })
            .await)
        }
        .await,
    )
}
