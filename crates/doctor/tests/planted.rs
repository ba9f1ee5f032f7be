//! The doctor against servers with planted faults, one per family, over
//! real pipes: it finds what was planted and only that (each family's
//! `well_formed` tool is never flagged), and the demo server is clean.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{Value, json};
use workbench_calls::{Calls, CallsOptions};
use workbench_core::settings::SettingsFile;
use workbench_core::{ConfigFile, Workbench, WorkbenchOptions};
use workbench_doctor::{DoctorReport, Options, Severity, examine};

async fn doctor(dir: &std::path::Path, args: &[&str], options: Options) -> DoctorReport {
    let demo = workbench_testkit::demo_server_path();
    examine_entry(dir, json!({ "command": demo, "args": args }), options).await
}

/// The doctor on `entry`, configured as the server "planted".
async fn examine_entry(dir: &std::path::Path, entry: Value, options: Options) -> DoctorReport {
    let path = dir.join("mcp.json");
    std::fs::write(
        &path,
        json!({ "mcpServers": { "planted": entry } }).to_string(),
    )
    .unwrap();
    let wb = Workbench::start(
        &ConfigFile::load(&path).unwrap(),
        WorkbenchOptions::default(),
    );
    wb.settle(Duration::from_secs(20)).await;
    for _ in 0..200 {
        if wb.catalog().server("planted").is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // What the server sends right after the handshake is in before the doctor looks.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let calls = Calls::new(
        wb.clone(),
        workbench_core::ToolCaller::for_tests(),
        CallsOptions {
            settings: SettingsFile::new(dir.join("settings.json")),
            store: None,
        },
    );
    let report = examine(&calls, "planted", options).await.unwrap();
    wb.shutdown().await;
    report
}

/// The codes found at warning or worse.
fn serious(report: &DoctorReport) -> BTreeSet<String> {
    report
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::Warning)
        .map(|f| f.code.clone())
        .collect()
}

fn set(codes: &[&str]) -> BTreeSet<String> {
    codes.iter().map(|c| c.to_string()).collect()
}

#[tokio::test]
async fn each_family_of_planted_faults_is_found_and_only_it() {
    let families: [(&str, &[&str]); 5] = [
        (
            "doctor-names",
            &[
                "name.invalid",
                "name.too-long-prefixed",
                "name.case-only",
                "name.provider-characters",
                "name.duplicate",
            ],
        ),
        (
            "doctor-schemas",
            &[
                "schema.top-not-object",
                "schema.array-without-items",
                "schema.dialect",
                "provider.gemini-rewrites",
                "schema.required-not-a-property",
                "schema.unresolvable",
                "provider.anthropic-top-combinator",
                "provider.gemini-enum",
                "schema.invalid",
            ],
        ),
        (
            "doctor-texts",
            &[
                "text.no-description",
                "text.long-description",
                "tokens.costly-tool",
            ],
        ),
        (
            "doctor-listings",
            &[
                "resource.mime-invalid",
                "template.invalid",
                "prompt.argument-undescribed",
            ],
        ),
        (
            "doctor-behaviour",
            &[
                "stdout.pollution",
                "capability.undeclared-list-changed",
                "capability.subscribe-fails",
                "list.failed",
            ],
        ),
    ];
    for (family, expected) in families {
        let dir = tempfile::tempdir().unwrap();
        let report = doctor(dir.path(), &["--fault", family], Options::default()).await;
        assert_eq!(
            serious(&report),
            set(expected),
            "{family}: {:#?}",
            report.findings
        );
        let flagged: Vec<_> = report
            .findings
            .iter()
            .filter(|f| f.item == "tool well_formed")
            .collect();
        assert!(
            flagged.is_empty(),
            "{family}: the well-formed tool was flagged: {flagged:#?}"
        );
        for f in &report.findings {
            assert!(
                !f.why.is_empty() && !f.fix.is_empty() && !f.seen.is_empty(),
                "{family}: {f:#?}"
            );
        }
    }
}

