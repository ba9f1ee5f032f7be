use serde_json::json;
use workbench_core::settings::SettingsFile;

use super::*;

#[test]
fn origins_read_back_as_written() {
    for o in Origin::ALL {
        assert_eq!(Origin::parse(o.as_str()), Some(o));
        let json = serde_json::to_value(o).unwrap();
        assert_eq!(json, o.as_str());
    }
    assert_eq!(Origin::parse("nobody"), None);
    assert!(Origin::Window.by_person() && Origin::Cli.by_person());
    assert!(
        !Origin::Suite.by_person() && !Origin::Doctor.by_person(),
        "a suite file and a server's marks are not the person's act"
    );
    assert!(!Origin::Chat.by_person() && !Origin::Bridge.by_person() && !Origin::App.by_person());
}

#[test]
fn rules_are_read_live_and_a_broken_file_keeps_the_last_good_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    let live = LiveRules::new(SettingsFile::new(&path));
    assert_eq!(
        live.get().policy("s", "t"),
        ToolPolicy::Ask,
        "no file: no rules"
    );
    std::fs::write(
        &path,
        json!({"agent": {"providers": [], "tool_policies": {"s/t": "deny"}}}).to_string(),
    )
    .unwrap();
    // Another process's write (an editor, the app beside `mcpwb serve`):
    // seen once the recheck interval is over.
    std::thread::sleep(rules::RECHECK * 2);
    assert_eq!(live.get().policy("s", "t"), ToolPolicy::Deny);
    std::fs::write(
        &path,
        json!({"agent": {"tool_policies": {"s/t": "allow", "s/u": "deny"}}}).to_string(),
    )
    .unwrap();
    std::thread::sleep(rules::RECHECK * 2);
    assert_eq!(live.get().policy("s", "t"), ToolPolicy::Allow);
    // This process's write (the window's Settings): seen on the next read.
    live.file()
        .update(rules::SECTION, |a: &mut Rules| {
            a.tool_policies.insert("s/t".into(), ToolPolicy::Ask);
        })
        .unwrap();
    assert_eq!(
        live.get().policy("s", "t"),
        ToolPolicy::Ask,
        "a change made here is seen at once"
    );
    std::fs::write(&path, "{ \"agent\": ").unwrap();
    std::thread::sleep(rules::RECHECK * 2);
    assert_eq!(
        live.get().policy("s", "u"),
        ToolPolicy::Deny,
        "half-written: the last rules hold"
    );
}

#[test]
fn approving_a_definition_keeps_the_rest_of_the_section() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(
        &path,
        json!({"agent": {"max_steps": 7, "providers": [{"id": "p"}], "tool_policies": {"s/t": "allow"}}, "window": {"zoom": 2}})
            .to_string(),
    )
    .unwrap();
    let live = LiveRules::new(SettingsFile::new(&path));
    let own = rules::Grantee {
        server: "s".into(),
        owner: "/f/mcp.json#s@2:00".into(),
        own_file: true,
    };
    live.approve_definition(&own, "t", json!({"description": "d"}))
        .unwrap();
    let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(all["agent"]["max_steps"], 7);
    assert_eq!(all["agent"]["providers"][0]["id"], "p");
    assert_eq!(
        all["agent"]["approved_definitions"]["s/t"]["description"],
        "d"
    );
    assert_eq!(all["window"]["zoom"], 2);
    assert_eq!(live.get().approved_definitions["s/t"]["description"], "d");
    // The person's own entry kept its allow (rules from before owners).
    assert_eq!(live.get().policy("s", "t"), ToolPolicy::Allow);
    assert!(live.get().hold(&own));
}

