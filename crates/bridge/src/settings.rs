//! The app's bridge, as the settings file keeps it (section `bridge`):
//! off by default; the port it listens on when on. `mcpwb serve --attach`
//! reads the port from here too.

use serde::{Deserialize, Serialize};

pub const SECTION: &str = "bridge";
pub const DEFAULT_PORT: u16 = 8767;

/// The keychain id of the install's bridge token.
pub const TOKEN_ID: &str = "bridge/token";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct BridgeSettings {
    pub enabled: bool,
    pub port: u16,
}

impl Default for BridgeSettings {
    fn default() -> Self {
        BridgeSettings {
            enabled: false,
            port: DEFAULT_PORT,
        }
    }
}

impl BridgeSettings {
    pub fn load(file: &workbench_core::settings::SettingsFile) -> BridgeSettings {
        file.section(SECTION).unwrap_or_default()
    }

    pub fn save(
        file: &workbench_core::settings::SettingsFile,
        settings: &BridgeSettings,
    ) -> workbench_core::Result<()> {
        file.update(SECTION, |s: &mut BridgeSettings| *s = settings.clone())
            .map(|_| ())
    }
}

/// The install's bridge token, made (and kept in the keychain) on first use;
/// the window and `mcpwb serve --http` starting at once make one token
/// between them (the making holds the lock beside `lock`).
pub fn token(
    keychain: &workbench_core::config::secrets::Keychain,
    lock: &std::path::Path,
) -> workbench_core::Result<String> {
    Ok(keychain.get_or_make(TOKEN_ID, lock, || Ok(crate::http::new_token()))?)
}
