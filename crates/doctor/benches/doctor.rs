//! The doctor's and the reload loop's costs, printed (nothing asserted):
//! - the doctor (no probe) on a 500-tool server once it is ready, against
//!   one `tools/list` of the same server in the same run (the baseline), and
//!   against the 1 s target;
//! - a save to a watched file until the server is back with its lists read,
//!   against a plain restart of the same server until the same point (the
//!   server's own start-up): the target is under 1 s more.
//!
//! `cargo xtask bench`.

use std::time::{Duration, Instant};

use serde_json::json;
use workbench_calls::{Calls, CallsOptions};
use workbench_core::events::Event;
use workbench_core::settings::SettingsFile;
use workbench_core::{CallOptions, ConfigFile, Workbench, WorkbenchOptions};

const RUNS: usize = 10;

async fn listed(wb: &Workbench, server: &str, mut events: tokio::sync::broadcast::Receiver<Event>) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(Event::CatalogChanged { server: s })) if s == server => {
                if wb.catalog().server(server).is_some_and(|c| !c.stale) {
                    return;
                }
            }
            Ok(_) => {}
            Err(_) => panic!("{server} was not listed again within 30 s"),
        }
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let demo = workbench_testkit::demo_server_path();
    let watched = dir.path().join("src.txt");
    std::fs::write(&watched, "0").unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        json!({ "mcpServers": {
            "big": { "command": demo, "args": ["--name", "big", "--tool-count", "500"] },
            "dev": { "command": demo, "args": ["--name", "dev"], "dev": { "watch": "*.txt" } }
        } })
        .to_string(),
    )
    .unwrap();
    let wb = Workbench::start(
        &ConfigFile::load(&path).unwrap(),
        WorkbenchOptions::default(),
    );
    wb.settle(Duration::from_secs(30)).await;
    while wb.catalog().server("big").is_none() || wb.catalog().server("dev").is_none() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let calls = Calls::new(
        wb.clone(),
        workbench_core::ToolCaller::for_tests(),
        CallsOptions {
            settings: SettingsFile::new(dir.path().join("settings.json")),
            store: None,
        },
    );
    // The doctor against one tools/list, taking turns.
    let (mut doctor, mut list) = (Vec::new(), Vec::new());
    let mut tools = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        wb.request("big", "tools/list", json!({}), CallOptions::default())
            .await
            .unwrap();
        list.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let report = workbench_doctor::examine(&calls, "big", workbench_doctor::Options::default())
            .await
            .unwrap();
        doctor.push(t.elapsed().as_secs_f64() * 1000.0);
        tools = report.tokens.tools.len();
    }
    let (d, l) = (median(doctor), median(list));
    println!(
        "doctor on {tools} tools: {d:.0} ms (median of {RUNS}); one tools/list {l:.1} ms; ratio {:.1}; target 1000 ms: {:.2} of it",
        d / l,
        d / 1000.0
    );
    // A save against a plain restart, taking turns.
    let _watch = wb.watch_dev();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let handle = wb.server("dev").unwrap();
    let (mut reload, mut restart) = (Vec::new(), Vec::new());
    for i in 0..RUNS {
        let events = wb.subscribe();
        let t = Instant::now();
        handle.restart().await.unwrap();
        listed(&wb, "dev", events).await;
        restart.push(t.elapsed().as_secs_f64() * 1000.0);
        let events = wb.subscribe();
        let t = Instant::now();
        std::fs::write(&watched, i.to_string()).unwrap();
        listed(&wb, "dev", events).await;
        reload.push(t.elapsed().as_secs_f64() * 1000.0);
        // The burst window closes before the next turn.
        tokio::time::sleep(workbench_core::workbench::dev_settle() * 2).await;
    }
    let (r, s) = (median(reload), median(restart));
    println!(
        "save to listed again: {r:.0} ms (median of {RUNS}); plain restart {s:.0} ms; the reload adds {:.0} ms (target < 1000; {:.0} of it the burst window)",
        r - s,
        workbench_core::workbench::dev_settle().as_secs_f64() * 1000.0
    );
    wb.shutdown().await;
}
