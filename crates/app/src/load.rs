//! A load run: a tool (or a suite's mix) called by many at once for a time
//! or a number of calls. Each target must be a tool its server lists, the
//! person's rules must let every target run unasked (a load run asks
//! nobody), each second goes to the caller's tick as it ends, and the run
//! is kept as one History row. The window's Load section and `mcpwb load`
//! adapt it.

use std::path::Path;

use serde_json::json;
use tokio_util::sync::CancellationToken;
use workbench_calls::Calls;
use workbench_core::ErrorInfo;

pub use workbench_calls::load::{
    Concurrency, LoadPlan, LoadReport, LoadSecond, Regression, Stop, Target, Tick, compare,
};

/// What a run made: its report, and its History row (None: not kept).
pub struct Ran {
    pub report: LoadReport,
    pub history_id: Option<i64>,
}

/// Why `plan` cannot run here, if it cannot: a target its server does not
/// list, or one the person's rules would ask about.
pub fn refusal(calls: &Calls, plan: &LoadPlan) -> Option<ErrorInfo> {
    let wb = calls.workbench();
    for t in &plan.targets {
        if wb.catalog().tool(&t.server, &t.tool).is_none() {
            return Some(crate::invalid(format!(
                "{} has no tool \"{}\" (mcpwb tools {} lists them)",
                t.server, t.tool, t.server
            )));
        }
    }
    calls
        .load_refusal(plan)
        .map(|why| ErrorInfo::refused(format!("the load run is refused: {why}")))
}

/// Run `plan` (refused as [`refusal`] says), each second to `tick`, until it
/// ends or `cancel`; kept in the History.
pub async fn run(
    calls: &Calls,
    plan: &LoadPlan,
    tick: Tick,
    cancel: CancellationToken,
) -> Result<Ran, ErrorInfo> {
    if let Some(why) = refusal(calls, plan) {
        return Err(why);
    }
    let report = calls.load(plan, tick, cancel).await;
    let history_id = calls.keep_load_run(plan, &report).await;
    Ok(Ran { report, history_id })
}

/// The mix of a suite's calls (its surface checks, chained cases and those
/// reading the environment left out; `server`: only its cases). A suite
/// not trusted is refused: it calls tools with arguments of its choosing.
pub fn suite_targets(path: &Path, server: Option<&str>) -> Result<Vec<Target>, ErrorInfo> {
    let (suites, broken) = workbench_calls::suite::load(&[path.to_path_buf()]);
    if let Some(b) = broken.first() {
        return Err(crate::invalid(format!("--suite: {b}")));
    }
    let suite = suites
        .first()
        .ok_or_else(|| crate::invalid(format!("--suite {}: no suite", path.display())))?;
    if !workbench_calls::suite::trust::review(
        suite,
        &workbench_calls::suite::trust::SuiteTrust::app(),
    )
    .trusted
    {
        return Err(crate::invalid(format!(
            "--suite {}: not trusted (it calls tools with arguments of its choosing): mcpwb test --trust-suites, or trust it in the Suites room",
            path.display()
        )));
    }
    let targets: Vec<Target> = suite
        .cases
        .iter()
        .filter(|c| c.skip.is_none())
        .filter_map(|c| {
            let tool = c.tool.clone()?;
            let at = c.server.clone().or_else(|| suite.server.clone())?;
            // A case that reads another's result or the environment is not repeated blindly.
            (!c.arguments.to_string().contains("${") && server.is_none_or(|s| s == at)).then(|| {
                Target {
                    server: at,
                    tool,
                    arguments: if c.arguments.is_null() {
                        json!({})
                    } else {
                        c.arguments.clone()
                    },
                    weight: c.weight.unwrap_or(1),
                }
            })
        })
        .collect();
    if targets.is_empty() {
        return Err(crate::invalid(format!(
            "--suite {}: no case to repeat (surface checks, cases that use ${{...}} and skipped ones are left out)",
            path.display()
        )));
    }
    Ok(targets)
}

/// A run kept with `--out`, to compare against; read without following a
/// link.
pub fn baseline(path: &Path) -> Result<LoadReport, ErrorInfo> {
    let bytes = workbench_core::files::read_no_follow(path, 64 << 20)
        .map_err(|e| crate::invalid(format!("--baseline {}: {e}", path.display())))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        crate::invalid(format!(
            "--baseline {}: not a run kept with --out: {e}",
            path.display()
        ))
    })
}
