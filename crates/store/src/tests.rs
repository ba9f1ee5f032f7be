use serde_json::{Value, json};

use super::*;

fn new(title: &str) -> NewSession {
    NewSession {
        hidden: false,
        title: title.into(),
        provider: "openai".into(),
        model: "gpt-4o".into(),
        system_prompt: "Be brief.".into(),
        options: json!({ "servers": ["demo"] }),
    }
}

#[test]
fn a_session_and_its_messages_survive_reopening_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let store = Store::open_in(dir.path()).unwrap();
        let s = store.create_session(new("First")).unwrap();
        store
            .append_message(
                &s.id,
                "user",
                &json!([{"type": "text", "text": "hi"}]),
                "hi",
                None,
            )
            .unwrap();
        let usage = Usage {
            input: 10,
            output: 4,
            cached: 2,
        };
        store
            .append_message(
                &s.id,
                "assistant",
                &json!([{"type": "text", "text": "hello"}]),
                "hello",
                Some(usage),
            )
            .unwrap();
        s.id
    };
    let store = Store::open_in(dir.path()).unwrap();
    let s = store.session(&id).unwrap();
    assert_eq!(s.title, "First");
    assert_eq!(s.system_prompt, "Be brief.");
    assert_eq!(s.options["servers"], json!(["demo"]));
    assert_eq!(s.message_count, 2);
    assert_eq!(
        s.usage,
        Usage {
            input: 10,
            output: 4,
            cached: 2
        }
    );
    let messages = store.messages(&id).unwrap();
    assert_eq!(messages.iter().map(|m| m.seq).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(messages[1].content[0]["text"], "hello");
    assert_eq!(messages[1].usage.unwrap().output, 4);
}

#[test]
fn the_schema_version_is_recorded_and_migrations_run_once() {
    let dir = tempfile::tempdir().unwrap();
    Store::open_in(dir.path()).unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let version: i64 = store
        .lock()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, migrations::latest());
}

#[test]
fn search_finds_titles_and_message_text_literally() {
    let store = Store::in_memory().unwrap();
    let a = store.create_session(new("Weather in Paris")).unwrap();
    let b = store.create_session(new("Other")).unwrap();
    store
        .append_message(&b.id, "user", &json!([]), "what does 100% mean_here", None)
        .unwrap();
    let titles = |q: &str| -> Vec<String> {
        store
            .sessions(Some(q))
            .unwrap()
            .into_iter()
            .map(|s| s.title)
            .collect()
    };
    assert_eq!(titles("paris"), ["Weather in Paris"]);
    assert_eq!(titles("100%"), ["Other"]);
    assert_eq!(titles("_here"), ["Other"]);
    // % and _ are not wildcards.
    assert!(titles("1_0").is_empty());
    assert_eq!(store.sessions(None).unwrap().len(), 2);
    store.rename_session(&a.id, "Renamed").unwrap();
    assert_eq!(store.session(&a.id).unwrap().title, "Renamed");
    store.delete_session(&a.id).unwrap();
    assert!(matches!(store.session(&a.id), Err(Error::NoSession(_))));
}

#[test]
fn truncating_drops_the_rest_of_the_branch_and_its_calls() {
    let store = Store::in_memory().unwrap();
    let s = store.create_session(new("t")).unwrap();
    for text in ["one", "two", "three"] {
        store
            .append_message(&s.id, "user", &json!([]), text, None)
            .unwrap();
    }
    let messages = store.messages(&s.id).unwrap();
    store
        .insert_calls(&[NewCall {
            origin: "chat".into(),
            session: Some(s.id.clone()),
            message: Some(messages[2].id),
            call_id: "c1".into(),
            server: "demo".into(),
            tool: "echo".into(),
            arguments: json!({"text": "y"}).to_string(),
            result: Some(json!({"content": []}).to_string()),
            status: Some(CallStatus::Ok),
            duration_ms: Some(3.5),
            ..Default::default()
        }])
        .unwrap();
    assert_eq!(
        store.session_calls(&s.id).unwrap()[0].arguments["text"],
        "y"
    );
    assert_eq!(store.truncate_messages(&s.id, 2).unwrap(), 2);
    assert_eq!(store.messages(&s.id).unwrap().len(), 1);
    assert!(store.session_calls(&s.id).unwrap().is_empty());
    // The next message continues from what is left.
    let next = store
        .append_message(&s.id, "user", &json!([]), "again", None)
        .unwrap();
    assert_eq!(next.seq, 2);
}

