//! What the app holds for its lifetime: the config path and the running
//! `Workbench` over it (None when the config could not be read at launch).

use std::path::PathBuf;

use workbench_core::Workbench;
use workbench_core::logging::LogGuard;

pub struct AppState {
    pub config_path: PathBuf,
    pub workbench: Option<Workbench>,
    _log: LogGuard,
}

impl AppState {
    pub fn new(config_path: PathBuf, workbench: Option<Workbench>, log: LogGuard) -> Self {
        AppState {
            config_path,
            workbench,
            _log: log,
        }
    }
}