#[test]
fn a_grant_for_another_entry_of_the_name_drops_the_first_ones_grants_but_not_its_denies() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("settings.json");
    std::fs::write(
        &path,
        json!({"agent": {
            "tool_policies": {"s/t": "allow", "s/u": "deny", "sx/t": "allow"},
            "trusted_servers": ["s", "sx"],
            "auto_sampling_servers": ["s"],
            "approved_definitions": {"s/t": {}, "sx/t": {}},
            "grant_owners": {"s": "/user/mcp.json#s@2:aa"}
        }})
        .to_string(),
    )
    .unwrap();
    let live = LiveRules::new(SettingsFile::new(&path));
    let first = rules::Grantee {
        server: "s".into(),
        owner: "/user/mcp.json#s@2:aa".into(),
        own_file: true,
    };
    let shadow = rules::Grantee {
        server: "s".into(),
        owner: "/project/.mcp.json#s@2:bb".into(),
        own_file: false,
    };
    assert!(live.get().hold(&first) && !live.get().hold(&shadow));
    live.claim(&shadow).unwrap();
    let rules = live.get();
    assert!(rules.hold(&shadow) && !rules.hold(&first));
    assert_eq!(rules.policy("s", "t"), ToolPolicy::Ask, "the allow went");
    assert_eq!(rules.policy("s", "u"), ToolPolicy::Deny, "the deny stayed");
    assert_eq!(
        rules.trusted_servers,
        ["sx"],
        "only the other server's trust stays"
    );
    assert!(!rules.approved_definitions.contains_key("s/t"));
    assert_eq!(
        rules.policy("sx", "t"),
        ToolPolicy::Allow,
        "another server untouched"
    );
    let all: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(all["agent"]["auto_sampling_servers"], json!([]));
}

fn big_call(i: usize, pad: &str) -> history::Finished {
    history::Finished {
        key: None,
        begun: history::Begun {
            origin: "window",
            session: None,
            message: None,
            call_id: String::new(),
            server: "demo".into(),
            tool: "echo".into(),
            arguments: json!({ "i": i, "pad": pad }),
            started_at: i as i64,
        },
        result: None,
        error: None,
        status: workbench_store::CallStatus::Ok,
        duration_ms: Some(1.0),
        protocol: None,
        traffic: (0, 0),
        schema_violations: Vec::new(),
        task: None,
        notes: Vec::new(),
        replaces: false,
    }
}

