//! Consent: what an untrusted server would run, and trusting it (which
//! starts it). Untrusted servers come from a project's file, an import or
//! an edit outside the app (see workbench_core::config::trust).

use tauri::{Runtime, State};

use crate::state::AppState;

/// What `name` runs or where it sends credentials, for the person to read.
#[tauri::command]
#[specta::specta]
pub async fn trust_request<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<crate::wire::TrustRequest, crate::wire::ErrorInfo> {
    crate::wire::out(async move { workbench_app::trust::request(&state.load()?, &name) }.await)
}

/// Trust `name` as the person read it (`shown`: the fingerprint of the
/// request they read; an entry changed since is refused), and start it.
#[tauri::command]
#[specta::specta]
pub async fn trust_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
    shown: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let trusted = workbench_app::trust::trust_and_start(
                &state.workbench,
                &state.load()?,
                &name,
                &shown,
            )
            .await?;
            tracing::info!(server = %name, file = %trusted.file, "trusted by the person");
            Ok(())
        }
        .await,
    )
}
