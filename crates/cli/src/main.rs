//! `mcpwb`: the headless face of MCP Workbench, over the same core as the app.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use workbench_core::config::{ConfigFile, default_user_config};
use workbench_core::{Error, ErrorInfo};

/// Exit codes: 0 success, 2 usage (from clap), 3 config problem.
const EXIT_CONFIG: u8 = 3;

#[derive(Parser, Debug)]
#[command(name = "mcpwb", version, about = "MCP Workbench from the command line")]
struct Cli {
    /// The mcp.json to use (default: $MCPWB_CONFIG, then ~/.config/mcp-workbench/mcp.json).
    #[arg(long, global = true, env = "MCPWB_CONFIG")]
    config: Option<PathBuf>,
    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the servers of the config file.
    Servers,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _log = workbench_core::logging::init(None, "warn");
    let path = cli.config.clone().unwrap_or_else(default_user_config);
    match run(&cli, &path) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if cli.json {
                let info = ErrorInfo::from(&e);
                println!(
                    "{}",
                    serde_json::json!({ "error": { "code": info.code, "message": info.message } })
                );
            } else {
                eprintln!("mcpwb: {e}");
            }
            ExitCode::from(EXIT_CONFIG)
        }
    }
}

fn run(cli: &Cli, path: &std::path::Path) -> Result<(), Error> {
    match cli.command {
        Command::Servers => {
            let cfg = ConfigFile::load(path)?;
            let summaries = cfg.summaries();
            if cli.json {
                let out = serde_json::json!({
                    "config": path,
                    "servers": summaries,
                    "problems": cfg.problems,
                });
                println!("{out}");
            } else {
                for s in &summaries {
                    let state = if s.disabled { " (disabled)" } else { "" };
                    println!("{}\t{:?}\t{}{state}", s.name, s.transport, s.target);
                }
                for p in &cfg.problems {
                    eprintln!("mcpwb: skipped {}: {}", p.pointer, p.message);
                }
            }
            Ok(())
        }
    }
}
