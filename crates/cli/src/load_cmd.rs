//! `mcpwb load`: how fast a server is. One tool (or a weighted mix of a
//! suite's calls) called by N workers at once for a time or a number of
//! calls, at most R a second, or a ramp of N; a line a second on stderr,
//! then percentiles, throughput, errors by kind, the CPU used and (a ramp)
//! where throughput stops growing and latency bends. `--out` keeps the run
//! as JSON; `--baseline` compares with a kept one and exits 1 past
//! `--max-regression`. The run is kept in History as one row.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;
use workbench_app::load::{
    self, Concurrency, LoadPlan, LoadReport, Regression, Stop, Target, compare,
};

use crate::print::{clean, line};
use crate::session::{calls_for, connect_some, offers, ready};
use crate::{Cli, Failure};

#[derive(clap::Args, Debug)]
pub struct LoadArgs {
    /// The server (with --suite: only its cases; default the suite's).
    server: Option<String>,
    /// The tool to call (not with --suite).
    tool: Option<String>,
    /// The tool's arguments (not with --suite).
    #[command(flatten)]
    args: crate::tool_args::ToolArgs,
    /// Calls running at once.
    #[arg(long, short = 'c', default_value_t = 8, conflicts_with = "ramp")]
    concurrency: u32,
    /// Step the concurrency up, doubling (e.g. 1..64): where throughput
    /// stops growing and latency bends.
    #[arg(long, value_name = "FROM..TO")]
    ramp: Option<String>,
    /// How long (e.g. 30s, 2m, 500ms); with --ramp, split across the steps.
    #[arg(long, short = 'd', default_value = "10s", conflicts_with = "requests")]
    duration: String,
    /// Stop after this many calls instead (with --ramp: in all).
    #[arg(long, short = 'n')]
    requests: Option<u64>,
    /// At most this many calls a second, all workers together.
    #[arg(long, value_name = "R")]
    rate: Option<f64>,
    /// A call with no answer after this many seconds counts as a timeout
    /// (progress the server reports keeps it going).
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    call_timeout: f64,
    /// A mix of this suite's calls (each case's "weight", default 1).
    #[arg(long, value_name = "FILE")]
    suite: Option<PathBuf>,
    /// Keep the run as JSON here (a baseline for later runs).
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Compare with a run kept with --out; exit 1 past --max-regression.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// How much worse (percent) p50, p99 or throughput may get against the baseline.
    #[arg(long, value_name = "PERCENT", default_value_t = 20.0)]
    max_regression: f64,
}

/// `30s`, `2m`, `500ms`, `1.5s`, `10` (seconds).
fn duration(text: &str) -> Result<Duration, Failure> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&t[..i], &t[i..]),
        None => (t, "s"),
    };
    let n: f64 = number
        .parse()
        .map_err(|_| Failure::Usage(format!("--duration {text}: say e.g. 30s, 2m or 500ms")))?;
    let secs = match unit {
        "ms" => n / 1000.0,
        "s" => n,
        "m" => n * 60.0,
        _ => {
            return Err(Failure::Usage(format!(
                "--duration {text}: the unit is ms, s or m"
            )));
        }
    };
    if !(secs > 0.0 && secs <= 86_400.0) {
        return Err(Failure::Usage(format!(
            "--duration {text}: give more than 0 and at most a day"
        )));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn ramp(text: &str) -> Result<Concurrency, Failure> {
    let (a, b) = text
        .split_once("..")
        .ok_or_else(|| Failure::Usage(format!("--ramp {text}: say FROM..TO, e.g. 1..64")))?;
    let parse = |s: &str| {
        s.trim()
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=4096).contains(n))
    };
    match (parse(a), parse(b)) {
        (Some(from), Some(to)) if from <= to => Ok(Concurrency::Ramp { from, to }),
        _ => Err(Failure::Usage(format!(
            "--ramp {text}: FROM and TO are 1 to 4096, FROM ≤ TO"
        ))),
    }
}

