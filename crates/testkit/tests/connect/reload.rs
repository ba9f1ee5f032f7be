//! An edit to mcp.json on disk reconnects exactly the servers it touched.

use std::time::Duration;

use serde_json::{Value, json};
use workbench_core::config::watch::ChangeSet;
use workbench_core::events::Event;

use super::*;

async fn next_config_event(rx: &mut tokio::sync::broadcast::Receiver<Event>) -> Event {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match tokio::time::timeout(left, rx.recv()).await {
            Ok(Ok(e @ (Event::ConfigApplied { .. } | Event::ConfigError { .. }))) => return e,
            Ok(Ok(_)) | Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
            other => panic!("no config event: {other:?}"),
        }
    }
}

fn write(dir: &std::path::Path, servers: &[(String, Value)]) {
    let map: serde_json::Map<String, Value> = servers.iter().cloned().collect();
    // Written the way editors do: a new file renamed over the old one.
    let tmp = dir.join(".mcp.json.swp");
    std::fs::write(&tmp, json!({ "mcpServers": map }).to_string()).unwrap();
    std::fs::rename(&tmp, dir.join("mcp.json")).unwrap();
}

#[tokio::test]
async fn an_external_edit_reconnects_exactly_the_servers_it_changed() {
    let keep = stdio("keep", &[]);
    let change = stdio("change", &[]);
    let drop_me = stdio("drop-me", &[]);
    let (wb, dir) = start(&[keep.clone(), change.clone(), drop_me.clone()]).await;
    for n in ["keep", "change", "drop-me"] {
        ready(&wb, n).await;
    }
    let keep_pgid = wb.server("keep").unwrap().pgid().unwrap();
    let change_pgid = wb.server("change").unwrap().pgid().unwrap();
    let drop_pgid = wb.server("drop-me").unwrap().pgid().unwrap();
    let mut rx = wb.subscribe();
    let _watch = wb.watch_config(dir.path().join("mcp.json"), None).unwrap();

    let changed = stdio("change", &["--page-size", "2"]);
    let added = stdio("added", &[]);
    write(dir.path(), &[keep.clone(), changed.clone(), added]);
    let Event::ConfigApplied { changes, own } = next_config_event(&mut rx).await else {
        panic!("expected the change to be applied")
    };
    assert!(!own, "an edit made elsewhere is not the app's own");
    assert_eq!(
        changes,
        ChangeSet {
            added: vec!["added".into()],
            changed: vec!["change".into()],
            removed: vec!["drop-me".into()],
            held: vec![],
        }
    );
    ready(&wb, "added").await;
    ready(&wb, "change").await;
    let names: Vec<String> = wb.servers().iter().map(|s| s.name().to_string()).collect();
    assert_eq!(names, ["keep", "change", "added"]);
    // The untouched server kept its process; the others were replaced or ended.
    assert_eq!(wb.server("keep").unwrap().pgid(), Some(keep_pgid));
    assert_ne!(wb.server("change").unwrap().pgid(), Some(change_pgid));
    assert!(
        group_members(drop_pgid).is_empty(),
        "the dropped server's processes ended"
    );
    assert!(group_members(change_pgid).is_empty());
    assert!(wb.catalog().server("drop-me").is_none());

    // A broken save is reported and changes nothing.
    std::fs::write(
        dir.path().join("mcp.json"),
        "{ \"mcpServers\": { \"keep\": ",
    )
    .unwrap();
    let Event::ConfigError { message } = next_config_event(&mut rx).await else {
        panic!("expected an error")
    };
    assert!(message.contains("mcp.json:1:"), "{message}");
    assert_eq!(wb.servers().len(), 3);
    assert_eq!(wb.server("keep").unwrap().pgid(), Some(keep_pgid));

    // Fixed back to what runs: no server changes, and the error is cleared.
    write(
        dir.path(),
        &[keep.clone(), changed.clone(), stdio("added", &[])],
    );
    let Event::ConfigApplied { changes, .. } = next_config_event(&mut rx).await else {
        panic!("a fixed file is said to be fine again")
    };
    assert!(changes.is_empty(), "{changes:?}");

    // A save through the core (the window's, the agent's) is its own.
    let path = dir.path().join("mcp.json");
    let mut doc = workbench_core::config::document::Document::open(&path).unwrap();
    doc.edit(&workbench_core::config::edit::EditOp::SetDisabled {
        name: "added".into(),
        disabled: true,
    })
    .unwrap();
    doc.save().unwrap();
    let Event::ConfigApplied { changes, own } = next_config_event(&mut rx).await else {
        panic!("expected the save to be applied")
    };
    assert!(
        own,
        "the app's own save is not announced as a change on disk"
    );
    assert_eq!(changes.changed, ["added"]);
    wb.shutdown().await;
}

/// A server trusted in another process (`mcpwb config trust` beside the
/// window) starts here too: the trust record is followed with the files.
#[tokio::test]
async fn a_server_trusted_elsewhere_starts_without_a_reload() {
    use workbench_core::config::trust::{self, Trust};
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &[stdio("found", &[])]);
    let record = dir.path().join("data").join("trust.json");
    std::fs::create_dir_all(record.parent().unwrap()).unwrap();
    let options = WorkbenchOptions {
        trust: Some(Trust::at(&record)),
        ..fast()
    };
    let wb = Workbench::start(&cfg, options);
    let _watch = wb.watch_config(dir.path().join("mcp.json"), None).unwrap();
    let found = wb.server("found").unwrap();
    assert!(
        found
            .wait_for(Duration::from_secs(5), |s| matches!(
                s,
                ServerState::Untrusted
            ))
            .await
            .is_some(),
        "a file written outside the workbench waits for trust: {:?}",
        found.status()
    );

    // Another process's handle on the same record.
    let mut rx = wb.subscribe();
    let entry = &cfg.servers[0];
    Trust::at(&record)
        .trust(&trust::file_of(&cfg.path, None, entry), entry)
        .unwrap();
    let Event::ConfigApplied { changes, .. } = next_config_event(&mut rx).await else {
        panic!("expected the trust to be applied")
    };
    assert_eq!(changes.changed, ["found"], "{changes:?}");
    assert!(changes.held.is_empty(), "{changes:?}");
    ready(&wb, "found").await;

    // An entry added by hand waits, and the change says so (the window's
    // notice said it was started).
    write(dir.path(), &[stdio("found", &[]), stdio("added", &[])]);
    let Event::ConfigApplied { changes, .. } = next_config_event(&mut rx).await else {
        panic!("expected the edit to be applied")
    };
    assert_eq!(changes.added, ["added"], "{changes:?}");
    assert_eq!(
        changes.held,
        [workbench_core::config::watch::Held {
            name: "added".into(),
            why: workbench_core::config::watch::HeldBy::Untrusted
        }]
    );
}
