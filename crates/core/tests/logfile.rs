//! The log file is plain text: no terminal colour codes, even when stderr
//! gets them (its own process: the subscriber is global). And it is the
//! user's alone: folder 0700, files 0600.

use std::os::unix::fs::PermissionsExt;

#[test]
fn the_log_file_has_no_ansi_codes_and_only_the_user_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    std::fs::set_permissions(&logs, std::fs::Permissions::from_mode(0o755)).unwrap();
    let old = logs.join("mcp-workbench.log.2026-01-01");
    std::fs::write(&old, "yesterday\n").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o644)).unwrap();
    let guard = workbench_core::logging::init(Some(&logs), "info");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&logs), 0o700);
    assert_eq!(mode(&old), 0o600);
    let span = tracing::info_span!("mcp_request", server = "demo", method = "tools/call");
    span.in_scope(|| tracing::info!(duration_ms = 1.5, outcome = "ok", "request done"));
    drop(span);
    drop(guard);
    let mut text = String::new();
    for f in std::fs::read_dir(&logs).unwrap() {
        text.push_str(&std::fs::read_to_string(f.unwrap().path()).unwrap());
    }
    assert!(
        text.contains("request done") && text.contains("server=\"demo\""),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}'),
        "ANSI codes in the log file: {text:?}"
    );
}
