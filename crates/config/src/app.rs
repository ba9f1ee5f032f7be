//! The workbench's own places: where its data lives and where the person's
//! own mcp.json is. The library's constructors take paths
//! ([`crate::trust::Trust::at`], [`crate::secrets::Keychain::new`]); these
//! are the defaults the workbench itself uses.

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

/// The user's own config file: `$XDG_CONFIG_HOME/mcp-workbench/mcp.json`
/// (`~/.config/...` on Linux, the platform equivalent elsewhere).
pub fn default_user_config() -> PathBuf {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("mcp-workbench").join("mcp.json")
}
