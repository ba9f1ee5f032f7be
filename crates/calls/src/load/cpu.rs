//! CPU time from /proc: the client's own (every thread), and a stdio
//! server's (its process group's leader), so a load run can say whose CPU
//! was the limit.

use std::time::Duration;

/// Clock ticks a second (`sysconf(_SC_CLK_TCK)`: 100 on Linux).
const TICKS: f64 = 100.0;

/// utime + stime of `/proc/PID/stat`, in seconds.
fn read(path: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    // The command name may hold spaces: the fields follow its last ')'.
    let rest = &text[text.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // State is field 3; utime and stime are fields 14 and 15.
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / TICKS)
}

pub(super) fn own() -> Option<f64> {
    read("/proc/self/stat")
}

pub(super) fn of(pid: u32) -> Option<f64> {
    read(&format!("/proc/{pid}/stat"))
}

/// CPU seconds spent between two readings over `wall`, as a share of one core.
pub(super) fn share(before: Option<f64>, after: Option<f64>, wall: Duration) -> f64 {
    match (before, after) {
        (Some(b), Some(a)) => ((a - b) / wall.as_secs_f64().max(1e-6)).max(0.0),
        _ => 0.0,
    }
}

/// What the CPU figures say about the run.
pub(super) fn warnings(client: f64, server: Option<f64>) -> Vec<String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    let mut out = Vec::new();
    let busy = client >= 0.9 || client >= 0.8 * cores;
    if busy && server.is_none_or(|s| client >= s) {
        out.push(format!(
            "the client used {:.0}% of a core{}: it may be the limit, not the server (fewer workers, a --rate, or run the client on another machine)",
            client * 100.0,
            server.map(|s| format!(" against the server's {:.0}%", s * 100.0)).unwrap_or_default()
        ));
    }
    if let Some(s) = server
        && client + s > 0.9 * cores
    {
        out.push(format!(
            "client and server together used {:.0}% of this machine's {cores} cores: they compete for CPU",
            (client + s) * 100.0
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_own_cpu_is_read_and_grows_with_work() {
        let before = own().expect("/proc/self/stat");
        let clock = std::time::Instant::now();
        let mut x = 0u64;
        while clock.elapsed() < Duration::from_millis(300) {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let used = share(Some(before), own(), clock.elapsed());
        // Well above an idle process's, whatever else the machine runs.
        assert!(used > 0.1, "a busy loop used {used} of a core");
        assert!(
            warnings(1.0, Some(0.1))
                .iter()
                .any(|w| w.contains("may be the limit"))
        );
        assert!(
            warnings(0.2, Some(0.9))
                .iter()
                .all(|w| !w.contains("may be the limit"))
        );
    }
}