/// A latency in milliseconds, or a dash where no call succeeded to have one.
fn latency(ms: f64, any: bool) -> String {
    if any {
        format!("{ms:.2} ms")
    } else {
        "—".to_string()
    }
}

fn print(report: &LoadReport, plan: &LoadPlan) {
    let mut servers: Vec<String> = plan
        .targets
        .iter()
        .map(|t| format!("{}/{}", t.server, t.tool))
        .collect();
    servers.dedup();
    line(&format!(
        "{}: {} calls in {:.1} s · {:.0} calls/s",
        clean(&servers.join(" + ")),
        report.calls,
        report.duration_ms / 1000.0,
        report.throughput
    ));
    let l = &report.latency;
    line(&if report.ok == 0 {
        "latency: no call succeeded".to_string()
    } else {
        format!(
            "latency (ms): p50 {:.2} · p90 {:.2} · p99 {:.2} · p99.9 {:.2} · max {:.2} · mean {:.2}",
            l.p50, l.p90, l.p99, l.p999, l.max, l.mean
        )
    });
    let e = &report.errors;
    line(&if e.total() == 0 {
        "errors: none".to_string()
    } else {
        format!(
            "errors: {} — tool {} · protocol {} · timeout {} · disconnect {}",
            e.total(),
            e.tool,
            e.protocol,
            e.timeout,
            e.disconnect
        )
    });
    for s in &report.errors_said {
        line(&format!("  {}× {}: {}", s.count, s.kind, clean(&s.message)));
    }
    line(&format!(
        "cpu: client {:.0}% of a core{}",
        report.client_cpu * 100.0,
        report
            .server_cpu
            .map(|s| format!(" · server {:.0}%", s * 100.0))
            .unwrap_or_default()
    ));
    for m in &report.mix {
        line(&format!(
            "  {}/{}: {} calls",
            clean(&m.server),
            clean(&m.tool),
            m.calls
        ));
    }
    for s in &report.steps {
        // A success takes at least a microsecond: a p50 of 0 is none.
        let any = s.p50 > 0.0;
        line(&format!(
            "  concurrency {:>4}: {:>8.0} calls/s · p50 {} · p99 {} · {} errors",
            s.concurrency,
            s.throughput,
            latency(s.p50, any),
            latency(s.p99, any),
            s.errors
        ));
    }
    if let Some(k) = &report.knee {
        line(&format!("ramp: {k}"));
    }
    for w in &report.warnings {
        line(&format!("warning: {w}"));
    }
    if let Some(s) = &report.stopped {
        line(&format!("stopped: {}", clean(s)));
    }
}

/// What the run calls: one tool, or a suite's calls as a weighted mix.
fn targets_of(args: &LoadArgs) -> Result<Vec<Target>, Failure> {
    match (&args.suite, &args.tool) {
        (Some(_), None) if args.args.given() => Err(Failure::Usage(
            "a suite's cases have their own arguments: --args and -a go with a TOOL".into(),
        )),
        (Some(path), None) => Ok(load::suite_targets(path, args.server.as_deref())?),
        (Some(_), Some(_)) => Err(Failure::Usage("give a TOOL or --suite, not both".into())),
        (None, Some(tool)) => Ok(vec![Target {
            server: args.server.clone().unwrap_or_default(),
            tool: tool.clone(),
            arguments: Value::Object(args.args.object(None)?),
            weight: 1,
        }]),
        (None, None) => Err(Failure::Usage(
            "which tool? mcpwb load SERVER TOOL [--args JSON] [-a KEY=VALUE], or --suite FILE"
                .into(),
        )),
    }
}

