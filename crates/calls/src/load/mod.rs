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

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde_json::Value;
use tokio_util::sync::CancellationToken;
use workbench_core::{CallOptions, ErrorCode};
use workbench_store::CallStatus;

pub use report::{
    LoadBucket, LoadErrors, LoadLatency, LoadReport, LoadSecond, LoadSettings, MixShare, RampStep,
    Regression, compare,
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
            ok: 0,
        }
    }
}

/// What kind of failure a finished call was (None: it succeeded).
fn kind_of(status: CallStatus, error: Option<ErrorCode>) -> Option<fn(&mut LoadErrors)> {
    match status {
        CallStatus::Ok => None,
        CallStatus::Error => Some(|e| e.tool += 1),
        _ => Some(match error {
            Some(ErrorCode::Timeout) => |e: &mut LoadErrors| e.timeout += 1,
            Some(ErrorCode::Transport | ErrorCode::ServerNotReady) => {
                |e: &mut LoadErrors| e.disconnect += 1
            }
            _ => |e: &mut LoadErrors| e.protocol += 1,
        }),
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

    async fn load_run(&self, plan: &LoadPlan, tick: Tick, cancel: CancellationToken) -> LoadReport {
        let started_at = workbench_store::now_ms();
        let clock = Instant::now();
        let first = plan.targets.first();
        let mut report = LoadReport {
            server: first.map(|t| t.server.clone()).unwrap_or_default(),
            tool: match plan.targets.as_slice() {
                [one] => one.tool.clone(),
                _ => "mix".into(),
            },
            started_at,
            settings: Some(plan.settings()),
            ..LoadReport::default()
        };
        if let Some(why) = self.load_refusal(plan) {
            report.stopped = Some(format!("refused: {why}"));
            return report;
        }
        let pgid = first
            .and_then(|t| self.workbench().server(&t.server).ok())
            .and_then(|h| h.pgid());
        let cpu_before = (cpu::own(), pgid.and_then(cpu::of));
        let definitions: Vec<Option<Value>> = plan
            .targets
            .iter()
            .map(|t| self.workbench().catalog().tool(&t.server, &t.tool))
            .collect();
        let made: Arc<Vec<AtomicU64>> =
            Arc::new(plan.targets.iter().map(|_| AtomicU64::new(0)).collect());
        let steps = plan.steps();
        let workers = *steps.iter().max().unwrap_or(&1) as usize;
        let recs: Arc<Vec<Mutex<Rec>>> =
            Arc::new((0..workers).map(|_| Mutex::new(Rec::new())).collect());
        let concurrency = Arc::new(AtomicU64::new(0));
        // A line a second, through every step.
        let seconds = Arc::new(Mutex::new(Vec::<LoadSecond>::new()));
        let ticking = CancellationToken::new();
        let ticker = {
            let (recs, seconds, concurrency, ticking) = (
                recs.clone(),
                seconds.clone(),
                concurrency.clone(),
                ticking.clone(),
            );
            tokio::spawn(async move {
                let mut at = 0u32;
                let mut every = tokio::time::interval(Duration::from_secs(1));
                every.tick().await;
                let mut since = Instant::now();
                loop {
                    let last = tokio::select! {
                        _ = every.tick() => false,
                        _ = ticking.cancelled() => true,
                    };
                    // The run's last part-second is in the totals, not a line.
                    if last && since.elapsed() < Duration::from_millis(500) {
                        return;
                    }
                    since = Instant::now();
                    at += 1;
                    let mut merged = histogram();
                    let mut errors = 0;
                    for r in recs.iter() {
                        let mut r = r.lock().unwrap_or_else(|e| e.into_inner());
                        let _ = merged.add(&r.second);
                        r.second.reset();
                        errors += std::mem::take(&mut r.second_errors);
                    }
                    let second = LoadSecond {
                        at,
                        concurrency: concurrency.load(Ordering::Relaxed) as u32,
                        calls: merged.len() + errors,
                        errors,
                        p50: report::latency_of(&merged).p50,
                        p99: report::latency_of(&merged).p99,
                    };
                    if !(last && second.calls == 0) {
                        tick(&second);
                        seconds
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(second);
                    }
                    if last {
                        return;
                    }
                }
            })
        };
        let per_step = match plan.stop {
            Stop::Duration(d) => {
                Stop::Duration((d / steps.len() as u32).max(Duration::from_millis(200)))
            }
            Stop::Calls(n) => Stop::Calls((n / steps.len() as u64).max(1)),
        };
        // Stops the run when every call fails at once (the server is gone).
        let failing = Arc::new(AtomicBool::new(false));
        for &c in &steps {
            if cancel.is_cancelled() || failing.load(Ordering::Relaxed) {
                break;
            }
            concurrency.store(u64::from(c), Ordering::Relaxed);
            let step_clock = Instant::now();
            let issued = Arc::new(AtomicU64::new(0));
            let deadline = match per_step {
                Stop::Duration(d) => Some(step_clock + d),
                Stop::Calls(_) => None,
            };
            let budget = match per_step {
                Stop::Calls(n) => Some(n),
                Stop::Duration(_) => None,
            };
            let stop = cancel.child_token();
            let work = (0..c as usize).map(|w| {
                let (recs, issued, stop, failing, made) = (
                    recs.clone(),
                    issued.clone(),
                    stop.clone(),
                    failing.clone(),
                    made.clone(),
                );
                let definitions = &definitions;
                let total_weight: u32 = plan.targets.iter().map(|t| t.weight.max(1)).sum();
                async move {
                    let mut in_a_row = 0u32;
                    loop {
                        if stop.is_cancelled() || deadline.is_some_and(|d| Instant::now() >= d) {
                            return;
                        }
                        let n = issued.fetch_add(1, Ordering::Relaxed);
                        if budget.is_some_and(|b| n >= b) {
                            return;
                        }
                        if let Some(rate) = plan.rate.filter(|r| *r > 0.0) {
                            let slot = step_clock + Duration::from_secs_f64(n as f64 / rate);
                            tokio::select! {
                                _ = tokio::time::sleep_until(slot.into()) => {}
                                _ = stop.cancelled() => return,
                            }
                            if deadline.is_some_and(|d| Instant::now() >= d) {
                                return;
                            }
                        }
                        // The mix, by weight.
                        let mut pick = (n % u64::from(total_weight)) as u32;
                        let index = plan
                            .targets
                            .iter()
                            .position(|t| {
                                let w = t.weight.max(1);
                                if pick < w {
                                    true
                                } else {
                                    pick -= w;
                                    false
                                }
                            })
                            .unwrap_or(0);
                        let target = &plan.targets[index];
                        made[index].fetch_add(1, Ordering::Relaxed);
                        let began = Instant::now();
                        let ran = self
                            .run(Call {
                                consent: None,
                                origin: Origin::Load,
                                server: &target.server,
                                tool: &target.tool,
                                arguments: target.arguments.clone(),
                                definition: definitions[index].as_ref(),
                                link: Link::default(),
                                options: CallOptions {
                                    timeout: Some(plan.timeout),
                                    cancel: Some(stop.child_token()),
                                    ..CallOptions::default()
                                },
                            })
                            .await;
                        let took = began.elapsed().as_micros().max(1) as u64;
                        if ran.status == CallStatus::Cancelled && stop.is_cancelled() {
                            return;
                        }
                        let code = ran.outcome.as_ref().err().map(|e| e.code());
                        let mut rec = recs[w].lock().unwrap_or_else(|e| e.into_inner());
                        match kind_of(ran.status, code) {
                            None => {
                                in_a_row = 0;
                                rec.ok += 1;
                                let _ = rec.second.record(took);
                                let _ = rec.step.record(took);
                                let _ = rec.total.record(took);
                            }
                            Some(count) => {
                                count(&mut rec.errors);
                                count(&mut rec.step_errors);
                                rec.second_errors += 1;
                                in_a_row += 1;
                                // The server went and every call fails at
                                // once: stop rather than spin.
                                if in_a_row >= 1000
                                    && matches!(code, Some(ErrorCode::ServerNotReady))
                                {
                                    failing.store(true, Ordering::Relaxed);
                                    stop.cancel();
                                    return;
                                }
                            }
                        }
                    }
                }
            });
            tokio::select! {
                _ = futures::future::join_all(work) => {}
                _ = cancel.cancelled() => {
                    stop.cancel();
                }
            }
            let elapsed = step_clock.elapsed().as_secs_f64().max(1e-6);
            let mut merged = histogram();
            let mut errors = LoadErrors::default();
            for r in recs.iter() {
                let mut r = r.lock().unwrap_or_else(|e| e.into_inner());
                let _ = merged.add(&r.step);
                r.step.reset();
                errors.add(&std::mem::take(&mut r.step_errors));
            }
            let l = report::latency_of(&merged);
            report.steps.push(RampStep {
                concurrency: c,
                throughput: (merged.len() + errors.total()) as f64 / elapsed,
                p50: l.p50,
                p99: l.p99,
                errors: errors.total(),
            });
        }
        ticking.cancel();
        let _ = ticker.await;
        let wall = clock.elapsed();
        let mut total = histogram();
        for r in recs.iter() {
            let r = r.lock().unwrap_or_else(|e| e.into_inner());
            let _ = total.add(&r.total);
            report.errors.add(&r.errors);
            report.ok += r.ok;
        }
        report.calls = report.ok + report.errors.total();
        report.duration_ms = wall.as_secs_f64() * 1000.0;
        report.throughput = report.calls as f64 / wall.as_secs_f64().max(1e-6);
        report.latency = report::latency_of(&total);
        report.histogram = report::buckets_of(&total);
        report.seconds = std::mem::take(&mut *seconds.lock().unwrap_or_else(|e| e.into_inner()));
        if steps.len() > 1 {
            report.knee = report::knee_of(&report.steps);
        } else {
            report.steps.clear();
        }
        report.client_cpu = cpu::share(cpu_before.0, cpu::own(), wall);
        report.server_cpu = match (cpu_before.1, pgid.and_then(cpu::of)) {
            (Some(b), Some(a)) => Some(cpu::share(Some(b), Some(a), wall)),
            _ => None,
        };
        report.warnings = cpu::warnings(report.client_cpu, report.server_cpu);
        if plan.targets.len() > 1 {
            report.mix = plan
                .targets
                .iter()
                .zip(made.iter())
                .map(|(t, n)| MixShare {
                    server: t.server.clone(),
                    tool: t.tool.clone(),
                    calls: n.load(Ordering::Relaxed),
                })
                .collect();
        }
        if failing.load(Ordering::Relaxed) {
            report.stopped =
                Some("every call failed: the server is not ready (it crashed or went away)".into());
        } else if cancel.is_cancelled() {
            report.stopped = Some("stopped".into());
        }
        report
    }
}
