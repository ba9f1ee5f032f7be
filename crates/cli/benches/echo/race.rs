//! Paths to one server raced batch by batch: going straight, a bare relay
//! (the floor of any hop, [`super::relay`]) and a path of ours. Each batch
//! runs every path in turn, the order rotating, so drift in the machine's
//! load falls on all; each figure is a median of the per-batch ratios.

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::{ClientLifecycleMode, serve_client_with_lifecycle};
use rmcp::transport::TokioChildProcess;

use super::calls::{Client, batch};

/// A client and the process in the middle of its path, if any.
pub type Via = (Client, Option<u32>);

/// A client of `command` over stdio (its stderr not shown), in `mode`'s
/// era, with the command's process id.
pub async fn over_stdio(mut command: tokio::process::Command, mode: &ClientLifecycleMode) -> Via {
    command.stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(command).unwrap();
    let pid = transport.id();
    let client = serve_client_with_lifecycle((), transport, mode.clone())
        .await
        .unwrap();
    (client, pid)
}

/// One way to the server: its name, its client, the echo tool's name on
/// it, and the process in the middle (a relay, the tap, the bridge) whose
/// CPU time per call is printed.
pub struct Path {
    pub name: &'static str,
    pub client: Arc<Client>,
    pub tool: &'static str,
    pub pid: Option<u32>,
}

/// The CPU time `pid` has had (user and system), in clock ticks.
fn cpu_ticks(pid: Option<u32>) -> u64 {
    let Some(stat) = pid.and_then(|p| std::fs::read_to_string(format!("/proc/{p}/stat")).ok())
    else {
        return 0;
    };
    // The fields after the command's `(name)`: utime and stime are the
    // 12th and 13th.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    tick(11) + tick(12)
}

/// A clock tick in microseconds (Linux's USER_HZ).
const TICK_US: f64 = 10_000.0;

const BATCHES: usize = 10;

fn message(i: usize) -> String {
    format!("m{i}")
}

/// Race `paths` (the first is going straight, the second the bare relay,
/// the last ours), sequentially (`seq` calls a batch) and 64 in flight
/// (`conc`); print calls per second, each path's ratio to going straight
/// and ours to the relay, beside `target` (ours to going straight).
pub async fn race(label: &str, paths: &[Path], (seq, conc): (usize, usize), target: f64) {
    for p in paths {
        for i in 0..100 {
            super::calls::echo(&p.client, p.tool, message, i).await;
        }
    }
    for (mode, concurrent) in [("sequential", false), ("64 in flight", true)] {
        let n = if concurrent { conc } else { seq };
        let mut total = vec![Duration::ZERO; paths.len()];
        let mut ratios = vec![Vec::new(); paths.len()];
        let mut of_relay = Vec::new();
        let cpu_before: Vec<u64> = paths.iter().map(|p| cpu_ticks(p.pid)).collect();
        for b in 0..BATCHES {
            let mut took = vec![Duration::ZERO; paths.len()];
            for k in 0..paths.len() {
                let at = (b + k) % paths.len();
                let p = &paths[at];
                took[at] = batch(&p.client, p.tool, message, n, concurrent).await;
            }
            for (at, t) in took.iter().enumerate() {
                total[at] += *t;
                ratios[at].push(took[0].as_secs_f64() / t.as_secs_f64());
            }
            let ours = took[paths.len() - 1].as_secs_f64();
            of_relay.push(took[1].as_secs_f64() / ours);
        }
        let calls = (BATCHES * n) as f64;
        let cpu: Vec<String> = paths
            .iter()
            .zip(&cpu_before)
            .filter(|(p, _)| p.pid.is_some())
            .map(|(p, before)| {
                let us = (cpu_ticks(p.pid) - before) as f64 * TICK_US / calls;
                format!("{} {us:.0}", p.name)
            })
            .collect();
        let mut line = format!("{label:<10} {mode:<13}");
        let mut ours = 0.0;
        for (at, p) in paths.iter().enumerate() {
            let rate = calls / total[at].as_secs_f64();
            ours = median(std::mem::take(&mut ratios[at]));
            if at == 0 {
                line += &format!(" {} {rate:>6.0}/s", p.name);
            } else {
                line += &format!(" | {} {rate:>6.0}/s ({ours:.2})", p.name);
            }
        }
        println!(
            "{line} | ours/relay {:.2} | target {target}: {}",
            median(of_relay),
            if ours >= target { "met" } else { "not met" }
        );
        println!("{:<24} CPU µs a call: {}", "", cpu.join(", "));
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
