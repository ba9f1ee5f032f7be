//! `mcpwb` as a user runs it: the real binary, temp config files, and the
//! demo server over real pipes.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};

mod apps;
mod arguments;
mod auth;
mod bundle;
mod bundle_signature;
mod chat;
mod config;
mod config_secrets;
mod crash;
mod dev;
mod doctor;
mod doors;
mod history;
mod hostile;
mod http_upstream;
mod imports;
mod load;
mod pipes;
mod publish;
mod registry;
mod serve;
mod session_suites;
mod skills;
mod soak;
mod states;
mod suite_attacks;
mod suites;
mod tap;
mod tap_hosts;
mod tap_http;
mod tap_replay;
mod tap_watch;
mod tasks;
mod tls;
mod traces;
mod workbench_tools;

const BIN: &str = env!("CARGO_BIN_EXE_mcpwb");

/// The demo server binary (built by `cargo test --workspace`; built here otherwise).
fn demo_server() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(workbench_testkit::demo_server_path)
}

/// `mcpwb ARGS` on configs the person wrote and trusted (`--trust`).
fn mcpwb(args: &[&str]) -> std::process::Output {
    mcpwb_trusting(true, args)
}

/// `mcpwb ARGS` on configs as found: nothing trusted unless recorded.
fn mcpwb_as_found(args: &[&str]) -> std::process::Output {
    mcpwb_trusting(false, args)
}

fn mcpwb_trusting(trust: bool, args: &[&str]) -> std::process::Output {
    mcpwb_command(trust, args).output().unwrap()
}

/// The command [`mcpwb_trusting`] runs, for a test that feeds it stdin.
fn mcpwb_command(trust: bool, args: &[&str]) -> Command {
    let home = std::env::temp_dir().join("mcpwb-cli-test-home");
    let mut command = Command::new(BIN);
    command
        .args(trust.then_some("--trust"))
        .args(args)
        .env_remove("MCPWB_CONFIG")
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME")
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_SETTINGS", home.join("settings.json"))
        .env("HOME", home);
    command
}

fn demo_config(dir: &Path, extra: &[(&str, &[&str])]) -> String {
    let mut servers = serde_json::Map::new();
    servers.insert(
        "demo".into(),
        json!({ "command": demo_server(), "args": ["--name", "demo"] }),
    );
    for (name, args) in extra {
        servers.insert(
            name.to_string(),
            json!({ "command": demo_server(), "args": args }),
        );
    }
    let path = dir.join("mcp.json");
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path.display().to_string()
}

/// The Python interpreter with the official MCP SDK: `cargo xtask test`
/// makes one in `target/pyenv` and sets MCPWB_PYTHON; without it a test
/// that needs it says so and does nothing (nothing can be installed on the
/// fly here).
/// The Python SDK's interpreter, or None (said on stderr) where
/// MCPWB_PYTHON is not set: the caller skips its Python part.
fn python() -> Option<String> {
    let Ok(python) = std::env::var("MCPWB_PYTHON") else {
        eprintln!(
            "MCPWB_PYTHON is not set: the Python SDK's part is skipped (cargo xtask test sets it)"
        );
        return None;
    };
    assert!(
        Path::new(&python).exists(),
        "MCPWB_PYTHON is set but {python} is missing"
    );
    Some(python)
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// A long call's progress is drawn on the terminal (one line over itself,
/// cleared before the result), and kept out of a log or a pipe.
#[test]
fn a_calls_progress_shows_on_a_terminal_only() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let args = [
        "call",
        "demo",
        "long_task",
        "-a",
        "steps=3",
        "-a",
        "step_ms=150",
        "--config",
        &cfg,
    ];
    let piped = mcpwb(&args);
    assert!(piped.status.success(), "{}", stderr(&piped));
    assert!(!stderr(&piped).contains("/ 3 ("), "{}", stderr(&piped));
    // A terminal: `script` runs it on a pseudo-terminal.
    let mut line = vec![BIN.to_string(), "--trust".into()];
    line.extend(args.iter().map(|a| format!("'{a}'")));
    let on_tty = mcpwb_command(true, &[])
        .get_envs()
        .fold(Command::new("script"), |mut c, (k, v)| {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
            c
        })
        .args(["-qec", &line.join(" "), "/dev/null"])
        .output();
    let Ok(on_tty) = on_tty else {
        eprintln!("`script` is not installed: the terminal half is skipped");
        return;
    };
    let text = String::from_utf8_lossy(&on_tty.stdout).to_string();
    assert!(on_tty.status.success(), "{text}");
    assert!(
        text.contains("mcpwb: 2 / 3 (67%) — step 2 of 3"),
        "{text:?}"
    );
    // Cleared before the result is printed.
    assert!(text.contains("\r\x1b[2Kdone after 3 steps"), "{text:?}");
}

