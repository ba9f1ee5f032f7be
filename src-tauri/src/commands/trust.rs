//! Consent: what an untrusted server would run, and trusting it (which
//! starts it). Untrusted servers come from a project's file, an import or
//! an edit outside the app (see workbench_core::config::trust).

use tauri::{Runtime, State};
use workbench_app::trust::TrustRequest;
use workbench_core::ErrorInfo;
use workbench_core::config::trust::Trust;

use crate::state::AppState;

/// What `name` runs or where it sends credentials, for the person to read.
#[tauri::command]
#[specta::specta]
pub async fn trust_request<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<TrustRequest, ErrorInfo> {
    workbench_app::trust::request(&state.load()?, &name)
}

/// Trust `name` as it is in its file now, and start it.
#[tauri::command]
#[specta::specta]
pub async fn trust_server<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<(), ErrorInfo> {
    let config = state.load()?;
    let trusted = workbench_app::trust::trust(&config, &name)?;
    tracing::info!(server = %name, file = %trusted.file, "trusted by the person");
    state.workbench.apply_own(&config).await;
    Ok(())
}

/// After the person's own save in the window: what it added or changed in
/// what servers run is trusted as written (failing to record it only means
/// the server asks once more).
/// The standing approvals of the trusted entries it changed or renamed
/// follow them.
pub fn save_own(
    state: &AppState,
    doc: &mut workbench_core::config::document::Document,
    before: &str,
) -> workbench_core::Result<()> {
    let own = doc.path == state.config_path;
    workbench_calls::rules::save_own(
        doc,
        before,
        &Trust::app(),
        state.calls.rules_file().file(),
        own,
    )
}

/// The person's own edit, saved as [`save_own`] does (a renamed entry's
/// secrets follow it).
pub fn save_own_edit(
    state: &AppState,
    doc: &mut workbench_core::config::document::Document,
    edit: &workbench_core::config::edit::EditOp,
) -> workbench_core::Result<()> {
    let own = doc.path == state.config_path;
    workbench_calls::rules::save_own_edit(
        doc,
        edit,
        &workbench_core::config::secrets::Keychain::app(),
        &Trust::app(),
        state.calls.rules_file().file(),
        own,
    )
}