#[test]
fn idle_sessions_are_cleaned_up_and_active_ones_kept() {
    let store = Store::in_memory().unwrap();
    let old = store.create_session(new("old")).unwrap();
    let fresh = store.create_session(new("fresh")).unwrap();
    store
        .lock()
        .execute(
            "UPDATE sessions SET updated_at = updated_at - 40 * 86400000 WHERE id = ?1",
            [&old.id],
        )
        .unwrap();
    assert_eq!(store.delete_idle_sessions(30 * 86_400_000).unwrap(), 1);
    let left: Vec<String> = store
        .sessions(None)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(left, [fresh.id]);
}

fn manual(server: &str, tool: &str, arguments: Value, status: CallStatus) -> NewCall {
    NewCall {
        origin: "window".into(),
        server: server.into(),
        tool: tool.into(),
        arguments: arguments.to_string(),
        result: Some(
            json!({"content": [{"type": "text", "text": format!("r{arguments}")}]}).to_string(),
        ),
        status: Some(status),
        duration_ms: Some(1.0),
        started_at: crate::now_ms(),
        ..Default::default()
    }
}

#[test]
fn a_tools_history_lists_its_calls_newest_first() {
    let store = Store::in_memory().unwrap();
    let calls: Vec<NewCall> = (0..3)
        .map(|i| manual("demo", "add", json!({"a": i}), CallStatus::Ok))
        .collect();
    let ids = store.insert_calls(&calls).unwrap();
    assert_eq!(ids.len(), 3);
    let history = store.tool_calls("demo", "add", 2).unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0].arguments["a"], 2);
    assert_eq!(history[0].origin, "window");
    assert_eq!(store.call(ids[0]).unwrap().unwrap().arguments["a"], 0);
    assert!(store.call(9999).unwrap().is_none());
}

#[test]
fn history_filters_by_server_tool_origin_status_and_text() {
    let store = Store::in_memory().unwrap();
    let mut bridge = manual(
        "demo",
        "echo",
        json!({"text": "50% off_sale"}),
        CallStatus::Ok,
    );
    bridge.origin = "bridge".into();
    store
        .insert_calls(&[
            manual("demo", "add", json!({"a": 1}), CallStatus::Ok),
            manual("demo", "add", json!({"a": 2}), CallStatus::Error),
            manual("other", "add", json!({"a": 3}), CallStatus::Ok),
            bridge,
        ])
        .unwrap();
    let q = |q: HistoryQuery| store.history(&q).unwrap().len();
    assert_eq!(q(HistoryQuery::default()), 4);
    assert_eq!(
        q(HistoryQuery {
            server: Some("demo".into()),
            ..Default::default()
        }),
        3
    );
    assert_eq!(
        q(HistoryQuery {
            tool: Some("add".into()),
            ..Default::default()
        }),
        3
    );
    assert_eq!(
        q(HistoryQuery {
            origin: Some("bridge".into()),
            ..Default::default()
        }),
        1
    );
    assert_eq!(
        q(HistoryQuery {
            status: Some(CallStatus::Error),
            ..Default::default()
        }),
        1
    );
    // Searched in arguments and results; % and _ are taken literally.
    assert_eq!(
        q(HistoryQuery {
            search: Some("50% off_".into()),
            ..Default::default()
        }),
        1
    );
    assert_eq!(
        q(HistoryQuery {
            search: Some("0%".into()),
            ..Default::default()
        }),
        1
    );
    assert_eq!(
        q(HistoryQuery {
            search: Some("\"a\":3".into()),
            ..Default::default()
        }),
        1
    );
    // Paging: older than the newest.
    let newest = store.history(&HistoryQuery::default()).unwrap()[0].id;
    assert_eq!(
        q(HistoryQuery {
            before: Some(newest),
            limit: 2,
            ..Default::default()
        }),
        2
    );
}

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

