//! Where the workbench keeps its own files, known to every module below
//! the ones that use them (config's trust record, the settings, the store).

use std::path::PathBuf;

/// The app's data folder, shared by the window and `mcpwb`:
/// `$MCPWB_DATA_DIR`, else `$XDG_DATA_HOME/dev.mcpworkbench.app`
/// (`~/.local/share/...`), where Tauri puts the app's own data too.
pub fn data_dir() -> PathBuf {
    if let Some(p) = std::env::var_os("MCPWB_DATA_DIR").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    let base = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("dev.mcpworkbench.app")
}
