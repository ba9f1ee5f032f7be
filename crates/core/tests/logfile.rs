//! The log file is plain text: no terminal colour codes, even when stderr
//! gets them (its own process: the subscriber is global).

#[test]
fn the_log_file_has_no_ansi_codes() {
    let dir = tempfile::tempdir().unwrap();
    let guard = workbench_core::logging::init(Some(dir.path()), "info");
    let span = tracing::info_span!("mcp_request", server = "demo", method = "tools/call");
    span.in_scope(|| tracing::info!(duration_ms = 1.5, outcome = "ok", "request done"));
    drop(span);
    drop(guard);
    let mut text = String::new();
    for f in std::fs::read_dir(dir.path()).unwrap() {
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