/// A store as the build before the kept sizes left it (WAL, as every
/// store is), and a connection to fill it.
fn older_store(dir: &std::path::Path) -> (std::path::PathBuf, rusqlite::Connection) {
    let path = dir.join("old.sqlite3");
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    crate::migrations::run_first(&mut conn, 9).unwrap();
    (path, conn)
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

/// `path` opened by two openers at the same moment (as the app and
/// `mcpwb serve` started together): what each then says of the History.
fn open_twice_at_once(path: &std::path::Path) -> Vec<Result<(i64, i64), crate::Error>> {
    let start = std::sync::Arc::new(std::sync::Barrier::new(2));
    let opened: Vec<_> = (0..2)
        .map(|_| {
            let (path, start) = (path.to_path_buf(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                Store::open(&path).map(|s| s.calls_size().unwrap())
            })
        })
        .collect();
    opened.into_iter().map(|o| o.join().unwrap()).collect()
}

#[test]
fn two_processes_opening_an_older_store_at_once_both_get_it_migrated_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = {
        let (path, mut conn) = older_store(dir.path());
        let tx = conn.transaction().unwrap();
        for i in 0..20_000 {
            tx.execute(
                "INSERT INTO calls (origin, server, tool, arguments, status, started_at, size)
                 VALUES ('window', 'demo', 'echo', '{}', 'ok', ?1, 10)",
                [i],
            )
            .unwrap();
        }
        tx.commit().unwrap();
        path
    };
    // The app and `mcpwb serve` started together after an update.
    for _ in 0..3 {
        let copy = dir.path().join("copy.sqlite3");
        std::fs::copy(&path, &copy).unwrap();
        for opened in open_twice_at_once(&copy) {
            assert_eq!(opened.unwrap(), (20_000, 200_000));
        }
        for f in ["copy.sqlite3", "copy.sqlite3-wal", "copy.sqlite3-shm"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
    }
}

#[test]
fn two_processes_making_the_store_at_once_both_open_it() {
    for _ in 0..10 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.sqlite3");
        for opened in open_twice_at_once(&path) {
            assert_eq!(opened.unwrap(), (0, 0));
        }
        let journal: String = Store::open(&path)
            .unwrap()
            .lock()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(journal, "wal");
    }
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
fn appending_to_a_missing_session_is_a_clear_error() {
    let store = Store::in_memory().unwrap();
    let err = store
        .append_message("nope", "user", &json!([]), "", None)
        .unwrap_err();
    assert_eq!(err.to_string(), "no chat session \"nope\"");
}

#[test]
fn the_database_is_private_and_an_old_install_readable_by_others_is_mended() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    let store = Store::open_in(&data).unwrap();
    drop(store);
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join(FILE_NAME)), 0o600);
    // As an earlier version left it: 0755 folder, 0644 files.
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    for f in std::fs::read_dir(&data).unwrap() {
        let p = f.unwrap().path();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let store = Store::open_in(&data).unwrap();
    assert_eq!(mode(&data), 0o700);
    for f in std::fs::read_dir(&data).unwrap() {
        let p = f.unwrap().path();
        assert_eq!(mode(&p), 0o600, "{}", p.display());
    }
    drop(store);
}

#[test]
fn a_call_is_found_by_the_key_its_caller_made_and_a_keyless_row_gets_one() {
    let store = Store::in_memory().unwrap();
    let keyed = NewCall {
        key: Some("k-1".into()),
        ..manual("demo", "echo", json!({}), CallStatus::Ok)
    };
    // An older build beside this one writes no key.
    let bare = manual("demo", "echo", json!({}), CallStatus::Ok);
    let ids = store.insert_calls(&[keyed, bare]).unwrap();
    let row = store.call_by_key("k-1").unwrap().expect("found by its key");
    assert_eq!(row.id, ids[0]);
    let other = store.call(ids[1]).unwrap().unwrap();
    assert_eq!(other.key, format!("row-{}", ids[1]));
    assert_eq!(store.call_by_key(&other.key).unwrap().unwrap().id, ids[1]);
    // A key names one row only.
    let again = NewCall {
        key: Some("k-1".into()),
        ..manual("demo", "echo", json!({}), CallStatus::Ok)
    };
    assert!(store.insert_calls(&[again]).is_err());
    assert!(store.call_by_key("k-2").unwrap().is_none());
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
