//! What the History and the tapped sessions take, as the store keeps it
//! (checked against their rows added up), and pruning to the cap.

use serde_json::json;

use super::opening::older_store;
use super::*;

#[test]
fn pruning_drops_the_oldest_first_and_never_saved_or_chat_calls() {
    let store = Store::in_memory().unwrap();
    let big = "x".repeat(10_000);
    let calls: Vec<NewCall> = (0..10)
        .map(|i| manual("demo", "echo", json!({"i": i, "pad": big}), CallStatus::Ok))
        .collect();
    let ids = store.insert_calls(&calls).unwrap();
    let first = store.call(ids[0]).unwrap().unwrap().key;
    assert!(store.set_call_saved(&first, true).unwrap());
    let (count, bytes) = store.calls_size().unwrap();
    assert_eq!(count, 10);
    // Room for about four calls.
    let cap = bytes * 4 / 10;
    let pruned = store.prune_calls(cap).unwrap();
    assert!(pruned.dropped >= 6, "{pruned:?}");
    assert_eq!(pruned.kept_bytes, store.calls_size().unwrap().1);
    let left: Vec<i64> = store
        .history(&HistoryQuery::default())
        .unwrap()
        .iter()
        .map(|c| c.id)
        .collect();
    assert!(left.contains(&ids[0]), "the saved call stays: {left:?}");
    assert!(left.contains(&ids[9]), "the newest stays: {left:?}");
    assert!(!left.contains(&ids[1]), "the oldest unsaved goes: {left:?}");
    assert!(store.calls_size().unwrap().1 <= cap);
    assert_eq!(store.prune_calls(cap).unwrap().dropped, 0);
}

/// The size the store keeps, against the calls' own sizes added up.
fn size_as_counted(store: &Store) -> ((i64, i64), (i64, i64)) {
    let counted = store
        .lock()
        .query_row(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM calls",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    (store.calls_size().unwrap(), counted)
}

#[test]
fn the_historys_size_follows_every_call_added_saved_pruned_or_dropped_with_its_chat() {
    let store = Store::in_memory().unwrap();
    let chat = store.create_session(new("Chat")).unwrap();
    let pad = "y".repeat(3_000);
    let mut calls: Vec<NewCall> = (0..6)
        .map(|i| manual("demo", "echo", json!({"i": i, "pad": pad}), CallStatus::Ok))
        .collect();
    calls[5].session = Some(chat.id.clone());
    let ids = store.insert_calls(&calls).unwrap();
    let (kept, counted) = size_as_counted(&store);
    assert_eq!(kept, counted);
    assert_eq!(kept.0, 6);
    assert!(kept.1 > 6 * 3_000, "{kept:?}");
    // Saved and unsaved again: the size stays.
    let key = store.call(ids[0]).unwrap().unwrap().key;
    store.set_call_saved(&key, true).unwrap();
    store.set_call_saved(&key, false).unwrap();
    assert_eq!(store.calls_size().unwrap(), kept);
    // Pruned: what is left is what the store says it keeps.
    let pruned = store.prune_calls(kept.1 / 2).unwrap();
    assert!(pruned.dropped > 0, "{pruned:?}");
    let (kept, counted) = size_as_counted(&store);
    assert_eq!(kept, counted);
    assert_eq!(pruned.kept_bytes, kept.1);
    // The chat goes, and its call with it.
    store.delete_session(&chat.id).unwrap();
    let (kept, counted) = size_as_counted(&store);
    assert_eq!(kept, counted);
    assert!(store.session_calls(&chat.id).unwrap().is_empty());
    // Emptied.
    assert_eq!(store.prune_calls(0).unwrap().kept_bytes, 0);
    assert_eq!(size_as_counted(&store), ((0, 0), (0, 0)));
}

#[test]
fn pruning_reads_sizes_from_their_index_and_the_size_is_one_row() {
    let store = Store::in_memory().unwrap();
    let conn = store.lock();
    let plan = |sql: &str| -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt.query_map([], |r| r.get::<_, String>(3)).unwrap();
        rows.map(Result::unwrap).collect::<Vec<_>>().join("; ")
    };
    let prunable = plan(crate::calls::PRUNABLE);
    assert!(
        prunable.contains("COVERING INDEX calls_prunable"),
        "{prunable}"
    );
    let size = plan("SELECT rows, bytes FROM calls_kept");
    assert!(!size.contains("calls "), "{size}");
}

