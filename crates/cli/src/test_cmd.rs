//! `mcpwb test`: run suites (saved calls with assertions, kept in the
//! project) against the configured servers, headless, for CI. Exit 0 when
//! all pass, 1 on a failed case, 2 on a broken suite file, 4 when a server
//! is not ready or a suite is not trusted (nothing runs then); the last
//! line is `N passed, N failed`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;
use workbench_app::suites::{self, CaseOutcome, Report, RunOptions};

use crate::print::{clean, line};
use crate::{Cli, Failure, test_evals};

#[derive(clap::Args, Debug)]
pub struct TestArgs {
    /// Suite files or folders of them (default: the project's
    /// .mcp-workbench/suites, the project being --project or this folder,
    /// and your own suites beside the workbench's mcp.json).
    paths: Vec<PathBuf>,
    /// Trust the suites this run reads, as they are now (for CI, where the
    /// repository is your own). Without it a suite you did not write runs
    /// only once trusted: it calls tools with arguments of its choosing
    /// and reads your environment.
    #[arg(long)]
    trust_suites: bool,
    /// Run every case against this server instead of the one it names.
    #[arg(long)]
    server: Option<String>,
    /// Only cases whose name holds PATTERN (letter case aside: `--case zzz`
    /// picks "echo says zzz"); with `*` in it, names matching it whole as a
    /// glob (`*` any run of characters: `--case 'echo*'`).
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
    /// Also run the suites' prompt cases (evals): each run is a real, paid
    /// model turn, so they run only when asked — as the window's Run all
    /// leaves them to Run evals. Without it they are counted, not run.
    #[arg(long)]
    evals: bool,
    /// Prompt cases: run with this model instead of the suite's
    /// (`PROVIDER:MODEL`, e.g. `openai:gpt-5-mini`; repeat for several).
    /// Implies --evals.
    #[arg(long = "model", value_name = "PROVIDER:MODEL")]
    models: Vec<String>,
    /// Prompt cases: each this many times instead of its "runs".
    #[arg(long, value_name = "N")]
    runs: Option<u32>,
    /// Prompt cases: how many models run at once.
    #[arg(long, value_name = "N", default_value_t = 4)]
    parallel: usize,
    /// Prompt cases: a model's run is stopped after this many seconds
    /// (unless the case says otherwise with "timeoutMs").
    #[arg(long, value_name = "SECS", default_value_t = 300.0)]
    run_timeout: f64,
}

