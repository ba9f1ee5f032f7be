//! The time the app reports since it was launched.

use std::time::{Duration, Instant};

use mcp_workbench_lib::startup::{mark_run, since_launch};

#[test]
fn the_time_since_launch_counts_from_the_process_start() {
    let marked = Instant::now();
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
    let run = marked.elapsed();
    assert!(
        after + Duration::from_millis(20) >= run,
        "{after:?} < {run:?}"
    );
    assert!(after < Duration::from_secs(3600), "{after:?}");
}
