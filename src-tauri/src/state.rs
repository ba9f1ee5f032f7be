//! What the app holds for its lifetime: the config path (and the project
//! folder, when one was opened), the running `Workbench` over them (with no
//! servers while the config cannot be read) and the watch that follows the files.

use std::path::{Path, PathBuf};

use workbench_core::config::ConfigFile;
use workbench_core::logging::LogGuard;
use workbench_core::{ConfigWatch, Workbench};

pub struct AppState {
    /// The user's mcp.json.
    pub config_path: PathBuf,
    /// The project folder whose `.mcp.json` is merged in, if any.
    pub project_dir: Option<PathBuf>,
    pub workbench: Workbench,
    /// The chat agent over the same workbench (sessions in the shared store).
    pub agent: workbench_agent::Agent,
    /// The one call path (gate, call, output-schema check, history), shared
    /// with the agent and the bridge.
    pub calls: workbench_calls::Calls,
    /// Calls made by hand under way (for Cancel).
    pub running: crate::commands::tools::RunningCalls,
    /// The bridge while it is on.
    pub bridge: crate::commands::bridge::Running,
    /// The load run under way (Stop).
    pub load: crate::commands::load::RunningLoad,
    _watch: Option<ConfigWatch>,
    /// Each server's surface across restarts (what changed, for its panel).
    pub surfaces: workbench_doctor::follow::Surfaces,
    /// Each server's last doctor run (the sidebar counts it).
    pub doctor_runs: workbench_app::doctor::LastRuns,
    /// Restarts servers whose `dev.watch` files change.
    _dev: workbench_core::DevWatch,
    /// Answers sampling for the servers the settings allow.
    _sampling: tokio_util::sync::DropGuard,
    _log: LogGuard,
}

impl AppState {
    pub fn new(
        config_path: PathBuf,
        project_dir: Option<PathBuf>,
        workbench: Workbench,
        agent: (workbench_agent::Agent, tokio_util::sync::DropGuard),
        watch: Option<ConfigWatch>,
        dev: (workbench_core::DevWatch, workbench_doctor::follow::Surfaces),
        log: LogGuard,
    ) -> Self {
        let (agent, sampling) = agent;
        AppState {
            config_path,
            project_dir,
            workbench,
            calls: agent.calls().clone(),
            agent,
            running: Default::default(),
            bridge: Default::default(),
            load: Default::default(),
            _watch: watch,
            surfaces: dev.1,
            doctor_runs: Default::default(),
            _dev: dev.0,
            _sampling: sampling,
            _log: log,
        }
    }

    /// Where the person's servers are written: the user's file, the
    /// project's, and the settings file their approvals are kept in.
    pub fn place(&self) -> workbench_app::config::Place {
        workbench_app::config::Place::with_settings(
            self.config_path.clone(),
            self.project_dir.clone(),
            self.calls.rules_file().file().clone(),
        )
    }

    /// The user's file merged with the project's.
    pub fn load(&self) -> Result<ConfigFile, workbench_app::ErrorInfo> {
        self.place().load()
    }

    /// Whether `path` is one of the app's own config files.
    pub fn is_own(&self, path: &Path) -> bool {
        self.place().is_own(path)
    }
}
