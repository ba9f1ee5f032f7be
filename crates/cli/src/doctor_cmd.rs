//! `mcpwb doctor`, `mcpwb snapshot` and `mcpwb diff`: what is wrong with a
//! server, its surface as a file to commit, and what changed between two.

use std::path::{Path, PathBuf};

use serde_json::json;
use workbench_app::doctor::{self, DoctorReport, Impact, Severity, Surface};

use crate::print::{clean, line};
use crate::session::{calls_for, connect_some, offers, ready};
use crate::{Cli, Failure, exit};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    Error,
    Warning,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFailOn {
    Breaking,
}

#[derive(clap::Args, Debug)]
pub struct DoctorArgs {
    /// The servers to examine (default: every server of the config).
    pub servers: Vec<String>,
    /// Also call the tools the server marks read-only, with arguments made
    /// from their schemas (kept in History as the doctor's calls).
    #[arg(long)]
    pub probe: bool,
    /// Also connect once per protocol era and say what each answered.
    #[arg(long)]
    pub eras: bool,
    /// Exit 1 when a finding is this bad or worse.
    #[arg(long, value_enum, default_value = "error")]
    pub fail_on: FailOn,
    /// Print the notes too (by default they are counted by code).
    #[arg(long)]
    pub all: bool,
}

#[derive(clap::Args, Debug)]
pub struct SnapshotArgs {
    /// The server whose surface to write, by its name in mcp.json.
    pub server: String,
    /// Write it here (default: stdout).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// A snapshot file, or the name of a server to read live.
    pub old: String,
    /// A snapshot file, or the name of a server to read live.
    pub new: String,
    /// Exit 1 when a change is breaking.
    #[arg(long, value_enum)]
    pub fail_on: Option<DiffFailOn>,
    /// Also write the changes as JUnit XML (breaking ones as failures).
    #[arg(long)]
    pub junit: Option<PathBuf>,
}

fn counts(report: &DoctorReport) -> String {
    let n = |s| report.count(s);
    format!(
        "{}, {}, {}",
        crate::print::count(n(Severity::Error), "error"),
        crate::print::count(n(Severity::Warning), "warning"),
        crate::print::count(n(Severity::Info), "note")
    )
}

fn print_report(report: &DoctorReport, all: bool) {
    let ready = report
        .ready_ms
        .map(|ms| format!("ready in {ms:.0} ms; "))
        .unwrap_or_default();
    line(&format!(
        "{}: {} ({ready}{} tools, {} tokens)",
        report.server,
        counts(report),
        report.tokens.tools.len(),
        report.tokens.total
    ));
    for era in &report.eras {
        let said = if era.ready { "ready" } else { "failed" };
        line(&format!("  era {}: {said}: {}", era.era, era.answer));
    }
    if !report.clients.is_empty() {
        line("  how clients find its era:");
        let width = report
            .clients
            .iter()
            .map(|c| c.client.len())
            .max()
            .unwrap_or(0);
        for c in &report.clients {
            let ends = c
                .speaks
                .as_deref()
                .map_or("FAILS".to_string(), |v| format!("speaks {v}"));
            line(&format!("    {:<width$}  {ends:<17} {}", c.client, c.why));
        }
    }
    // One block a code: why and how to fix once, then each place.
    let mut codes: Vec<(&str, Severity)> = Vec::new();
    for f in &report.findings {
        if !codes.iter().any(|(c, _)| *c == f.code) {
            codes.push((&f.code, f.severity));
        }
    }
    let mut notes = Vec::new();
    for (code, severity) in codes {
        let found: Vec<_> = report.findings.iter().filter(|f| f.code == code).collect();
        if severity == Severity::Info && !all {
            notes.push(format!("{code} ×{}", found.len()));
            continue;
        }
        line(&format!(
            "  {:<7} {code} ({})",
            severity.as_str(),
            found.len()
        ));
        line(&format!("          why: {}", found[0].why));
        line(&format!("          fix: {}", found[0].fix));
        for f in found {
            let at = if f.pointer.is_empty() {
                String::new()
            } else {
                format!(" {}", f.pointer)
            };
            line(&format!("          - {}{at}: {}", f.item, f.seen));
        }
    }
    if !notes.is_empty() {
        line(&format!("  notes: {} (--all shows them)", notes.join(", ")));
    }
    for p in &report.probed {
        if let Some(why) = p.outcome.strip_prefix("not probed: ") {
            line(&format!("  not probed  {}: {}", clean(&p.tool), clean(why)));
            continue;
        }
        line(&format!(
            "  probed  {} {} → {} ({:.0} ms)",
            clean(&p.tool),
            clean(&p.arguments.to_string()),
            p.outcome,
            p.ms
        ));
    }
}