#[tokio::test]
async fn a_text_family_finding_says_exactly_where_and_what() {
    let dir = tempfile::tempdir().unwrap();
    let report = doctor(
        dir.path(),
        &["--fault", "doctor-schemas"],
        Options::default(),
    )
    .await;
    let ghost = report
        .findings
        .iter()
        .find(|f| f.code == "schema.required-not-a-property")
        .unwrap();
    assert_eq!(ghost.item, "tool required_ghost");
    assert_eq!(ghost.pointer, "/inputSchema/required");
    assert!(ghost.seen.contains("\"ghost\""), "{ghost:#?}");
    assert_eq!(report.worst(), Some(Severity::Error));
}

#[tokio::test]
async fn the_demo_server_is_clean_probed_and_speaks_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let report = doctor(
        dir.path(),
        &["--name", "planted"],
        Options {
            probe: true,
            eras: true,
            ..Default::default()
        },
    )
    .await;
    let errors: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert!(report.ready_ms.is_some());
    assert!(report.tokens.total > 0 && report.tokens.tokenizer == "o200k");
    // Its read-only tools were called (some cannot answer a doctor: a
    // 20 MB result past the message limit, roots the client does not offer).
    let ok: Vec<&str> = report
        .probed
        .iter()
        .filter(|p| p.outcome == "ok")
        .map(|p| p.tool.as_str())
        .collect();
    assert!(
        ok.contains(&"echo") && ok.contains(&"all_content_types"),
        "{:#?}",
        report.probed
    );
    let eras: Vec<(&str, bool)> = report
        .eras
        .iter()
        .map(|e| (e.era.as_str(), e.ready))
        .collect();
    assert_eq!(
        eras,
        [("2025-11-25", true), ("2026-07-28", true)],
        "{:#?}",
        report.eras
    );
    // Every real client's way of finding its era gets through.
    let clients: Vec<(&str, Option<&str>)> = report
        .clients
        .iter()
        .map(|c| (c.client.as_str(), c.speaks.as_deref()))
        .collect();
    assert_eq!(
        clients,
        [
            ("TypeScript SDK", Some("2026-07-28")),
            ("Python SDK", Some("2026-07-28")),
            ("A client that waits", Some("2026-07-28")),
            ("A 2025 client offering a newer version", Some("2025-11-25")),
            ("A 2025 client", Some("2025-11-25")),
        ]
    );
}

/// A server of the 2025 era only (it answers server/discover with
/// -32601): the clients that fall back on that get through, the one that
/// falls back on -32602 does not, and the doctor says so.
#[tokio::test]
async fn each_clients_way_of_finding_the_era_is_played() {
    let dir = tempfile::tempdir().unwrap();
    let report = doctor(
        dir.path(),
        &["--legacy"],
        Options {
            probe: false,
            eras: true,
            ..Default::default()
        },
    )
    .await;
    let ends: Vec<Option<&str>> = report.clients.iter().map(|c| c.speaks.as_deref()).collect();
    let old = Some("2025-11-25");
    assert_eq!(ends, [old, None, old, old, old], "{:#?}", report.clients);
    assert!(
        report.clients[1].why.contains("-32601"),
        "{}",
        report.clients[1].why
    );
    let fails = report
        .findings
        .iter()
        .find(|f| f.code == "era.client-fails")
        .expect("the failing way is a finding");
    assert!(fails.seen.starts_with("Python SDK:"), "{}", fails.seen);
}

