//! The window's start: the servers wait until the window is interactive (it
//! says so, or 3 s pass), and how long the window took is logged, measured
//! from the process's launch.

use std::sync::Arc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::watch;

/// Opens the servers' first start.
pub struct StartGate(pub Arc<watch::Sender<bool>>);

/// What the window says about its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, specta::Type)]
#[serde(rename_all = "lowercase")]
pub enum WindowStage {
    /// Its first frames are on screen.
    Painted,
    /// The server list is shown and the window answers input at once.
    Interactive,
}

static RUN: OnceLock<Instant> = OnceLock::new();

/// Called first thing in `run`: the fallback origin where /proc cannot tell.
pub fn mark_run() {
    RUN.get_or_init(Instant::now);
}

/// Time since the process was launched (on Linux from /proc, so loading the
/// libraries counts too; elsewhere since `run`).
pub fn since_launch() -> Duration {
    proc_age().unwrap_or_else(|| RUN.get().map(Instant::elapsed).unwrap_or_default())
}

#[cfg(target_os = "linux")]
fn proc_age() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name may hold spaces: count fields after its ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let start_ticks: f64 = rest.split(' ').nth(19)?.parse().ok()?;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")
        .ok()?
        .split(' ')
        .next()?
        .parse()
        .ok()?;
    // /proc counts in USER_HZ, 100 per second on Linux.
    Some(Duration::from_secs_f64(
        (uptime - start_ticks / 100.0).max(0.0),
    ))
}

#[cfg(not(target_os = "linux"))]
fn proc_age() -> Option<Duration> {
    None
}

/// Log how long the app's set-up took (the window is created after it).
pub fn set_up(began: Duration) {
    let (began_ms, ms) = (began.as_millis() as u64, since_launch().as_millis() as u64);
    tracing::info!(
        began_ms,
        ms,
        "set up {ms} ms after launch (began {began_ms} ms after launch)"
    );
}

/// Log a stage (once each) and open the gate when the window is interactive.
/// `page_ms`: how much of it the page itself took (since its navigation
/// began); the rest is the process, GTK and WebKit starting.
pub fn window_stage(gate: &StartGate, stage: WindowStage, page_ms: u32, servers: usize) {
    static SEEN: [OnceLock<()>; 2] = [OnceLock::new(), OnceLock::new()];
    let slot = match stage {
        WindowStage::Painted => 0,
        WindowStage::Interactive => 1,
    };
    if SEEN[slot].set(()).is_err() {
        return;
    }
    let ms = since_launch().as_millis() as u64;
    match stage {
        WindowStage::Painted => {
            tracing::info!(
                ms,
                page_ms,
                servers,
                "window painted {ms} ms after launch ({page_ms} ms in the page)"
            );
        }
        WindowStage::Interactive => {
            tracing::info!(
                ms,
                page_ms,
                servers,
                "window interactive {ms} ms after launch ({page_ms} ms in the page)"
            );
            gate.0.send_replace(true);
        }
    }
}
