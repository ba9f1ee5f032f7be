//! Saving what the window exports: a native save dialog (run from the Rust
//! side, so the webview needs no file or dialog permission), the file
//! written private and never through a link. `MCPWB_SAVE_DIR` skips the
//! dialog and saves into that folder (the e2e tests cannot drive a GTK dialog).

use tauri::Runtime;
use tauri_plugin_dialog::DialogExt;
use workbench_core::ErrorInfo;

/// A file name made from a title: letters, digits, `-` and `_`, at most 60.
pub fn file_stem(title: &str) -> String {
    let stem: String = title
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    let stem: String = stem.chars().take(60).collect();
    if stem.is_empty() {
        "export".into()
    } else {
        stem
    }
}

/// Ask where to save `bytes` (suggesting `name`) and write them there.
/// Returns the path written, or None when the person cancelled.
pub async fn save_as<R: Runtime>(
    app: &tauri::AppHandle<R>,
    name: &str,
    bytes: &[u8],
) -> Result<Option<String>, ErrorInfo> {
    let path = match std::env::var_os("MCPWB_SAVE_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => Some(std::path::PathBuf::from(dir).join(name)),
        None => {
            let (tx, rx) = tokio::sync::oneshot::channel();
            app.dialog()
                .file()
                .set_file_name(name)
                .save_file(move |picked| {
                    let _ = tx.send(picked.and_then(|p| p.into_path().ok()));
                });
            rx.await.ok().flatten()
        }
    };
    let Some(path) = path else {
        return Ok(None);
    };
    workbench_core::files::write_private(&path, bytes)?;
    Ok(Some(path.display().to_string()))
}
