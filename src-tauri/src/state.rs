//! What the app holds for its lifetime: the config path, the running
//! `Workbench` over it (with no servers while the config cannot be read) and
//! the watch that follows the file.

use std::path::PathBuf;

use workbench_core::logging::LogGuard;
use workbench_core::{ConfigWatch, Workbench};

pub struct AppState {
    pub config_path: PathBuf,
    pub workbench: Workbench,
    pub calls: crate::commands::tools::RunningCalls,
    _watch: Option<ConfigWatch>,
    _log: LogGuard,
}

impl AppState {
    pub fn new(
        config_path: PathBuf,
        workbench: Workbench,
        watch: Option<ConfigWatch>,
        log: LogGuard,
    ) -> Self {
        AppState {
            config_path,
            workbench,
            calls: Default::default(),
            _watch: watch,
            _log: log,
        }
    }
}