/// The run's figures as a person reads them, with how they compare with
/// the baseline (and whether the two ran alike).
fn said(
    report: &LoadReport,
    plan: &LoadPlan,
    baseline: Option<&LoadReport>,
    regressions: &[Regression],
    max_regression: f64,
) {
    print(report, plan);
    // Figures compare only like with like: say when the runs were not.
    if let (Some(b), Some(now)) = (
        baseline.and_then(|b| b.settings.as_ref()),
        report.settings.as_ref(),
    ) && b != now
    {
        line(&format!(
            "the baseline ran {} and this run {}: their figures are not like for like",
            clean(&b.said()),
            clean(&now.said())
        ));
    }
    for r in regressions {
        line(&format!(
            "vs baseline: {} {:.2} (was {:.2}, {:+.0}%){}",
            r.figure,
            r.after,
            r.before,
            r.worse_by * 100.0,
            if r.failed {
                format!(" — worse by more than {max_regression}%")
            } else {
                String::new()
            }
        ));
    }
}

pub async fn run(cli: &Cli, args: &LoadArgs) -> Result<(), Failure> {
    let targets = targets_of(args)?;
    let baseline: Option<LoadReport> = match &args.baseline {
        Some(p) => Some(load::baseline(p)?),
        None => None,
    };
    let mut plan = LoadPlan {
        concurrency: match &args.ramp {
            Some(r) => ramp(r)?,
            None => Concurrency::Fixed(args.concurrency.clamp(1, 4096)),
        },
        stop: match args.requests {
            Some(n) => Stop::Calls(n.max(1)),
            None => Stop::Duration(duration(&args.duration)?),
        },
        rate: args.rate.filter(|r| *r > 0.0),
        timeout: Duration::from_secs_f64(args.call_timeout.max(0.01)),
        targets,
    };
    let mut servers: Vec<&str> = plan.targets.iter().map(|t| t.server.as_str()).collect();
    servers.sort();
    servers.dedup();
    let wb = connect_some(cli, &servers, offers(cli, cli.sampling)).await?;
    for s in &servers {
        ready(&wb, s).await?;
    }
    // `-a KEY=VALUE` typed by the tool's schema as its server listed it.
    for t in plan
        .targets
        .iter_mut()
        .filter(|_| !args.args.arg.is_empty())
    {
        let schema = workbench_app::tools::input_schema(&wb, &t.server, &t.tool);
        let object = std::mem::take(&mut t.arguments)
            .as_object()
            .cloned()
            .unwrap_or_default();
        t.arguments = args.args.typed(object, schema.as_ref())?;
    }
    let calls = calls_for(&wb, true);
    if let Some(why) = load::refusal(&calls, &plan) {
        workbench_app::servers::end(&wb, &calls).await;
        if why.code == workbench_app::ErrorCode::Invalid {
            return Err(why.into());
        }
        eprintln!("mcpwb: {}", clean(&why.message));
        return Err(Failure::Exit(1));
    }
    let quiet = cli.json;
    let tick: load::Tick = Arc::new(move |s| {
        if !quiet {
            let any = s.calls > s.errors;
            eprintln!(
                "{:>4}s  concurrency {:>4}  {:>7} calls  p50 {:>11}  p99 {:>11}  {} errors",
                s.at,
                s.concurrency,
                s.calls,
                latency(s.p50, any),
                latency(s.p99, any),
                s.errors
            );
        }
    });
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    let asked = tokio::spawn(async move {
        crate::stop::asked().await;
        stopper.cancel();
    });
    let ran = load::run(&calls, &plan, tick, cancel).await;
    asked.abort();
    workbench_app::servers::end(&wb, &calls).await;
    let report = ran?.report;
    if let Some(path) = &args.out {
        let text = serde_json::to_string_pretty(&report).unwrap_or_default() + "\n";
        workbench_app::write_out(path, &text)?;
    }
    let regressions = baseline
        .as_ref()
        .map(|b| compare(b, &report, args.max_regression / 100.0))
        .unwrap_or_default();
    if cli.json {
        line(&json!({ "report": report, "baseline": regressions }).to_string());
    } else {
        said(
            &report,
            &plan,
            baseline.as_ref(),
            &regressions,
            args.max_regression,
        );
    }
    if report.calls == 0
        || regressions.iter().any(|r| r.failed)
        || report
            .stopped
            .as_deref()
            .is_some_and(|s| s.starts_with("every call failed"))
    {
        return Err(Failure::Exit(1));
    }
    Ok(())
}
