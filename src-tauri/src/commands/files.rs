//! Saving what the window exports: a native save dialog (run from the Rust
//! side, so the webview needs no file or dialog permission), the file
//! written private and never through a link. `MCPWB_SAVE_DIR` skips the
//! dialog and saves into that folder (the e2e tests cannot drive a GTK dialog).

use tauri::Runtime;
use tauri_plugin_dialog::DialogExt;
use workbench_app::ErrorInfo;

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
    workbench_app::write_bytes_out(&path, bytes)?;
    Ok(Some(path.display().to_string()))
}

/// Ask for a file to open. `MCPWB_OPEN_FILE` answers without the dialog
/// (the e2e tests cannot drive a GTK dialog). None when cancelled.
pub async fn pick_file<R: Runtime>(app: &tauri::AppHandle<R>) -> Option<std::path::PathBuf> {
    if let Some(file) = std::env::var_os("MCPWB_OPEN_FILE").filter(|f| !f.is_empty()) {
        return Some(std::path::PathBuf::from(file));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog().file().pick_file(move |picked| {
        let _ = tx.send(picked.and_then(|p| p.into_path().ok()));
    });
    rx.await.ok().flatten()
}

/// Ask for a folder. `MCPWB_OPEN_FOLDER` answers without the dialog (the
/// e2e tests cannot drive a GTK dialog). None when cancelled.
pub async fn pick_folder<R: Runtime>(app: &tauri::AppHandle<R>) -> Option<std::path::PathBuf> {
    if let Some(dir) = std::env::var_os("MCPWB_OPEN_FOLDER").filter(|f| !f.is_empty()) {
        return Some(std::path::PathBuf::from(dir));
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog().file().pick_folder(move |picked| {
        let _ = tx.send(picked.and_then(|p| p.into_path().ok()));
    });
    rx.await.ok().flatten()
}

/// A path the person picks for a value a server asks for (a file, or a
/// folder when `folder`); None when they cancelled.
#[tauri::command]
#[specta::specta]
pub async fn pick_path<R: Runtime>(
    app: tauri::AppHandle<R>,
    folder: bool,
) -> Result<Option<String>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let picked = if folder {
                pick_folder(&app).await
            } else {
                pick_file(&app).await
            };
            Ok(picked.map(|p| p.display().to_string()))
        }
        .await,
    )
}

/// Put `text` on the system clipboard.
#[tauri::command]
#[specta::specta]
pub async fn copy_text<R: Runtime>(
    app: tauri::AppHandle<R>,
    text: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(put_on_clipboard(&app, text).map_err(|why| ErrorInfo {
        code: workbench_app::ErrorCode::Internal,
        message: format!("the clipboard refused the text: {why}"),
    }))
}

/// The window's own GTK clipboard, on GTK's thread: the toolkit the window
/// already runs serves the text to other programs (X11 and Wayland alike).
/// (The clipboard plugin compiled an image codec and X11 and Wayland
/// clients of its own for this one write: 47 s of a fresh build's CPU.)
#[cfg(target_os = "linux")]
fn put_on_clipboard<R: Runtime>(app: &tauri::AppHandle<R>, text: String) -> Result<(), String> {
    app.run_on_main_thread(move || {
        let clipboard = gtk::Clipboard::get(&gtk::gdk::SELECTION_CLIPBOARD);
        // GTK marks text set this way as storable for when the app quits.
        clipboard.set_text(&text);
    })
    .map_err(|e| e.to_string())
}

/// Off Linux the window copies nothing itself: the UI shows the text
/// selected, to copy by hand.
#[cfg(not(target_os = "linux"))]
fn put_on_clipboard<R: Runtime>(_: &tauri::AppHandle<R>, _: String) -> Result<(), String> {
    Err("copying is only built for Linux".into())
}

/// Save bytes a server sent (base64, e.g. an embedded resource) to a file
/// the person picks; returns the path, or None when they cancelled.
#[tauri::command]
#[specta::specta]
pub async fn save_bytes<R: Runtime>(
    app: tauri::AppHandle<R>,
    name: String,
    data: String,
) -> Result<Option<String>, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            use base64::Engine;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(data.trim())
                .map_err(|e| ErrorInfo {
                    code: workbench_app::ErrorCode::Invalid,
                    message: format!("the data is not base64: {e}"),
                })?;
            // Only the last part of the name the server gave, never a path.
            let name = name.rsplit(['/', '\\']).next().unwrap_or("resource.bin");
            let name = if name.is_empty() || name == "." || name == ".." {
                "resource.bin"
            } else {
                name
            };
            save_as(&app, name, &bytes).await
        }
        .await,
    )
}