fn print_report(report: &Report) {
    // A suite of prompt cases only is the evals' matrix.
    for s in report.suites.iter().filter(|s| !s.cases.is_empty()) {
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

/// Refuse (exit 4, nothing run) when a suite is not trusted, saying what
/// it would call and read and how to trust it; `trust` records them.
fn untrusted(suites: &[suites::Suite], trust: bool) -> Result<(), Failure> {
    use workbench_app::suites::{Unread, admit};
    let unread = if trust {
        Unread::TrustThem
    } else {
        Unread::Refuse
    };
    let refused = match admit(suites, unread) {
        Ok(trusted) => {
            for r in &trusted {
                eprintln!("mcpwb: trusted {}", clean(&r.path));
            }
            return Ok(());
        }
        Err(refused) => refused,
    };
    for r in &refused.reviews {
        eprintln!("mcpwb: not trusted: {}", clean(&r.path));
        if !r.calls.is_empty() {
            eprintln!("    it calls: {}", clean(&r.calls.join(", ")));
        }
        if !r.models.is_empty() {
            eprintln!(
                "    it sends prompts to: {} (their tools: any of {}, under your rules)",
                clean(&r.models.join(", ")),
                clean(&r.eval_servers.join(", "))
            );
        }
        if !r.env.is_empty() {
            let vars: Vec<String> = r.env.iter().map(|v| format!("${{env:{v}}}")).collect();
            eprintln!("    it reads: {}", clean(&vars.join(", ")));
        }
    }
    if trust {
        eprintln!("mcpwb: nothing ran: the file changed while it was read; run again");
    } else {
        eprintln!(
            "mcpwb: nothing ran. A suite you did not write runs your servers' tools with arguments of its choosing; read it, then run again with --trust-suites (or trust it in the window's Suites room)"
        );
    }
    Err(Failure::Exit(crate::exit::NOT_READY))
}

/// The suites asked for (the paths given, else those found where a run
/// looks), the broken ones said on stderr.
fn suites_asked(
    cli: &Cli,
    args: &TestArgs,
) -> Result<(Vec<suites::Suite>, Vec<suites::Broken>), Failure> {
    let paths = if args.paths.is_empty() {
        let base = match &cli.project {
            Some(p) => p.clone(),
            None => std::env::current_dir().map_err(|e| Failure::Usage(e.to_string()))?,
        };
        suites::found(&base)?
    } else {
        args.paths.clone()
    };
    let (suites, broken) = suites::load(&paths);
    for b in &broken {
        eprintln!(
            "mcpwb: broken suite, nothing run from it: {}",
            clean(&b.to_string())
        );
    }
    Ok((suites, broken))
}

/// A run as a person reads it: each suite's cases, each eval's table, what
/// was not run and why, and the totals.
fn print_run(
    report: &Report,
    evals: &[workbench_app::evals::EvalReport],
    prompts: usize,
    run_evals: bool,
) {
    let plain = report.suites.len() - evals.len();
    print_report(&Report {
        suites: report.suites[..plain].to_vec(),
        ..report.clone()
    });
    for e in evals {
        test_evals::print(e);
    }
    if report.not_ready > 0 {
        line(&format!(
            "{} not run: their server (or model) was not ready",
            report.not_ready
        ));
    }
    if prompts > 0 && !run_evals {
        line(&format!(
            "{} not run: each is a paid model turn; add --evals to run them",
            crate::print::count(prompts, "prompt case")
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

pub async fn run(cli: &Cli, args: &TestArgs) -> Result<(), Failure> {
    let (suites, broken) = suites_asked(cli, args)?;
    untrusted(&suites, args.trust_suites)?;
    // The servers the cases name that the config has; the others fail
    // their cases with that reason.
    let config = crate::config_cmd::load(cli)?;
    let wanted = suites::servers_needed(&suites, args.server.as_deref(), &config);
    let only: Vec<&str> = wanted.iter().map(String::as_str).collect();
    let offers = crate::session::offers(cli, cli.sampling);
    let wb = if only.is_empty() {
        // No case names a configured server: every case fails saying so.
        crate::session::start_without_servers(&config)
    } else {
        crate::session::connect_some(cli, &only, offers).await?
    };
    for name in &wanted {
        if let Err(Failure::Core(e)) = crate::session::ready(&wb, name).await {
            eprintln!("mcpwb: {}", clean(&e.to_string()));
        }
    }
    let calls = crate::session::calls_for(&wb, !only.is_empty());
    let options = RunOptions {
        case: args.case.clone().map(suites::CasePick::Matching),
        server: args.server.clone(),
        update_snapshots: args.update_snapshots,
        bail: args.bail,
        timeout: Duration::from_secs_f64(cli.timeout.max(0.1)),
    };
    // Trusted above (nothing had started): the run asks again.
    let (mut report, _) = workbench_app::suites::run(
        &calls,
        &suites,
        &options,
        workbench_app::suites::Unread::Refuse,
    )
    .await
    .map_err(workbench_app::ErrorInfo::from)?;
    let prompts: usize = suites.iter().map(|s| s.prompts.len()).sum();
    let run_evals = args.evals || !args.models.is_empty();
    let evals = if prompts > 0 && run_evals {
        let agent = crate::session::agent_for(cli, &wb)?;
        test_evals::providers_from_environment(
            &agent,
            &test_evals::models_of(&suites, &args.models),
        );
        let options = test_evals::options(
            &args.models,
            args.runs,
            args.case.clone(),
            args.parallel,
            args.run_timeout,
        );
        test_evals::run(&agent, &suites, &options, cli.json).await
    } else {
        Vec::new()
    };
    workbench_app::servers::end(&wb, &calls).await;
    // A model × case counts as a case: in the totals and in JUnit.
    for e in &evals {
        report.passed += e.passed;
        report.failed += e.failed;
        report.skipped += e.skipped;
        report.not_ready += e.not_ready;
        report.suites.push(e.as_suite_result());
    }
    if let Some(path) = &args.junit {
        workbench_app::write_out(path, &suites::junit(&report))?;
    }
    if cli.json {
        line(&json!({ "report": report, "evals": evals, "broken": broken }).to_string());
    } else {
        print_run(&report, &evals, prompts, run_evals);
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