#[test]
fn a_history_kept_by_an_older_build_gets_its_size_counted_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = {
        let (path, conn) = older_store(dir.path());
        for (i, size) in [(1, 500), (2, 700)] {
            conn.execute(
                "INSERT INTO calls (origin, server, tool, arguments, status, started_at, size)
                 VALUES ('window', 'demo', 'echo', '{}', 'ok', ?1, ?2)",
                [i, size],
            )
            .unwrap();
        }
        path
    };
    let store = Store::open(&path).unwrap();
    assert_eq!(store.calls_size().unwrap(), (2, 1_200));
    let (kept, counted) = size_as_counted(&store);
    assert_eq!(kept, counted);
}

/// The tapped sessions' size as the store keeps it (all, `id`'s) and as
/// their messages' texts add up.
fn taps_as_counted(store: &Store, id: i64) -> ((i64, i64), (i64, i64)) {
    let sum = |filter: &str| -> i64 {
        store
            .lock()
            .query_row(
                &format!(
                    "SELECT COALESCE(SUM(length(CAST(text AS BLOB))), 0) FROM tap_messages {filter}"
                ),
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    (
        store.taps_size(id).unwrap(),
        (sum(""), sum(&format!("WHERE tap_id = {id}"))),
    )
}

fn tap_message(seq: i64, text: &str) -> crate::TapMessage {
    crate::TapMessage {
        seq,
        at_ms: seq,
        direction: "host".into(),
        size: text.len() as i64,
        text: text.into(),
        cut: false,
    }
}

#[test]
fn the_tapped_sessions_size_follows_their_messages_kept_again_and_dropped() {
    let dir = tempfile::tempdir().unwrap();
    // An older build's store with a session in it.
    let path = {
        let (path, conn) = older_store(dir.path());
        conn.execute(
            "INSERT INTO taps (id, started_at, server, command) VALUES (1, 0, 'demo', 'demo')",
            [],
        )
        .unwrap();
        conn.execute(
            "INSERT INTO tap_messages (tap_id, seq, at_ms, direction, size, text) \
             VALUES (1, 0, 0, 'host', 5, 'héllo')",
            [],
        )
        .unwrap();
        path
    };
    let store = Store::open(&path).unwrap();
    let (kept, counted) = taps_as_counted(&store, 1);
    assert_eq!(kept, counted);
    assert_eq!(kept, (6, 6), "bytes, not characters");
    store.end_tap(1, 1, 0).unwrap();
    let two = store.create_tap("demo", "demo", 2).unwrap();
    store
        .append_tap_messages(two, &[tap_message(0, "abc"), tap_message(1, "defg")])
        .unwrap();
    // The same message kept again: counted once, as its last text.
    store
        .append_tap_messages(two, &[tap_message(1, "longer text")])
        .unwrap();
    let (kept, counted) = taps_as_counted(&store, two);
    assert_eq!(kept, counted);
    assert_eq!(kept, (6 + 3 + 11, 3 + 11));
    // Pruned to what the live session takes: the ended one goes.
    let (gone, now) = store.prune_taps(14, Some(two)).unwrap();
    assert_eq!((gone, now), (vec![1], 14));
    let (kept, counted) = taps_as_counted(&store, two);
    assert_eq!(kept, counted);
    assert!(store.delete_tap(two).unwrap());
    assert_eq!(taps_as_counted(&store, two), ((0, 0), (0, 0)));
}

#[test]
fn every_stored_text_counts_against_the_cap() {
    let bare = crate::calls::NewCall {
        arguments: "{}".into(),
        ..Default::default()
    };
    let loaded = crate::calls::NewCall {
        arguments: "{}".into(),
        schema_violations: vec!["x".repeat(10_000); 5],
        task: Some("t".repeat(3_000)),
        ..Default::default()
    };
    assert!(loaded.size() >= bare.size() + 53_000, "{}", loaded.size());
}

/// Process `pid`, started at `started`.
fn at(pid: u32, started: i64) -> crate::Process {
    crate::Process {
        pid,
        started: Some(started),
    }
}

/// A call kept as running, then its end: one row, the same id, its size
/// counted once; a running row never replaces an ended one; a process gone
/// leaves its running calls interrupted.
#[test]
fn a_running_call_is_replaced_by_its_end_and_one_left_by_a_gone_process_is_interrupted() {
    let store = Store::in_memory().unwrap();
    let mut running = manual("demo", "slow", json!({"steps": 50}), CallStatus::Pending);
    running.result = None;
    running.duration_ms = None;
    running.key = Some("k-1".into());
    let [id] = store.keep_running(&[running.clone()], at(4242, 1)).unwrap()[..] else {
        panic!("one row");
    };
    assert_eq!(store.call(id).unwrap().unwrap().status, CallStatus::Pending);
    let mut ended = manual("demo", "slow", json!({"steps": 50}), CallStatus::Ok);
    ended.key = Some("k-1".into());
    ended.replaces_running = true;
    assert_eq!(store.insert_calls(&[ended]).unwrap(), [id]);
    let row = store.call(id).unwrap().unwrap();
    assert_eq!(row.status, CallStatus::Ok);
    assert!(row.result.is_some());
    let (kept, counted) = size_as_counted(&store);
    assert_eq!(kept, counted);
    assert_eq!(kept.0, 1);
    // Behind its end, the running row changes nothing.
    assert_eq!(store.keep_running(&[running], at(4242, 1)).unwrap(), [id]);
    assert_eq!(store.call(id).unwrap().unwrap().status, CallStatus::Ok);

    // Two left running: one by a live process, one by a gone one.
    let left = |key: &str, pid| {
        let mut c = manual("demo", "slow", json!({"key": key}), CallStatus::Pending);
        c.result = None;
        c.key = Some(key.into());
        store.keep_running(&[c], pid).unwrap()[0]
    };
    let before = store.calls_version().unwrap();
    let (alive, gone) = (left("k-2", at(1, 100)), left("k-3", at(999_999, 5)));
    let two_running = store.calls_version().unwrap();
    assert_eq!(two_running.1, 2);
    assert_ne!(two_running, before, "a call kept running moves the version");
    assert_eq!(store.interrupted(|p| p == at(1, 100)).unwrap(), 1);
    assert_eq!(
        store.calls_version().unwrap(),
        (two_running.0, 1),
        "one marked interrupted moves it"
    );
    assert_eq!(
        store.interrupted(|_| true).unwrap(),
        0,
        "all alive: nothing"
    );
    assert_eq!(
        store.call(alive).unwrap().unwrap().status,
        CallStatus::Pending
    );
    let row = store.call(gone).unwrap().unwrap();
    assert_eq!(row.status, CallStatus::Failed);
    assert!(row.error.unwrap().contains("interrupted"));
    let (kept, counted) = size_as_counted(&store);
    assert_eq!(kept, counted);
    // Its process's id given to another process since (a later start):
    // not the process that made the call.
    assert_eq!(
        store
            .interrupted(|p| p.pid == 1 && p.started == Some(200))
            .unwrap(),
        1,
        "then the other, its id taken by a later process"
    );
    assert_eq!(store.calls_version().unwrap(), (two_running.0, 0));

    // Found interrupted, then its end comes after all (its process was out
    // of sight, not gone): the end lands in the same row, once.
    let mut late = manual("demo", "slow", json!({"key": "k-3"}), CallStatus::Ok);
    late.key = Some("k-3".into());
    late.replaces_running = true;
    assert_eq!(store.insert_calls(&[late.clone()]).unwrap(), [gone]);
    let row = store.call(gone).unwrap().unwrap();
    assert_eq!(row.status, CallStatus::Ok);
    assert_eq!(row.error, None);
    let (kept, counted) = size_as_counted(&store);
    assert_eq!(kept, counted);
    // A second end changes nothing.
    late.status = Some(CallStatus::Failed);
    store.insert_calls(&[late]).unwrap();
    assert_eq!(store.call(gone).unwrap().unwrap().status, CallStatus::Ok);
}
