//! The one call path's costs, printed (asserts nothing; `cargo xtask bench`):
//!
//! - echo calls per second through `Calls::run` with the history on (a
//!   store file in WAL mode, as the app has it) against the core's
//!   `call_tool` with nothing kept, on one demo server over stdio. The two
//!   take turns batch by batch, the order flipping each time, so the
//!   machine's drift falls on both alike. Target: >= 0.95x.
//! - a call by hand answered with its History row's key (made before the
//!   call) against the same call waiting for its row's id, as the window's
//!   Run did before keys (the writer hurried, the insert awaited).
//! - the history at 100,000 kept calls: opening the History view (the
//!   newest 300) and a search in arguments and results. Targets: < 300 ms
//!   and < 100 ms.

use std::time::{Duration, Instant};

use serde_json::json;
use workbench_calls::{ApproveMode, Asking, Call, Calls, CallsOptions, Link, Origin};
use workbench_core::settings::SettingsFile;
use workbench_core::testing::RawCalls;
use workbench_core::{CallOptions, Workbench};
use workbench_store::{CallStatus, HistoryQuery, NewCall, Store};

const BIN: &str = env!("CARGO_BIN_EXE_mcp-demo-server");

#[path = "../support/one_demo.rs"]
mod one_demo;

// Short turns, many of them: the machine's drift (two cores shared with
// the server's process) falls on both sides alike.
const BATCHES: usize = 400;
const BATCH: usize = 10;
const IN_FLIGHT: usize = 64;
const CONC_BATCHES: usize = 160;
const CONC_BATCH: usize = 64;

fn args(i: usize) -> serde_json::Value {
    json!({ "message": format!("m{i}") })
}

async fn direct(wb: &Workbench, n: usize, concurrent: bool) -> Duration {
    let started = Instant::now();
    if concurrent {
        let mut left = n;
        while left > 0 {
            let k = left.min(IN_FLIGHT);
            let calls =
                (0..k).map(|i| wb.call_tool("demo", "echo", args(i), CallOptions::default()));
            for r in futures::future::join_all(calls).await {
                r.unwrap();
            }
            left -= k;
        }
    } else {
        for i in 0..n {
            wb.call_tool("demo", "echo", args(i), CallOptions::default())
                .await
                .unwrap();
        }
    }
    started.elapsed()
}

async fn through(calls: &Calls, n: usize, concurrent: bool) -> Duration {
    // As the bridge calls: with the tool's definition in hand.
    let definition = calls.workbench().catalog().tool("demo", "echo").unwrap();
    let one = |i: usize| {
        // As the bridge serving with --approve all: the rules' verdict, and
        // the consent it gives, for each call.
        let (_, consent) = calls.verdict_for(&Asking {
            server: "demo",
            tool: "echo",
            definition: &definition,
            mode: ApproveMode::All,
            chat_allowed: None,
        });
        calls.run(Call {
            consent,
            origin: Origin::Bridge,
            server: "demo",
            tool: "echo",
            arguments: args(i),
            definition: Some(&definition),
            link: Link::default(),
            options: CallOptions::default(),
        })
    };
    let started = Instant::now();
    if concurrent {
        let mut left = n;
        while left > 0 {
            let k = left.min(IN_FLIGHT);
            for r in futures::future::join_all((0..k).map(one)).await {
                r.outcome.unwrap();
            }
            left -= k;
        }
    } else {
        for i in 0..n {
            one(i).await.outcome.unwrap();
        }
    }
    started.elapsed()
}

async fn rates(wb: &Workbench, calls: &Calls, concurrent: bool) -> (f64, f64) {
    let (batches, n) = if concurrent {
        (CONC_BATCHES, CONC_BATCH)
    } else {
        (BATCHES, BATCH)
    };
    let (mut d, mut c) = (Duration::ZERO, Duration::ZERO);
    for b in 0..batches {
        if b % 2 == 0 {
            d += direct(wb, n, concurrent).await;
            c += through(calls, n, concurrent).await;
        } else {
            c += through(calls, n, concurrent).await;
            d += direct(wb, n, concurrent).await;
        }
    }
    let total = (batches * n) as f64;
    (total / d.as_secs_f64(), total / c.as_secs_f64())
}

/// `n` calls as the window's Run makes them, each answered with its row's
/// key, or (`wait_for_row`) only once its row is written and its id known.
async fn by_hand(calls: &Calls, n: usize, wait_for_row: bool) -> Duration {
    let started = Instant::now();
    for i in 0..n {
        let mut ran = calls
            .run(Call {
                consent: None,
                origin: Origin::Window,
                server: "demo",
                tool: "echo",
                arguments: args(i),
                definition: None,
                link: Link::default(),
                options: CallOptions::default(),
            })
            .await;
        if wait_for_row {
            assert!(ran.record_id().await.is_some());
        } else {
            assert!(ran.key.is_some());
        }
        ran.outcome.unwrap();
    }
    started.elapsed()
}

fn median_ms(mut f: impl FnMut() -> usize, runs: usize) -> (f64, usize) {
    let mut times = Vec::new();
    let mut found = 0;
    for _ in 0..runs {
        let started = Instant::now();
        found = f();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], found)
}