#[test]
fn call_prints_the_result_and_exit_codes_tell_what_happened() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(
        dir.path(),
        &[
            ("broken", &["--fault", "exit-at-start"]),
            ("hangs", &["--fault", "hang-on-call"]),
        ],
    );
    let out = mcpwb(&[
        "call",
        "demo",
        "echo",
        "--args",
        r#"{"message":"hello"}"#,
        "--config",
        &cfg,
    ]);
    assert_eq!(stdout(&out), "hello\n");
    assert!(out.status.success());

    let out = mcpwb(&[
        "call",
        "demo",
        "fail",
        "--args",
        r#"{"reason":"nope"}"#,
        "--config",
        &cfg,
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("nope"));

    let out = mcpwb(&["call", "broken", "echo", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(4));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("exit-at-start") || err.contains("status 3"),
        "{err}"
    );

    let out = mcpwb(&[
        "call",
        "hangs",
        "echo",
        "--args",
        r#"{"message":"x"}"#,
        "--timeout",
        "0.5",
        "--config",
        &cfg,
    ]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));

    let out = mcpwb(&["call", "demo", "echo", "--args", "[1]", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(2));

    let out = mcpwb(&["call", "nope", "echo", "--config", &cfg]);
    assert_eq!(out.status.code(), Some(4));
}

#[test]
fn tools_resources_read_prompts_prompt_ping_and_traffic() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let out = mcpwb(&["tools", "--json", "--config", &cfg]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["qualified"] == "demo__create_order")
    );

    let out = mcpwb(&["resources", "demo", "--config", &cfg]);
    assert!(stdout(&out).contains("demo://notes/{topic}"));
    let out = mcpwb(&["read", "demo", "demo://notes/rust", "--config", &cfg]);
    assert_eq!(stdout(&out), "Notes on rust: nothing yet.\n");
    let out = mcpwb(&["prompts", "--config", &cfg]);
    assert!(stdout(&out).contains("greet(name, style?)"));
    let out = mcpwb(&[
        "prompt",
        "demo",
        "greet",
        "--args",
        r#"{"name":"Ada","style":"formal"}"#,
        "--config",
        &cfg,
    ]);
    assert_eq!(stdout(&out), "user: Please say: Good day, Ada.\n");
    let out = mcpwb(&["prompt", "demo", "greet", "--config", &cfg]);
    assert_eq!(
        out.status.code(),
        Some(6),
        "a missing argument is the server's error"
    );
    assert!(
        stderr(&out).contains("note: the prompt's argument name is required and not given"),
        "{}",
        stderr(&out)
    );
    // A name the prompt does not declare, typed with -a: refused before
    // the request, with the names it takes.
    let out = mcpwb(&[
        "prompt", "demo", "greet", "-a", "nmae=Ada", "--config", &cfg,
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the prompt takes no argument nmae (it takes: name, style)"),
        "{}",
        stderr(&out)
    );
    let out = mcpwb(&[
        "prompt", "demo", "greet", "-a", "name=Ada", "--config", &cfg,
    ]);
    assert_eq!(
        stdout(&out),
        "user: Please say: Hi Ada!\n",
        "{}",
        stderr(&out)
    );
    let out = mcpwb(&["ping", "demo", "--json", "--config", &cfg]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["duration_ms"].as_f64().unwrap() > 0.0);

    let out = mcpwb(&["traffic", "demo", "--json", "--config", &cfg]);
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines
            .iter()
            .any(|e| e["method"] == "server/discover" && e["direction"] == "outgoing")
    );
    assert!(lines.iter().any(|e| e["method"] == "tools/list"
        && e["kind"] == "response"
        && e["latency_ms"].is_number()));
}

/// The demo server over HTTP on a port the system picks; killed on drop.
struct HttpDemo {
    child: std::process::Child,
    addr: String,
}