/// Each era is tried with the workbench's own variables and keychain: an
/// entry that reads a secret connects in both (with defaults it could not
/// expand the secret and every era "failed").
#[tokio::test]
async fn the_eras_are_tried_with_the_servers_own_secrets() {
    use workbench_core::config::secrets::{Backend, Keychain};
    let dir = tempfile::tempdir().unwrap();
    let keychain = Keychain::new(
        &format!("mcpwb-doctor-eras-{}", std::process::id()),
        Backend::KernelKeyring,
    );
    keychain
        .set("planted/env/DEMO_TOKEN", "s3cret-value")
        .unwrap();
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        json!({ "mcpServers": { "planted": {
            "command": workbench_testkit::demo_server_path(),
            "args": ["--name", "planted"],
            "env": { "DEMO_TOKEN": "${secret:planted/env/DEMO_TOKEN}" }
        } } })
        .to_string(),
    )
    .unwrap();
    let mut options = WorkbenchOptions::default();
    options.supervisor.vars.keychain = Some(keychain.clone());
    let wb = Workbench::start(&ConfigFile::load(&path).unwrap(), options);
    wb.settle(Duration::from_secs(20)).await;
    let calls = Calls::new(
        wb.clone(),
        workbench_core::ToolCaller::for_tests(),
        CallsOptions {
            settings: SettingsFile::new(dir.path().join("settings.json")),
            store: None,
        },
    );
    let report = examine(
        &calls,
        "planted",
        Options {
            probe: false,
            eras: true,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    wb.shutdown().await;
    keychain.delete("planted/env/DEMO_TOKEN").unwrap();
    let eras: Vec<(&str, bool)> = report
        .eras
        .iter()
        .map(|e| (e.era.as_str(), e.ready))
        .collect();
    assert_eq!(
        eras,
        [("2025-11-25", true), ("2026-07-28", true)],
        "{:#?}",
        report.eras
    );
}

/// Cache hints (2026-07-28): a list that says it is fresh for a minute and
/// the same for everyone while each answer differs is found twice over
/// (asked twice at once; another connection lists other tools); the demo
/// with honest hints (fresh a minute, public, the same each time) is not.
#[tokio::test]
async fn cache_hints_that_cannot_be_right_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let eras = Options {
        probe: false,
        eras: true,
        ..Default::default()
    };
    let lying = doctor(dir.path(), &["--fault", "lying-cache"], eras.clone()).await;
    let cache: BTreeSet<String> = serious(&lying)
        .into_iter()
        .filter(|c| c.starts_with("cache."))
        .collect();
    assert_eq!(
        cache,
        set(&["cache.changed-while-fresh", "cache.public-varies"]),
        "{:#?}",
        lying.findings
    );
    let changed = lying
        .findings
        .iter()
        .find(|f| f.code == "cache.changed-while-fresh")
        .unwrap();
    assert_eq!(changed.item, "tools/list");
    assert!(changed.seen.contains("60000 ms"), "{}", changed.seen);

    let honest = doctor(dir.path(), &["--cache-ttl", "60000"], eras.clone()).await;
    let cache: Vec<_> = honest
        .findings
        .iter()
        .filter(|f| f.code.starts_with("cache."))
        .collect();
    assert!(cache.is_empty(), "{cache:#?}");
}

/// The doctor on the demo server over Streamable HTTP, `args` more, in the
/// 2025 era (its stateful sessions answer in two writes: a priming event,
/// then the answer).
async fn doctor_over_http(dir: &std::path::Path, args: &[&str]) -> DoctorReport {
    let demo = workbench_testkit::demo_server_path();
    let (_server, addr) = workbench_testkit::demo_over_http(&demo, dir, args).await;
    let url = format!("http://{addr}/mcp");
    let entry = json!({ "type": "http", "url": url, "protocolVersion": "2025-11-25" });
    examine_entry(dir, entry, Options::default()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_whose_answers_wait_for_the_clients_ack_is_told_how_to_stop_it() {
    let dir = tempfile::tempdir().unwrap();
    let held = doctor_over_http(dir.path(), &["--nagle"]).await;
    let stall = held
        .findings
        .iter()
        .find(|f| f.code == "http.nagle-stall")
        .unwrap_or_else(|| {
            panic!(
                "not found: {:#?}",
                held.findings.iter().map(|f| &f.code).collect::<Vec<_>>()
            )
        });
    assert_eq!(stall.severity, Severity::Warning);
    assert!(stall.seen.contains("answers to ping"), "{}", stall.seen);
    assert!(stall.fix.contains("TCP_NODELAY"), "{}", stall.fix);
    // The same server with each write sent at once: nothing to say.
    let dir = tempfile::tempdir().unwrap();
    let prompt = doctor_over_http(dir.path(), &[]).await;
    assert!(
        !prompt.findings.iter().any(|f| f.code == "http.nagle-stall"),
        "{:#?}",
        prompt.findings
    );
}

#[test]
fn a_few_slow_answers_among_quick_ones_are_not_a_stall() {
    use workbench_doctor::behaviour::stall_finding;
    assert!(stall_finding("ping", &[41.0, 40.2, 44.0, 0.3, 40.9]).is_some());
    assert!(stall_finding("ping", &[41.0, 0.2, 0.4, 0.3, 40.9]).is_none());
    assert!(
        stall_finding("ping", &[41.0, 40.0]).is_none(),
        "too few to say"
    );
}
