//! Load runs: one tool (or a weighted mix of a suite's calls) called by N
//! workers at once for a time or a number of calls, at most R a second, or
//! stepping N up (a ramp) to find where the server's throughput stops
//! growing and its latency bends. Latencies go to HDR histograms; a line a
//! second goes to whoever watches; the client's own CPU (and a stdio
//! server's) is read from /proc so a run can say when the client, not the
//! server, was the limit.
//!
//! Every call goes through the one call path as origin `load`: the rules
//! are checked once before the run (a Deny, or a tool that may destroy
//! without a rule that allows it, refuses the whole run) and the calls are
//! not kept one by one in the history — the run is, as one summary row.

mod cpu;
mod report;
mod run;

use std::sync::Arc;
use std::time::Duration;

use hdrhistogram::Histogram;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use workbench_core::{CallOptions, ErrorCode};
use workbench_store::CallStatus;

pub use report::{
    LoadBucket, LoadErrorSaid, LoadErrors, LoadLatency, LoadReport, LoadSecond, LoadSettings,
    MixShare, RampStep, Regression, compare,
};

use crate::{Call, Calls, Link, Origin};

/// One call of the mix.
#[derive(Debug, Clone)]
pub struct Target {
    pub server: String,
    pub tool: String,
    pub arguments: Value,
    /// Its share of the calls (relative to the others').
    pub weight: u32,
}

/// How many calls run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Concurrency {
    Fixed(u32),
    /// Doubling from `from` to `to` (which is always a step).
    Ramp {
        from: u32,
        to: u32,
    },
}

/// When a run (or each ramp step) ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Duration(Duration),
    Calls(u64),
}

#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub targets: Vec<Target>,
    pub concurrency: Concurrency,
    /// For a ramp: each step's share (a duration is split evenly).
    pub stop: Stop,
    /// At most this many calls a second (all workers together).
    pub rate: Option<f64>,
    /// A call is cut (and counted as a timeout) after this long.
    pub timeout: Duration,
}

impl LoadPlan {
    /// How the run is asked for, as its report keeps it.
    pub fn settings(&self) -> report::LoadSettings {
        let (concurrency, ramp_to) = match self.concurrency {
            Concurrency::Fixed(n) => (n, None),
            Concurrency::Ramp { from, to } => (from, Some(to)),
        };
        let (seconds, calls) = match self.stop {
            Stop::Duration(d) => (Some(d.as_secs_f64()), None),
            Stop::Calls(n) => (None, Some(n)),
        };
        report::LoadSettings {
            concurrency,
            ramp_to,
            seconds,
            calls,
            rate: self.rate,
        }
    }

    /// The ramp's steps (or the one concurrency).
    pub fn steps(&self) -> Vec<u32> {
        match self.concurrency {
            Concurrency::Fixed(n) => vec![n.max(1)],
            Concurrency::Ramp { from, to } => {
                let (from, to) = (from.max(1), to.max(from.max(1)));
                let mut out = Vec::new();
                let mut c = from;
                while c < to {
                    out.push(c);
                    c = c.saturating_mul(2);
                }
                out.push(to);
                out
            }
        }
    }
}

/// Told each second of the run.
pub type Tick = Arc<dyn Fn(&LoadSecond) + Send + Sync>;

/// What one worker saw: the current second's and the whole run's latencies (µs).
struct Rec {
    second: Histogram<u64>,
    second_errors: u64,
    step: Histogram<u64>,
    step_errors: LoadErrors,
    total: Histogram<u64>,
    errors: LoadErrors,
    /// What its failed calls said.
    said: Vec<report::LoadErrorSaid>,
    ok: u64,
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("static bounds are valid")
}

impl Rec {
    fn new() -> Rec {
        Rec {
            second: histogram(),
            second_errors: 0,
            step: histogram(),
            step_errors: LoadErrors::default(),
            total: histogram(),
            errors: LoadErrors::default(),
            said: Vec::new(),
            ok: 0,
        }
    }
}

/// What kind of failure a finished call was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failed {
    /// The tool answered `isError: true`.
    Tool,
    /// A JSON-RPC error, or an answer that is not one.
    Protocol,
    Timeout,
    /// The connection went.
    Disconnect,
}

impl Failed {
    /// How a finished call failed (None: it succeeded).
    fn of(status: CallStatus, error: Option<ErrorCode>) -> Option<Failed> {
        match status {
            CallStatus::Ok => None,
            CallStatus::Error => Some(Failed::Tool),
            _ => Some(match error {
                Some(ErrorCode::Timeout) => Failed::Timeout,
                Some(ErrorCode::Transport | ErrorCode::ServerNotReady) => Failed::Disconnect,
                _ => Failed::Protocol,
            }),
        }
    }

    fn count(self, e: &mut LoadErrors) {
        match self {
            Failed::Tool => e.tool += 1,
            Failed::Protocol => e.protocol += 1,
            Failed::Timeout => e.timeout += 1,
            Failed::Disconnect => e.disconnect += 1,
        }
    }

    /// Its name, as [`LoadErrors`]' fields are called.
    fn name(self) -> &'static str {
        match self {
            Failed::Tool => "tool",
            Failed::Protocol => "protocol",
            Failed::Timeout => "timeout",
            Failed::Disconnect => "disconnect",
        }
    }
}

impl Calls {
    /// Why the rules refuse a load run of `plan` (checked once, for each
    /// target): a Deny, or a tool that may destroy without a rule allowing it.
    pub fn load_refusal(&self, plan: &LoadPlan) -> Option<String> {
        plan.targets.iter().find_map(|t| {
            self.standing_refusal(&Call {
                consent: None,
                origin: Origin::Load,
                server: &t.server,
                tool: &t.tool,
                arguments: Value::Null,
                definition: None,
                link: Link::default(),
                options: CallOptions::default(),
            })
        })
    }

    /// Run `plan` until it ends or `cancel` fires; `tick` hears each second.
    /// One span for the run (traces out), with its figures.
    pub async fn load(&self, plan: &LoadPlan, tick: Tick, cancel: CancellationToken) -> LoadReport {
        let mut span = workbench_core::otel::Span::start(
            "load run",
            workbench_core::otel::Kind::Internal,
            None,
        );
        let report = span.run(self.load_run(plan, tick, cancel)).await;
        span.set("mcp.server", report.server.as_str());
        span.set("mcp.tool", report.tool.as_str());
        span.set("load.calls", report.calls);
        span.set("load.throughput", report.throughput);
        span.set("load.p50_ms", report.latency.p50);
        span.set("load.p99_ms", report.latency.p99);
        span.set("load.errors", report.errors.total());
        if let Some(why) = &report.stopped {
            span.fail(why.as_str());
        }
        report
    }
}
