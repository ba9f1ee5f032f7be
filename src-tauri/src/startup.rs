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

/// The environment a window without a GPU starts in: GTK's and WebKit's GL
/// would run on the CPU there (Mesa's llvmpipe), and loading and compiling
/// it took ~0.3 s of the window's start on two cores and ~100 MiB of
/// WebKit's memory (`cargo xtask bench`). Without a DRM render node (or with
/// `LIBGL_ALWAYS_SOFTWARE=1`) GTK is told to leave GL alone and WebKit to
/// paint on the CPU, unless the person set either themselves (`GDK_GL=`
/// keeps GTK's GL); with a GPU nothing changes.
pub fn cpu_rendering_env(
    has_render_node: bool,
    env: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<(&'static str, &'static str)> {
    const CPU: [(&str, &str); 2] = [
        ("GDK_GL", "disable"),
        ("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1"),
    ];
    let software = env("LIBGL_ALWAYS_SOFTWARE").is_some_and(|v| v == "1" || v == "true");
    let chosen = CPU.iter().any(|(key, _)| env(key).is_some());
    if (has_render_node && !software) || chosen {
        return Vec::new();
    }
    CPU.to_vec()
}

/// Marks the app started again with the CPU rendering it chose (so the
/// servers it starts do not inherit that choice, and it is not made twice).
const CHOSEN: &str = "MCPWB_CPU_RENDERING";

/// Apply [`cpu_rendering_env`]: first thing in `run`, before GTK starts.
/// GTK and WebKit read these only from the environment as they start, and
/// writing our own environment is not safe once threads may read it: the
/// app starts again in place (an exec: the same process, its launch time
/// kept, so the start measured includes it) with them set. Returns what
/// was set (logged once logging is up; kept from the servers); empty with
/// a GPU, when the person chose, or when the exec failed (then it carries
/// on with GL, as before).
pub fn prefer_cpu_rendering_without_gpu() -> Vec<(&'static str, &'static str)> {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(CHOSEN).is_some() {
        let mut set = cpu_rendering_env(false, |_| None);
        set.push((CHOSEN, "1"));
        return set;
    }
    let render_node = std::fs::read_dir("/dev/dri").is_ok_and(|dir| {
        dir.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    });
    let set = cpu_rendering_env(render_node, |k| std::env::var_os(k));
    if set.is_empty() {
        return set;
    }
    let Ok(me) = std::env::current_exe() else {
        return Vec::new();
    };
    // Returns only when it failed.
    let failed = std::process::Command::new(me)
        .args(std::env::args_os().skip(1))
        .envs(set.iter().copied())
        .env(CHOSEN, "1")
        .exec();
    eprintln!(
        "mcp-workbench: rendering on the GPU's path: could not start again with CPU rendering ({failed})"
    );
    Vec::new()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_gpu_gl_is_left_alone_unless_the_person_chose() {
        let none = |_: &str| None;
        assert!(cpu_rendering_env(true, none).is_empty());
        assert_eq!(
            cpu_rendering_env(false, none),
            [
                ("GDK_GL", "disable"),
                ("WEBKIT_SKIA_ENABLE_CPU_RENDERING", "1")
            ]
        );
        let software = |k: &str| (k == "LIBGL_ALWAYS_SOFTWARE").then(|| "1".into());
        assert_eq!(cpu_rendering_env(true, software).len(), 2);
        for key in ["GDK_GL", "WEBKIT_SKIA_ENABLE_CPU_RENDERING"] {
            let chosen = |k: &str| (k == key).then(|| "".into());
            assert!(cpu_rendering_env(false, chosen).is_empty(), "{key} set");
        }
    }

    #[test]
    fn the_time_since_launch_counts_from_the_process_start() {
        mark_run();
        let before = since_launch();
        std::thread::sleep(Duration::from_millis(150));
        let after = since_launch();
        // /proc counts in hundredths: 150 ms later reads at least 120 ms more.
        assert!(
            after >= before + Duration::from_millis(120),
            "{before:?} then {after:?}"
        );
        // And never less than the time since `run` (the process began before it).
        let run = RUN.get().unwrap().elapsed();
        assert!(
            after + Duration::from_millis(20) >= run,
            "{after:?} < {run:?}"
        );
        assert!(after < Duration::from_secs(3600), "{after:?}");
    }
}
