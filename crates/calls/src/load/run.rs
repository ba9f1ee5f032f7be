//! A load run as it goes: the steps one after another (one for a fixed
//! concurrency), each step's workers calling until its share of the time or
//! the calls is spent, a line a second to whoever watches, and the figures
//! gathered at the end.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio_util::sync::CancellationToken;
use workbench_core::{CallOptions, ErrorCode};
use workbench_store::CallStatus;

use super::report::{self, LoadErrors, LoadReport, LoadSecond, MixShare, RampStep};
use super::{Failed, LoadPlan, Rec, Stop, Tick, cpu, histogram};
use crate::{Call, Calls, Link, Origin};

/// What every worker of a run shares, and the ticker reads.
struct Shared {
    /// One record per worker slot (the most workers of any step).
    recs: Vec<Mutex<Rec>>,
    /// The step's concurrency, for the lines.
    concurrency: AtomicU64,
    /// Calls made of each target (the mix's shares).
    made: Vec<AtomicU64>,
    /// Every call failed at once: the server is gone, the run stops.
    failing: AtomicBool,
}

impl Shared {
    fn rec(&self, w: usize) -> std::sync::MutexGuard<'_, Rec> {
        self.recs[w].lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One step: its concurrency, its end (a time or a number of calls), and
/// the calls issued so far.
struct Step {
    clock: Instant,
    deadline: Option<Instant>,
    budget: Option<u64>,
    issued: AtomicU64,
    stop: CancellationToken,
}

impl Step {
    fn over(&self) -> bool {
        self.stop.is_cancelled() || self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

impl Calls {
    pub(super) async fn load_run(
        &self,
        plan: &LoadPlan,
        tick: Tick,
        cancel: CancellationToken,
    ) -> LoadReport {
        let mut report = LoadReport {
            server: plan
                .targets
                .first()
                .map(|t| t.server.clone())
                .unwrap_or_default(),
            tool: match plan.targets.as_slice() {
                [one] => one.tool.clone(),
                _ => "mix".into(),
            },
            started_at: workbench_store::now_ms(),
            settings: Some(plan.settings()),
            ..LoadReport::default()
        };
        if let Some(why) = self.load_refusal(plan) {
            report.stopped = Some(format!("refused: {why}"));
            return report;
        }
        let clock = Instant::now();
        let pgid = plan
            .targets
            .first()
            .and_then(|t| self.workbench().server(&t.server).ok())
            .and_then(|h| h.pgid());
        let cpu_before = (cpu::own(), pgid.and_then(cpu::of));
        let definitions: Vec<Option<Value>> = plan
            .targets
            .iter()
            .map(|t| self.workbench().catalog().tool(&t.server, &t.tool))
            .collect();
        let steps = plan.steps();
        let workers = *steps.iter().max().unwrap_or(&1) as usize;
        let shared = Arc::new(Shared {
            recs: (0..workers).map(|_| Mutex::new(Rec::new())).collect(),
            concurrency: AtomicU64::new(0),
            made: plan.targets.iter().map(|_| AtomicU64::new(0)).collect(),
            failing: AtomicBool::new(false),
        });
        let seconds = Seconds::start(shared.clone(), tick);
        let per_step = match plan.stop {
            Stop::Duration(d) => {
                Stop::Duration((d / steps.len() as u32).max(Duration::from_millis(200)))
            }
            Stop::Calls(n) => Stop::Calls((n / steps.len() as u64).max(1)),
        };
        for &c in &steps {
            if cancel.is_cancelled() || shared.failing.load(Ordering::Relaxed) {
                break;
            }
            let step = self
                .load_step(plan, &shared, &definitions, c, per_step, &cancel)
                .await;
            report.steps.push(step);
        }
        report.seconds = seconds.end().await;
        let wall = clock.elapsed();
        totals(&mut report, &shared, wall);
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
                .zip(shared.made.iter())
                .map(|(t, n)| MixShare {
                    server: t.server.clone(),
                    tool: t.tool.clone(),
                    calls: n.load(Ordering::Relaxed),
                })
                .collect();
        }
        if shared.failing.load(Ordering::Relaxed) {
            report.stopped =
                Some("every call failed: the server is not ready (it crashed or went away)".into());
        } else if cancel.is_cancelled() {
            report.stopped = Some("stopped".into());
        }
        report
    }

    /// One step of `c` workers until its share (`per_step`) is spent or
    /// `cancel` fires; its throughput, latencies and errors.
    async fn load_step(
        &self,
        plan: &LoadPlan,
        shared: &Shared,
        definitions: &[Option<Value>],
        c: u32,
        per_step: Stop,
        cancel: &CancellationToken,
    ) -> RampStep {
        shared.concurrency.store(u64::from(c), Ordering::Relaxed);
        let clock = Instant::now();
        let step = Step {
            clock,
            deadline: match per_step {
                Stop::Duration(d) => Some(clock + d),
                Stop::Calls(_) => None,
            },
            budget: match per_step {
                Stop::Calls(n) => Some(n),
                Stop::Duration(_) => None,
            },
            issued: AtomicU64::new(0),
            stop: cancel.child_token(),
        };
        let work = (0..c as usize).map(|w| self.load_worker(plan, shared, definitions, &step, w));
        tokio::select! {
            _ = futures::future::join_all(work) => {}
            _ = cancel.cancelled() => step.stop.cancel(),
        }
        let elapsed = step.clock.elapsed().as_secs_f64().max(1e-6);
        let mut merged = histogram();
        let mut errors = LoadErrors::default();
        for w in 0..shared.recs.len() {
            let mut r = shared.rec(w);
            let _ = merged.add(&r.step);
            r.step.reset();
            errors.add(&std::mem::take(&mut r.step_errors));
        }
        let l = report::latency_of(&merged);
        RampStep {
            concurrency: c,
            throughput: (merged.len() + errors.total()) as f64 / elapsed,
            p50: l.p50,
            p99: l.p99,
            errors: errors.total(),
        }
    }

    /// Worker `w` of `step`: a call after another (at the plan's rate, when
    /// it has one) until the step is over, each one recorded.
    async fn load_worker(
        &self,
        plan: &LoadPlan,
        shared: &Shared,
        definitions: &[Option<Value>],
        step: &Step,
        w: usize,
    ) {
        let mut in_a_row = 0u32;
        loop {
            if step.over() {
                return;
            }
            let n = step.issued.fetch_add(1, Ordering::Relaxed);
            if step.budget.is_some_and(|b| n >= b) {
                return;
            }
            if let Some(rate) = plan.rate.filter(|r| *r > 0.0) {
                let slot = step.clock + Duration::from_secs_f64(n as f64 / rate);
                tokio::select! {
                    _ = tokio::time::sleep_until(slot.into()) => {}
                    _ = step.stop.cancelled() => return,
                }
                if step.over() {
                    return;
                }
            }
            let index = pick(plan, n);
            let target = &plan.targets[index];
            shared.made[index].fetch_add(1, Ordering::Relaxed);
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
                        cancel: Some(step.stop.child_token()),
                        ..CallOptions::default()
                    },
                })
                .await;
            let took = began.elapsed().as_micros().max(1) as u64;
            if ran.status == CallStatus::Cancelled && step.stop.is_cancelled() {
                return;
            }
            let code = ran.outcome.as_ref().err().map(|e| e.code());
            let mut rec = shared.rec(w);
            match Failed::of(ran.status, code) {
                None => {
                    in_a_row = 0;
                    rec.ok += 1;
                    let _ = rec.second.record(took);
                    let _ = rec.step.record(took);
                    let _ = rec.total.record(took);
                }
                Some(failed) => {
                    failed.count(&mut rec.errors);
                    failed.count(&mut rec.step_errors);
                    rec.second_errors += 1;
                    report::tell(&mut rec.said, failed.name(), &said(&ran.outcome));
                    in_a_row += 1;
                    // The server went and every call fails at once: stop
                    // rather than spin.
                    if in_a_row >= 1000 && matches!(code, Some(ErrorCode::ServerNotReady)) {
                        shared.failing.store(true, Ordering::Relaxed);
                        step.stop.cancel();
                        return;
                    }
                }
            }
        }
    }
}