#[tokio::test]
async fn the_writer_keeps_the_history_under_its_cap_as_it_goes() {
    let dir = tempfile::tempdir().unwrap();
    let settings = dir.path().join("settings.json");
    std::fs::write(&settings, json!({"history": {"max_mib": 2}}).to_string()).unwrap();
    let store = workbench_store::Store::open(&dir.path().join("h.sqlite3")).unwrap();
    let traffic = workbench_core::traffic::TrafficLog::new(64);
    let rules = LiveRules::new(SettingsFile::new(&settings));
    let history = history::History::start(store.clone(), traffic, rules);
    let mut written = history.written();
    let pad = "x".repeat(64 * 1024);
    // 6 MiB written in small batches against a 2 MiB cap.
    for i in 0..96 {
        drop(history.write(big_call(i, &pad)));
        if i % 8 == 7 {
            history.flush().await;
        }
    }
    history.flush().await;
    // A window following the store is told of every row written.
    assert!(written.has_changed().unwrap());
    assert_eq!(*written.borrow_and_update(), 96);
    let (count, bytes) = store.calls_size().unwrap();
    assert!(
        bytes <= 2 * 1024 * 1024 + 8 * 70 * 1024,
        "{bytes} bytes kept"
    );
    assert!((20..96).contains(&count), "{count} kept");
    let newest = store
        .history(&workbench_store::HistoryQuery {
            limit: 1,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(newest[0].arguments["i"], 95, "the newest stays");
    // The cap lowered while it runs: the next batch prunes to it.
    std::fs::write(&settings, json!({"history": {"max_mib": 1}}).to_string()).unwrap();
    drop(history.write(big_call(96, &pad)));
    history.flush().await;
    let (_, bytes) = store.calls_size().unwrap();
    assert!(
        bytes <= 1024 * 1024,
        "{bytes} bytes kept after the cap was lowered"
    );
}

#[tokio::test]
async fn an_ask_is_answered_by_a_rule_the_person_sets_while_it_waits() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("mcp.json");
    std::fs::write(&cfg, r#"{"mcpServers": {}}"#).unwrap();
    let config = workbench_core::ConfigFile::load(&cfg).unwrap();
    let calls = Calls::new(
        Workbench::start(&config, Default::default()),
        workbench_core::ToolCaller::for_tests(),
        CallsOptions {
            settings: SettingsFile::new(dir.path().join("settings.json")),
            store: None,
        },
    );
    let definition = json!({ "name": "poll", "inputSchema": { "type": "object" } });
    let (c, d) = (calls.clone(), definition.clone());
    let asked = tokio::spawn(async move {
        let asking = Asking {
            server: "sysmon",
            tool: "poll",
            definition: &d,
            mode: ApproveMode::Ask,
            chat_allowed: None,
        };
        c.decide_with(&asking, "app:a1", "app", "sysmon/poll", &json!({}), true)
            .await
    });
    for _ in 0..100 {
        if !calls.approvals().pending("app:a1").is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(calls.approvals().pending("app:a1").len(), 1, "it asks");
    // "Always allow" given on another card of the same tool.
    calls.allow_always("sysmon", "poll", &definition);
    let decided = tokio::time::timeout(std::time::Duration::from_secs(5), asked)
        .await
        .expect("the waiting ask was answered by the rule")
        .unwrap();
    assert!(decided.is_ok(), "{decided:?}");
    assert!(
        calls.approvals().pending("app:a1").is_empty(),
        "its card went"
    );
}

/// A call running a while is kept as `pending` with this process's id; its
/// end replaces that row (one row, the same id); a call whose future is
/// dropped after it was kept ends as cancelled.
#[tokio::test]
async fn a_long_call_is_kept_while_it_runs_and_its_end_replaces_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = workbench_store::Store::open(&dir.path().join("h.sqlite3")).unwrap();
    let rules = LiveRules::new(SettingsFile::new(dir.path().join("settings.json")));
    let history = history::History::start(
        store.clone(),
        workbench_core::traffic::TrafficLog::new(64),
        rules,
    );
    let begun = |tool: &str| history::Begun {
        origin: "cli",
        session: None,
        message: None,
        call_id: String::new(),
        server: "demo".into(),
        tool: tool.into(),
        arguments: json!({"steps": 50}),
        started_at: workbench_store::now_ms(),
    };
    let ended = history.begin("k-ends".into(), begun("long_task"));
    let dropped = history.begin("k-dropped".into(), begun("long_task"));
    let quick = history.begin("k-quick".into(), begun("echo"));
    drop(quick.end());
    // The writer looks once a second; kept after a second of running.
    let mut running = None;
    for _ in 0..60 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        running = store.call_by_key("k-ends").unwrap();
        if running.is_some() && store.call_by_key("k-dropped").unwrap().is_some() {
            break;
        }
    }
    let running = running.expect("kept while it runs");
    assert_eq!(running.status, CallStatus::Pending);
    assert_eq!(running.arguments["steps"], 50);
    assert!(
        store.call_by_key("k-quick").unwrap().is_none(),
        "a call that ended at once has no running row"
    );
    // Its end: the same row, ended.
    let mut finished = big_call(1, "");
    finished.key = Some("k-ends".into());
    let (begun, kept) = ended.end().expect("among the running");
    (finished.begun, finished.replaces) = (begun, kept);
    assert!(kept, "kept while it ran");
    assert_eq!(finished.begun.arguments["steps"], 50, "its start back");
    drop(history.write(finished));
    drop(dropped);
    history.flush().await;
    let row = store.call_by_key("k-ends").unwrap().unwrap();
    assert_eq!((row.id, row.status), (running.id, CallStatus::Ok));
    let row = store.call_by_key("k-dropped").unwrap().unwrap();
    assert_eq!(row.status, CallStatus::Cancelled);
    let (count, _) = store.calls_size().unwrap();
    assert_eq!(count, 2, "one row each");
}
