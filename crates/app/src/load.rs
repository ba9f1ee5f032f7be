//! A load run: a tool (or a suite's mix) called by many at once for a time
//! or a number of calls. Each target must be a tool its server lists, the
//! person's rules must let every target run unasked (a load run asks
//! nobody), each second goes to the caller's tick as it ends, and the run
//! is kept as one History row. The window's Load section and `mcpwb load`
//! adapt it.

use tokio_util::sync::CancellationToken;
use workbench_calls::Calls;
use workbench_core::ErrorInfo;

pub use workbench_calls::load::{
    Concurrency, LoadPlan, LoadReport, LoadSecond, Stop, Target, Tick, compare,
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