/// What a failed call said: the error, or the text of the tool's error
/// result (its first 300 characters, on one line).
fn said(outcome: &workbench_core::Result<workbench_core::CallOutcome>) -> String {
    let text = match outcome {
        Err(e) => e.to_string(),
        Ok(o) => crate::suite::joined_text(&o.result),
    };
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None if line.is_empty() => "(no text)".into(),
        None => line,
    }
}

/// The target of call `n`: the mix, by weight.
fn pick(plan: &LoadPlan, n: u64) -> usize {
    let total: u32 = plan.targets.iter().map(|t| t.weight.max(1)).sum();
    let mut left = (n % u64::from(total.max(1))) as u32;
    plan.targets
        .iter()
        .position(|t| {
            let w = t.weight.max(1);
            if left < w {
                true
            } else {
                left -= w;
                false
            }
        })
        .unwrap_or(0)
}

/// The run's totals, from every worker's record, over `wall`.
fn totals(report: &mut LoadReport, shared: &Shared, wall: Duration) {
    let mut total = histogram();
    let mut said = Vec::new();
    for w in 0..shared.recs.len() {
        let r = shared.rec(w);
        let _ = total.add(&r.total);
        report.errors.add(&r.errors);
        report.ok += r.ok;
        said.extend(r.said.iter().cloned());
    }
    report.errors_said = report::commonest(said);
    report.calls = report.ok + report.errors.total();
    report.duration_ms = wall.as_secs_f64() * 1000.0;
    report.throughput = report.calls as f64 / wall.as_secs_f64().max(1e-6);
    report.latency = report::latency_of(&total);
    report.histogram = report::buckets_of(&total);
}

