//! The window's start: servers wait for the gate (the window has painted),
//! then start one after another, not all at once.

use std::time::{Duration, Instant};

use workbench_core::connect::{ServerState, SupervisorOptions};
use workbench_core::traffic::Direction;

use super::*;

#[tokio::test]
async fn servers_wait_for_the_gate_then_start_staggered() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(
        dir.path(),
        &[stdio("a", &[]), stdio("b", &[]), stdio("c", &[])],
    );
    let (gate, held) = tokio::sync::watch::channel(false);
    let mut options = fast();
    options.supervisor = SupervisorOptions {
        start_gate: Some(held),
        ..options.supervisor
    };
    options.stagger = Duration::from_millis(150);
    let wb = Workbench::start(&cfg, options);
    tokio::time::sleep(Duration::from_millis(400)).await;
    // Held: nothing spawned, nothing said.
    assert!(wb.traffic().entries(None).is_empty());
    assert!(
        wb.statuses()
            .iter()
            .all(|s| matches!(s.state, ServerState::Starting { .. }))
    );
    let opened = Instant::now();
    gate.send_replace(true);
    for n in ["a", "b", "c"] {
        ready(&wb, n).await;
    }
    // Each one's first message came at its place in the line.
    let first = |server: &str| {
        wb.traffic()
            .entries(Some(server))
            .iter()
            .find(|e| e.direction == Direction::Outgoing)
            .map(|e| e.seq)
            .unwrap()
    };
    assert!(first("a") < first("b") && first("b") < first("c"));
    assert!(
        opened.elapsed() >= Duration::from_millis(300),
        "c waited two steps"
    );
    wb.shutdown().await;
}