pub async fn doctor(cli: &Cli, args: &DoctorArgs) -> Result<(), Failure> {
    let only: Vec<&str> = args.servers.iter().map(String::as_str).collect();
    let wb = connect_some(cli, &only, offers(cli, cli.sampling)).await?;
    // The History is open when a probe keeps its calls or --eras reads it.
    let calls = calls_for(&wb, args.probe || args.eras);
    let names = workbench_app::servers::names(&wb);
    let mut reports = Vec::new();
    let mut not_ready = false;
    for name in &names {
        // Its lists are read before it is examined (or the reason is had).
        if ready(&wb, name).await.is_err() {
            not_ready = true;
        }
        if args.probe
            && !cli.json
            && let Some((will, of)) = doctor::probe_plan(&calls, name)
        {
            eprintln!(
                "mcpwb: the probe calls {} of {name}'s {of} read-only tools{}{}",
                will.len(),
                if will.is_empty() { "" } else { ": " },
                clean(&will.join(", "))
            );
        }
        let options = doctor::Options {
            probe: args.probe,
            eras: args.eras,
            ..Default::default()
        };
        let report = doctor::examine(&calls, None, name, options).await?;
        if !cli.json {
            print_report(&report, args.all);
        }
        reports.push(report);
    }
    if cli.json {
        line(&format!("{}", json!({ "servers": reports })));
    }
    workbench_app::servers::end(&wb, &calls).await;
    let threshold = match args.fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
    };
    if not_ready {
        return Err(Failure::Exit(exit::NOT_READY));
    }
    if reports.iter().any(|r| r.worst() >= Some(threshold)) {
        return Err(Failure::Exit(exit::TOOL_ERROR));
    }
    Ok(())
}

/// The surface of a running server of the config, as a snapshot's text.
async fn live(cli: &Cli, server: &str) -> Result<String, Failure> {
    let wb = connect_some(cli, &[server], offers(cli, cli.sampling)).await?;
    ready(&wb, server).await?;
    let text = doctor::snapshot(&wb, server);
    workbench_app::servers::close(&wb).await;
    Ok(text?)
}

pub async fn snapshot(cli: &Cli, args: &SnapshotArgs) -> Result<(), Failure> {
    let text = live(cli, &args.server).await?;
    match &args.output {
        Some(path) => {
            write(path, &text)?;
            if !cli.json {
                eprintln!("mcpwb: wrote {}", path.display());
            }
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// A snapshot or report the person asked for: private, atomic, never
/// through a link planted where it goes.
fn write(path: &Path, text: &str) -> Result<(), Failure> {
    Ok(doctor::write_out(path, text)?)
}

/// A snapshot file, or else a server's name.
async fn surface_of(cli: &Cli, what: &str) -> Result<Surface, Failure> {
    let path = Path::new(what);
    if path.is_file() {
        return Ok(doctor::read_snapshot(path)?);
    }
    let text = live(cli, what).await?;
    Surface::from_text(&text).map_err(|e| Failure::Usage(format!("{what}: {e}")))
}

pub async fn diff(cli: &Cli, args: &DiffArgs) -> Result<(), Failure> {
    let old = surface_of(cli, &args.old).await?;
    let new = surface_of(cli, &args.new).await?;
    let changes = doctor::diff(&old, &new);
    let breaking = changes
        .iter()
        .filter(|c| c.impact == Impact::Breaking)
        .count();
    if cli.json {
        line(&format!(
            "{}",
            json!({ "changes": changes, "breaking": breaking, "compatible": changes.len() - breaking })
        ));
    } else if changes.is_empty() {
        line("no changes");
    } else {
        for c in &changes {
            let impact = match c.impact {
                Impact::Breaking => "breaking",
                Impact::Compatible => "ok",
            };
            let at = if c.pointer.is_empty() {
                String::new()
            } else {
                format!(" {}", c.pointer)
            };
            line(&format!(
                "{impact:<9} {:<28} {}{at}: {}",
                c.code, c.item, c.message
            ));
        }
        line(&format!(
            "{breaking} breaking, {} compatible",
            changes.len() - breaking
        ));
    }
    if let Some(path) = &args.junit {
        write(path, &doctor::junit(&changes))?;
    }
    if args.fail_on == Some(DiffFailOn::Breaking) && breaking > 0 {
        return Err(Failure::Exit(exit::TOOL_ERROR));
    }
    Ok(())
}
