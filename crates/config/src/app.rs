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
    if let Some(scratch) = test_scratch() {
        return scratch.join("data");
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
    if let Some(scratch) = test_scratch() {
        return scratch.join("config/mcp.json");
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .unwrap_or_else(|| PathBuf::from("."));
    base.join("mcp-workbench").join("mcp.json")
}

/// A test binary cargo built (`target/PROFILE/deps/NAME-HASH`), run without
/// the places `cargo xtask test` names for it (`cargo test -p …` by hand):
/// a folder of this process's own beside the build, where the data folder,
/// the user's mcp.json and its settings are, so no test reads or writes the
/// person's own. A binary anywhere else (the app, `mcpwb`, `cargo run`) is
/// never one: cargo puts its profile's `.fingerprint` beside `deps`.
pub fn test_scratch() -> Option<&'static std::path::Path> {
    static SCRATCH: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();
    SCRATCH
        .get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            let deps = exe.parent()?;
            let profile = deps.parent()?;
            (deps.file_name()? == "deps" && profile.join(".fingerprint").is_dir()).then(|| {
                profile
                    .join("test-scratch")
                    .join(std::process::id().to_string())
            })
        })
        .as_deref()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_test_run_by_hand_keeps_away_from_the_persons_places() {
        // This binary is one cargo built: without the places xtask names,
        // the user's file is in its scratch folder; with them (xtask), the
        // data folder is the one named.
        let scratch = super::test_scratch().expect("a test binary in target/…/deps");
        assert!(super::default_user_config().starts_with(scratch));
        match std::env::var_os("MCPWB_DATA_DIR").filter(|p| !p.is_empty()) {
            Some(named) => assert_eq!(super::data_dir(), std::path::PathBuf::from(named)),
            None => assert!(super::data_dir().starts_with(scratch)),
        }
    }
}
