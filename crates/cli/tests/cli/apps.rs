//! `mcpwb app`: a tool's MCP App resolved headless — the call made, the
//! App's HTML written with the CSP the window applies first in its head, the
//! policy printed; a tool without an App is told so.

use serde_json::Value;

use super::{demo_config, mcpwb, stderr, stdout};

#[test]
fn an_app_is_written_with_the_csp_the_window_would_apply() {
    let dir = tempfile::tempdir().unwrap();
    let config = demo_config(dir.path(), &[]);
    let html = dir.path().join("app.html");
    let out = mcpwb(&[
        "--config",
        &config,
        "--json",
        "app",
        "demo",
        "counter_app",
        "--html",
        html.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let said: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(said["uri"], "ui://demo/counter");
    let csp = said["csp"].as_str().unwrap();
    assert!(
        csp.contains("connect-src https://api.example.com;"),
        "{csp}"
    );
    assert!(csp.contains("default-src 'none'") && csp.contains("frame-src 'none'"));
    assert_eq!(said["result"]["structuredContent"]["count"], 0);
    let written = std::fs::read_to_string(&html).unwrap();
    let head = written.find("<head>").unwrap() + "<head>".len();
    assert!(
        written[head..].starts_with(
            r#"<meta http-equiv="Content-Security-Policy" content="default-src 'none';"#
        ),
        "the CSP is the first thing in the head: {}",
        &written[head..head + 120]
    );
    assert!(written.contains("Counter App"));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&html).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "written privately");

    // A link planted where the file goes: replaced, its target untouched.
    let target = dir.path().join("bashrc");
    std::fs::write(&target, "# the person's shell\n").unwrap();
    let linked = dir.path().join("linked.html");
    std::os::unix::fs::symlink(&target, &linked).unwrap();
    let out = mcpwb(&[
        "--config",
        &config,
        "app",
        "demo",
        "counter_app",
        "--no-call",
        "--html",
        linked.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "# the person's shell\n"
    );
    assert!(
        std::fs::read_to_string(&linked)
            .unwrap()
            .contains("Content-Security-Policy")
    );

    // A tool that names no App: said, exit 2, nothing written.
    let out = mcpwb(&["--config", &config, "app", "demo", "echo", "--no-call"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("names no App"), "{}", stderr(&out));
}
