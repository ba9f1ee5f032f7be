//! `mcpwb test`: run suites (saved calls with assertions, kept in the
//! project) against the configured servers, headless, for CI. Exit 0 when
//! all pass, 1 on a failed case, 2 on a broken suite file, 4 when a server
//! is not ready; the last line is `N passed, N failed`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use workbench_calls::suite::{self, CaseOutcome, Report, RunOptions};
use workbench_core::config::{ConfigFile, default_user_config};

use crate::print::{clean, line};
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct TestArgs {
    /// Suite files or folders of them (default: the project's
    /// .mcp-workbench/suites, the project being --project or this folder).
    paths: Vec<PathBuf>,
    /// Run every case against this server instead of the one it names.
    #[arg(long)]
    server: Option<String>,
    /// Only cases whose name matches (`*` for any run of characters).
    #[arg(long, value_name = "PATTERN")]
    case: Option<String>,
    /// Also write the report as JUnit XML here.
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Take this run's results as the stored snapshots.
    #[arg(long)]
    update_snapshots: bool,
    /// Stop at the first failed case.
    #[arg(long)]
    bail: bool,
}

fn print_report(report: &Report) {
    for s in &report.suites {
        line(&format!("{} ({})", clean(&s.name), clean(&s.path)));
        for c in &s.cases {
            let took = c
                .duration_ms
                .map(|d| format!("  {d:.0} ms"))
                .unwrap_or_default();
            let (mark, extra) = match c.outcome {
                CaseOutcome::Passed => ("✓", String::new()),
                CaseOutcome::Failed => ("✗", String::new()),
                CaseOutcome::Skipped => (
                    "-",
                    format!(" (skipped: {})", c.note.as_deref().unwrap_or("")),
                ),
                CaseOutcome::NotReady => (
                    "!",
                    format!(" (not run: {})", c.note.as_deref().unwrap_or("")),
                ),
            };
            let note = match (c.outcome, &c.note) {
                (CaseOutcome::Passed, Some(n)) => format!(" ({n})"),
                _ => String::new(),
            };
            line(&format!(
                "  {mark} {}{took}{}{note}",
                clean(&c.name),
                clean(&extra)
            ));
            for f in &c.failures {
                line(&format!("      {}: {}", f.assertion, clean(&f.message)));
                if let Some(d) = &f.diff {
                    for l in d.lines() {
                        line(&format!("        {}", clean(l)));
                    }
                }
            }
        }
    }
}

pub async fn run(cli: &Cli, args: &TestArgs) -> Result<(), Failure> {
    let paths = if args.paths.is_empty() {
        let base = match &cli.project {
            Some(p) => p.clone(),
            None => std::env::current_dir().map_err(|e| Failure::Usage(e.to_string()))?,
        };
        let dir = base.join(suite::DEFAULT_DIR);
        if !dir.is_dir() {
            return Err(Failure::Usage(format!(
                "no suites: {} does not exist (name suite files or folders, or save a call to a suite in the window)",
                dir.display()
            )));
        }
        vec![dir]
    } else {
        args.paths.clone()
    };
    let (suites, broken) = suite::load(&paths);
    for b in &broken {
        eprintln!(
            "mcpwb: broken suite, nothing run from it: {}",
            clean(&b.to_string())
        );
    }
    // The servers the cases name that the config has; the others fail
    // their cases with that reason.
    let config_path = cli.config.clone().unwrap_or_else(default_user_config);
    let config = ConfigFile::load_scoped(&config_path, cli.project.as_deref())?;
    let mut wanted: Vec<String> = suites
        .iter()
        .flat_map(|s| {
            s.cases.iter().map(|c| {
                args.server
                    .clone()
                    .or_else(|| c.server.clone())
                    .or_else(|| s.server.clone())
                    .unwrap_or_default()
            })
        })
        .filter(|n| config.servers.iter().any(|e| e.name == *n))
        .collect();
    wanted.sort();
    wanted.dedup();
    let only: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let offers = crate::commands::offers(cli, cli.sampling);
    let wb = if only.is_empty() {
        None
    } else {
        Some(crate::commands::connect_some(cli, &only, offers).await?)
    };
    let report = match &wb {
        Some(wb) => {
            for name in &wanted {
                if let Err(Failure::Core(e)) = crate::commands::ready(wb, name).await {
                    eprintln!("mcpwb: {}", clean(&e.to_string()));
                }
            }
            let calls = crate::commands::calls_for(wb, true);
            let options = RunOptions {
                case: args.case.clone(),
                server: args.server.clone(),
                update_snapshots: args.update_snapshots,
                bail: args.bail,
                timeout: Duration::from_secs_f64(cli.timeout.max(0.1)),
            };
            suite::run(&calls, &suites, &options).await
        }
        None => {
            // No case names a configured server: every case fails saying so.
            let mut none = config.clone();
            none.servers.clear();
            let calls = workbench_calls::Calls::new(
                workbench_core::Workbench::start(&none, Default::default()),
                workbench_calls::CallsOptions {
                    settings: workbench_core::settings::SettingsFile::new(
                        workbench_core::settings::default_path(),
                    ),
                    store: None,
                },
            );
            suite::run(&calls, &suites, &RunOptions::default()).await
        }
    };
    if let Some(wb) = &wb {
        wb.shutdown().await;
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, suite::junit::xml(&report))
            .map_err(|e| Failure::Usage(format!("--junit {}: {e}", path.display())))?;
    }
    if cli.json {
        line(&json!({ "report": report, "broken": broken }).to_string());
    } else {
        print_report(&report);
        if report.not_ready > 0 {
            line(&format!(
                "{} not run: their server was not ready",
                report.not_ready
            ));
        }
        let skipped = if report.skipped > 0 {
            format!(", {} skipped", report.skipped)
        } else {
            String::new()
        };
        line(&format!(
            "{} passed, {} failed{skipped}",
            report.passed, report.failed
        ));
    }
    let code = if !broken.is_empty() {
        2
    } else if report.not_ready > 0 {
        crate::exit::NOT_READY
    } else if report.failed > 0 {
        1
    } else {
        return Ok(());
    };
    Err(Failure::Exit(code))
}
