//! Where the app reads its config and writes its logs, from the command line
//! and the environment.

use std::ffi::OsString;
use std::path::PathBuf;

/// The environment variable naming the mcp.json to open.
pub const CONFIG_ENV: &str = "MCPWB_CONFIG";
/// The environment variable naming a project folder whose `.mcp.json` is merged in.
pub const PROJECT_ENV: &str = "MCPWB_PROJECT";
/// The environment variable naming the log folder (tests point it at a temp dir).
pub const LOG_DIR_ENV: &str = "MCPWB_LOG_DIR";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchOptions {
    pub config_path: PathBuf,
    /// A project folder: its `.mcp.json` is merged over the user's file
    /// (entries of the same name are the project's), and edits of its
    /// entries go back to it.
    pub project_dir: Option<PathBuf>,
    pub log_dir: Option<PathBuf>,
    /// `--trust`: the person vouches for every entry of the files this run
    /// opens, as they are now (remembered; a later change asks again).
    pub trust: bool,
}

impl LaunchOptions {
    /// `--config PATH` (or `--config=PATH`) wins over `$MCPWB_CONFIG`, which
    /// wins over the user's default `~/.config/mcp-workbench/mcp.json`.
    /// `--project DIR` (or `$MCPWB_PROJECT`) adds a project folder.
    pub fn from_env(args: impl IntoIterator<Item = OsString>) -> Result<Self, String> {
        let mut config = None;
        let mut project = None;
        let mut trust = false;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let text = arg.to_string_lossy();
            if text == "--config" {
                let value = args.next().ok_or("--config needs a path")?;
                config = Some(PathBuf::from(value));
            } else if let Some(value) = text.strip_prefix("--config=") {
                config = Some(PathBuf::from(value));
            } else if text == "--project" {
                let value = args.next().ok_or("--project needs a folder")?;
                project = Some(PathBuf::from(value));
            } else if let Some(value) = text.strip_prefix("--project=") {
                project = Some(PathBuf::from(value));
            } else if text == "--trust" {
                trust = true;
            } else if text.starts_with('-') {
                return Err(format!("unknown option {text}"));
            } else {
                config = Some(PathBuf::from(arg));
            }
        }
        let config_path = config
            .or_else(|| std::env::var_os(CONFIG_ENV).map(PathBuf::from))
            .unwrap_or_else(workbench_core::config::default_user_config);
        let config_path = std::path::absolute(&config_path).unwrap_or(config_path);
        let project_dir = project
            .or_else(|| std::env::var_os(PROJECT_ENV).map(PathBuf::from))
            .map(|p| std::path::absolute(&p).unwrap_or(p));
        if let Some(dir) = &project_dir
            && !dir.is_dir()
        {
            return Err(format!(
                "the project folder {} does not exist",
                dir.display()
            ));
        }
        Ok(LaunchOptions {
            config_path,
            project_dir,
            log_dir: std::env::var_os(LOG_DIR_ENV).map(PathBuf::from),
            trust,
        })
    }
}
