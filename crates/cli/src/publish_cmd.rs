//! `mcpwb publish check [DIR]`: a server's folder checked before its author
//! publishes it (the MCP Registry's server.json, a bundle's manifest.json,
//! ownership markers, versions) and what each host would run; with --run,
//! each way started as each host would start it.

use std::path::PathBuf;
use std::time::Duration;

use workbench_app::publish::{self, PublishCheck, PublishReport, Severity, Start};

use crate::print::clean;
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct PublishArgs {
    #[command(subcommand)]
    action: PublishAction,
}

#[derive(clap::Subcommand, Debug)]
enum PublishAction {
    /// Check the folder: server.json against the registry's rules,
    /// manifest.json against its version's, the ownership marker each
    /// package type needs, the versions of every file, the command each
    /// host would run found on its PATH; exit 1 when something would fail.
    Check {
        /// The server's folder (default: here).
        dir: Option<PathBuf>,
        /// Also start each way (each package, remote or bundle command) with
        /// each host's PATH, list its tools and run the doctor's checks on
        /// what it offers — this runs the folder's commands: use it on your
        /// own server.
        #[arg(long)]
        run: bool,
        /// A value for an `${input:ID}` an entry asks for, ID=VALUE (with --run).
        #[arg(long = "input", value_name = "ID=VALUE")]
        inputs: Vec<String>,
        /// Seconds a start may take (a first npx or uvx downloads).
        #[arg(long, default_value_t = 120)]
        start_timeout: u64,
    },
}

pub async fn run(cli: &Cli, args: &PublishArgs) -> Result<(), Failure> {
    let PublishAction::Check {
        dir,
        run,
        inputs,
        start_timeout,
    } = &args.action;
    let inputs = crate::config_fields::name_values(inputs, "input", "ID=VALUE")?;
    let folder = dir.clone().unwrap_or_else(|| PathBuf::from("."));
    if *run && !cli.json {
        let which = match dir {
            Some(d) => crate::print::clean(&d.display().to_string()),
            None => "this folder".into(),
        };
        eprintln!("mcpwb: --run starts the commands {which} describes, with each host's PATH");
    }
    let report = publish::check(PublishCheck {
        folder: &folder,
        // `--run` is the person's word for what the folder holds now.
        start: if *run { Start::AsItIs } else { Start::No },
        inputs: &inputs,
        timeout: Duration::from_secs(*start_timeout),
    })
    .await;
    if cli.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        );
    } else {
        print(&report, *run);
    }
    if report.count(Severity::Error) > 0 {
        return Err(Failure::Exit(1));
    }
    Ok(())
}

fn print(report: &PublishReport, ran: bool) {
    for way in &report.ways {
        let what = way
            .entry
            .get("command")
            .map(|c| {
                let args: Vec<String> = way
                    .entry
                    .get("args")
                    .and_then(|a| a.as_array())
                    .map(|a| {
                        a.iter()
                            .filter_map(|x| x.as_str())
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                format!("{} {}", c.as_str().unwrap_or_default(), args.join(" "))
            })
            .or_else(|| {
                way.entry
                    .get("url")
                    .and_then(|u| u.as_str())
                    .map(str::to_string)
            })
            .unwrap_or_default();
        println!("{}: {}", way.label, clean(what.trim()));
    }
    for run in &report.runs {
        match &run.error {
            None => {
                let mut some: Vec<&str> = run.tools.iter().take(6).map(String::as_str).collect();
                if run.tools.len() > some.len() {
                    some.push("…");
                }
                let errors = run
                    .doctor
                    .iter()
                    .filter(|f| f.severity == Severity::Error)
                    .count();
                let warnings = run
                    .doctor
                    .iter()
                    .filter(|f| f.severity == Severity::Warning)
                    .count();
                println!(
                    "  {} in {}: started, {} tools ({}); the doctor: {}, {}",
                    run.way,
                    run.host,
                    run.tools.len(),
                    clean(&some.join(", ")),
                    crate::print::count(errors, "error"),
                    crate::print::count(warnings, "warning")
                )
            }
            Some(e) => println!("  {} in {}: did not start: {}", run.way, run.host, clean(e)),
        }
    }
    if !report.ways.is_empty() && !ran {
        println!("  (--run starts each with each host's PATH)");
    }
    for f in &report.findings {
        let at = if f.pointer.is_empty() {
            String::new()
        } else {
            format!(" {}", f.pointer)
        };
        println!(
            "{} {} [{}{at}]",
            f.severity.as_str(),
            f.code,
            clean(&f.item)
        );
        if !f.seen.is_empty() {
            println!("  seen: {}", clean(&f.seen));
        }
        if !f.why.is_empty() {
            println!("  why: {}", clean(&f.why));
        }
        if !f.fix.is_empty() {
            println!("  fix: {}", clean(&f.fix));
        }
    }
    let errors = report.count(Severity::Error);
    let warnings = report.count(Severity::Warning) - errors;
    if report.findings.is_empty() {
        println!("nothing found: ready to publish");
    } else {
        println!(
            "{}, {}",
            crate::print::count(errors, "error"),
            crate::print::count(warnings, "warning")
        );
    }
}