/// A line a second through every step, told to `tick` and kept.
struct Seconds {
    ending: CancellationToken,
    task: tokio::task::JoinHandle<Vec<LoadSecond>>,
}

impl Seconds {
    fn start(shared: Arc<Shared>, tick: Tick) -> Seconds {
        let ending = CancellationToken::new();
        let ended = ending.clone();
        let task = tokio::spawn(async move {
            let mut kept = Vec::new();
            let mut at = 0u32;
            let mut every = tokio::time::interval(Duration::from_secs(1));
            every.tick().await;
            let mut since = Instant::now();
            loop {
                let last = tokio::select! {
                    _ = every.tick() => false,
                    _ = ended.cancelled() => true,
                };
                // The run's last part-second is in the totals, not a line.
                if last && since.elapsed() < Duration::from_millis(500) {
                    return kept;
                }
                since = Instant::now();
                at += 1;
                let second = second(&shared, at);
                if !(last && second.calls == 0) {
                    tick(&second);
                    kept.push(second);
                }
                if last {
                    return kept;
                }
            }
        });
        Seconds { ending, task }
    }

    /// The lines told, once the last part-second is in.
    async fn end(self) -> Vec<LoadSecond> {
        self.ending.cancel();
        self.task.await.unwrap_or_default()
    }
}

/// Second `at`'s line: the calls every worker made since the last one.
fn second(shared: &Shared, at: u32) -> LoadSecond {
    let mut merged = histogram();
    let mut errors = 0;
    for w in 0..shared.recs.len() {
        let mut r = shared.rec(w);
        let _ = merged.add(&r.second);
        r.second.reset();
        errors += std::mem::take(&mut r.second_errors);
    }
    let latency = report::latency_of(&merged);
    LoadSecond {
        at,
        concurrency: shared.concurrency.load(Ordering::Relaxed) as u32,
        calls: merged.len() + errors,
        errors,
        p50: latency.p50,
        p99: latency.p99,
    }
}