fn history_at_scale(dir: &std::path::Path) {
    let store = Store::open(&dir.join("scale.sqlite3")).unwrap();
    let servers = ["github", "filesystem", "demo", "memory", "time"];
    let tools = [
        "search",
        "read_file",
        "echo",
        "create_issue",
        "list",
        "get_time",
    ];
    let started = Instant::now();
    let mut batch = Vec::with_capacity(1000);
    let call = |i: usize| {
        NewCall {
            origin: ["window", "chat", "bridge", "cli", "suite"][i % 5].into(),
            call_id: String::new(),
            server: servers[i % servers.len()].into(),
            tool: tools[(i / 7) % tools.len()].into(),
            arguments: json!({ "query": format!("item {i} of the corpus"), "limit": i % 50, "path": format!("/src/module_{}/file_{i}.rs", i % 97) }).to_string(),
            result: Some(json!({ "content": [{ "type": "text", "text": format!("result {i}: {}", "lorem ipsum dolor sit amet ".repeat(8)) }], "structuredContent": { "count": i % 13, "id": i } }).to_string()),
            status: Some(if i.is_multiple_of(17) { CallStatus::Error } else { CallStatus::Ok }),
            duration_ms: Some((i % 300) as f64),
            started_at: 1_700_000_000_000 + i as i64,
            protocol: Some("2025-11-25".into()),
            traffic: Some((i as u64 * 2, i as u64 * 2 + 2)),
            ..Default::default()
        }
    };
    for i in 0..100_000usize {
        batch.push(call(i));
        if batch.len() == 1000 {
            store.insert_calls(&batch).unwrap();
            batch.clear();
        }
    }
    let (count, bytes) = store.calls_size().unwrap();
    println!(
        "history: {count} calls kept ({:.0} MiB) in {:.1} s",
        bytes as f64 / 1048576.0,
        started.elapsed().as_secs_f64()
    );
    let (open, n) = median_ms(
        || {
            store
                .history(&HistoryQuery {
                    limit: 300,
                    ..Default::default()
                })
                .unwrap()
                .len()
        },
        7,
    );
    println!(
        "  History opens (the newest 300 of all): {open:.1} ms median of 7, {n} rows (target < 300 ms)"
    );
    let (filtered, n) = median_ms(
        || {
            store
                .history(&HistoryQuery {
                    server: Some("github".into()),
                    tool: Some("search".into()),
                    limit: 300,
                    ..Default::default()
                })
                .unwrap()
                .len()
        },
        7,
    );
    println!("  one server's tool (server and tool filters): {filtered:.1} ms, {n} rows");
    let (search, n) = median_ms(
        || {
            store
                .history(&HistoryQuery {
                    search: Some("file_99999.rs".into()),
                    limit: 300,
                    ..Default::default()
                })
                .unwrap()
                .len()
        },
        7,
    );
    println!(
        "  a search in arguments and results that matches one call: {search:.1} ms median of 7, {n} found (target < 100 ms)"
    );
    let (common, n) = median_ms(
        || {
            store
                .history(&HistoryQuery {
                    search: Some("corpus".into()),
                    limit: 300,
                    ..Default::default()
                })
                .unwrap()
                .len()
        },
        7,
    );
    println!("  a search that matches every call (first 300): {common:.1} ms, {n} found");
    // At the cap, every batch the writer keeps is followed by a pruning of
    // as much (the writer's 20 ms batch under a steady flood of calls).
    let cap = bytes;
    let mut times = Vec::new();
    let mut dropped = 0;
    for b in 0..20usize {
        let rows: Vec<NewCall> = (0..70).map(|i| call(100_000 + b * 70 + i)).collect();
        store.insert_calls(&rows).unwrap();
        let started = Instant::now();
        dropped += store.prune_calls(cap).unwrap().dropped;
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let (size, _) = median_ms(|| store.calls_size().unwrap().0 as usize, 7);
    println!(
        "  at the cap: pruning after each batch of 70 calls {:.2} ms median of 20 ({dropped} dropped); the History's size read {:.3} ms",
        times[10], size
    );
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let (wb, _) = one_demo::one_demo(BIN, dir.path()).await;
    let calls = Calls::new(
        wb.clone(),
        workbench_core::ToolCaller::for_tests(),
        CallsOptions {
            settings: SettingsFile::new(dir.path().join("settings.json")),
            store: (std::env::var_os("BENCH_NO_HISTORY").is_none())
                .then(|| Store::open(&dir.path().join("history.sqlite3")).unwrap()),
        },
    );
    // Warm both paths.
    direct(&wb, 200, false).await;
    through(&calls, 200, false).await;
    println!(
        "echo over stdio, calls per second: the core alone vs the one call path with the history on (turns taken)"
    );
    for (label, concurrent) in [("sequential", false), ("64 in flight", true)] {
        let (d, c) = rates(&wb, &calls, concurrent).await;
        println!(
            "  {label:<14} core {d:>8.0}/s   call path{} {c:>8.0}/s   ratio {:.3} (target >= 0.95)",
            if calls.store().is_some() {
                " + history"
            } else {
                " (no history)"
            },
            c / d
        );
    }
    if calls.store().is_some() {
        let (mut keyed, mut waited) = (Duration::ZERO, Duration::ZERO);
        let n = BATCHES * BATCH / 4;
        for b in 0..BATCHES / 4 {
            if b % 2 == 0 {
                keyed += by_hand(&calls, BATCH, false).await;
                waited += by_hand(&calls, BATCH, true).await;
            } else {
                waited += by_hand(&calls, BATCH, true).await;
                keyed += by_hand(&calls, BATCH, false).await;
            }
        }
        let ms = |d: Duration| d.as_secs_f64() * 1000.0 / n as f64;
        println!(
            "  a call by hand: answered with its row's key {:.3} ms, waiting for its row's id {:.3} ms ({:.2}x faster, {n} calls each)",
            ms(keyed),
            ms(waited),
            ms(waited) / ms(keyed)
        );
    }
    calls.flush().await;
    let kept = calls.store().map_or(0, |s| s.calls_size().unwrap().0);
    println!("  ({kept} calls written to the history meanwhile)");
    wb.shutdown().await;
    history_at_scale(dir.path());
}
