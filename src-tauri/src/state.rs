//! What the app holds for its lifetime. Grows into the `Workbench` handle.

use std::path::PathBuf;

use workbench_core::logging::LogGuard;

pub struct AppState {
    pub config_path: PathBuf,
    _log: LogGuard,
}

impl AppState {
    pub fn new(config_path: PathBuf, log: LogGuard) -> Self {
        AppState {
            config_path,
            _log: log,
        }
    }
}