impl Drop for HttpDemo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn http_demo(dir: &Path, extra: &[&str]) -> HttpDemo {
    let port_file = dir.join("addr");
    let child = Command::new(demo_server())
        .args(["--http", "127.0.0.1:0", "--port-file"])
        .arg(&port_file)
        .args(extra)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut demo = HttpDemo {
        child,
        addr: String::new(),
    };
    for _ in 0..400 {
        demo.addr = std::fs::read_to_string(&port_file).unwrap_or_default();
        if !demo.addr.is_empty() {
            return demo;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
    panic!("the HTTP demo server did not start");
}

/// A server's text cannot drive the terminal: escape sequences (a title
/// change, colours, a cursor move) are removed unless `--raw` asks for them.
#[test]
fn server_text_is_cleaned_of_terminal_control_sequences_unless_raw() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let hostile = "\u{1b}]0;pwned\u{7}plain \u{1b}[31mred\u{1b}[0m\u{1b}[2J done\u{9b}1A";
    let args = json!({ "message": hostile }).to_string();
    let out = mcpwb(&["call", "demo", "echo", "--args", &args, "--config", &cfg]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), "plain red done1A\n");
    let out = mcpwb(&[
        "call", "demo", "echo", "--args", &args, "--raw", "--config", &cfg,
    ]);
    assert_eq!(stdout(&out), format!("{hostile}\n"));
}

/// A server that says its secrets back: `mcpwb` prints them masked, in
/// human output, `--json` and `--raw` alike, and the log lines too.
#[test]
fn a_server_saying_its_secrets_back_is_masked_in_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mcp.json");
    let entry = json!({
        "command": demo_server(),
        "args": ["--name", "teller", "--fault", "tell-secrets", "--token", "${SERVICE_TOKEN}"],
        "env": { "K": "${SERVICE_API_KEY}" }
    });
    std::fs::write(
        &path,
        json!({ "mcpServers": { "teller": entry } }).to_string(),
    )
    .unwrap();
    let cfg = path.display().to_string();
    for extra in [&[][..], &["--json"], &["--raw"]] {
        let mut args = vec![
            "--trust",
            "call",
            "teller",
            "echo",
            "--args",
            r#"{"message":"x"}"#,
            "--config",
            &cfg,
        ];
        args.extend_from_slice(extra);
        let out = Command::new(BIN)
            .args(&args)
            .env_remove("MCPWB_CONFIG")
            .env("HOME", dir.path())
            .env("MCPWB_LOG", "debug")
            .env("SERVICE_TOKEN", "arg-secret-3141")
            .env("SERVICE_API_KEY", "env-secret-2718")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let (o, e) = (stdout(&out), stderr(&out));
        assert!(o.contains("args: --name teller"), "{o}");
        for s in ["arg-secret-3141", "env-secret-2718"] {
            assert!(
                !o.contains(s) && !e.contains(s),
                "{extra:?}: {s} shown:\n{o}\n{e}"
            );
        }
    }
}

/// Headless elicitation: declined by default (and not advertised), or
/// accepted with the schema's defaults (SEP-1034) and advertised.
#[test]
fn elicitation_is_declined_or_answered_with_defaults_and_advertised_so() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[]);
    let out = mcpwb(&["call", "demo", "ask_user", "--config", &cfg]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("action: decline"), "{}", stdout(&out));
    let out = mcpwb(&[
        "--elicitation",
        "defaults",
        "call",
        "demo",
        "ask_user",
        "--config",
        &cfg,
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(r#"action: accept; content: {"subscribe":false}"#),
        "{}",
        stdout(&out)
    );
    let sent = |extra: &[&str]| {
        let mut args = vec!["--json", "traffic", "demo", "--config", &cfg];
        args.extend_from_slice(extra);
        let out = mcpwb(&args);
        let first = stdout(&out).lines().next().unwrap_or_default().to_string();
        first.contains(r#"\"elicitation\":{\"form\""#)
    };
    assert!(!sent(&[]), "declining: elicitation not advertised");
    assert!(sent(&["--elicitation", "defaults"]), "defaults: advertised");
    let out = mcpwb(&[
        "--elicitation",
        "ask",
        "call",
        "demo",
        "ask_user",
        "--config",
        &cfg,
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "ask needs a terminal: {}",
        stderr(&out)
    );
}

/// A server's listed items keep every field, also those no library models.
#[test]
fn tools_json_keeps_fields_no_library_models() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = demo_config(dir.path(), &[("future", &["--fault", "future-fields"])]);
    let out = mcpwb(&["--json", "tools", "future", "--config", &cfg]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        v["tools"][0]["tool"]["execution"]["taskSupport"],
        "required"
    );
    assert_eq!(v["tools"][0]["tool"]["x-vendor"]["rating"], 5);
    let out = mcpwb(&["--json", "prompts", "future", "--config", &cfg]);
    assert!(
        stdout(&out).contains(r#""x-vendor":{"tone":"warm"}"#),
        "{}",
        stdout(&out)
    );
}
