//! Where the app reads its config and writes its logs, from the command line
//! and the environment.

use std::ffi::OsString;
use std::path::PathBuf;

/// The environment variable naming the mcp.json to open.
pub const CONFIG_ENV: &str = "MCPWB_CONFIG";
/// The environment variable naming the log folder (tests point it at a temp dir).
pub const LOG_DIR_ENV: &str = "MCPWB_LOG_DIR";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchOptions {
    pub config_path: PathBuf,
    pub log_dir: Option<PathBuf>,
}

impl LaunchOptions {
    /// `--config PATH` (or `--config=PATH`) wins over `$MCPWB_CONFIG`, which
    /// wins over the user's default `~/.config/mcp-workbench/mcp.json`.
    pub fn from_env(args: impl IntoIterator<Item = OsString>) -> Result<Self, String> {
        let mut config = None;
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let text = arg.to_string_lossy();
            if text == "--config" {
                let value = args.next().ok_or("--config needs a path")?;
                config = Some(PathBuf::from(value));
            } else if let Some(value) = text.strip_prefix("--config=") {
                config = Some(PathBuf::from(value));
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
        Ok(LaunchOptions {
            config_path,
            log_dir: std::env::var_os(LOG_DIR_ENV).map(PathBuf::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<LaunchOptions, String> {
        LaunchOptions::from_env(args.iter().map(OsString::from))
    }

    #[test]
    fn config_flag_forms_are_accepted_and_made_absolute() {
        let a = parse(&["--config", "x/mcp.json"]).unwrap();
        assert!(a.config_path.is_absolute());
        assert!(a.config_path.ends_with("x/mcp.json"));
        assert_eq!(
            parse(&["--config=/a.json"]).unwrap().config_path,
            PathBuf::from("/a.json")
        );
        assert_eq!(
            parse(&["/b.json"]).unwrap().config_path,
            PathBuf::from("/b.json")
        );
    }

    #[test]
    fn bad_arguments_are_refused_with_a_reason() {
        assert!(parse(&["--config"]).unwrap_err().contains("needs a path"));
        assert!(
            parse(&["--frobnicate"])
                .unwrap_err()
                .contains("--frobnicate")
        );
    }
}
