//! `mcpwb registry` against the test kit's stand-in for the MCP Registry
//! (the v0.1 API over real loopback HTTP): search and its pages, a
//! server's versions, the entry it would become, and adding one — written
//! as shown, trusted as written, started from its real package (npm
//! through npx, PyPI through uvx) where `cargo xtask test` installed them.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use workbench_testkit::registry::{StandIn, fixtures};

use super::tap::in_home;
use super::{stderr, stdout};

fn registry(dir: &Path, url: &str, args: &[&str]) -> std::process::Output {
    in_home(dir)
        .args(["--config"])
        .arg(dir.join("mcp.json"))
        .args(["registry", "--registry", url])
        .args(args)
        .output()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_pages_marks_the_deprecated_and_shows_the_entry_a_server_becomes() {
    let stand_in = StandIn::start(&fixtures()).await.unwrap();
    let url = stand_in.url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let all = registry(d, &url, &["search"]);
    assert!(all.status.success(), "{}", stderr(&all));
    let text = stdout(&all);
    assert_eq!(text.lines().count(), 5, "{text}");
    assert!(
        !text.contains("gone"),
        "a deleted server is never listed: {text}"
    );
    // Two a page: the cursor printed takes the next page.
    let first = stdout(&registry(d, &url, &["search", "--limit", "2"]));
    let more = first
        .lines()
        .find_map(|l| l.split("--cursor '").nth(1))
        .map(|c| c.trim_end_matches('\'').to_string())
        .unwrap_or_else(|| panic!("no cursor said: {first}"));
    let second = stdout(&registry(
        d,
        &url,
        &["search", "--limit", "2", "--cursor", &more],
    ));
    assert!(
        second
            .lines()
            .next()
            .unwrap()
            .starts_with("io.github.example/weather"),
        "{second}"
    );
    let found = stdout(&registry(d, &url, &["search", "forecasts"]));
    assert!(
        found.starts_with("io.github.example/weather 1.4.0"),
        "{found}"
    );
    let versions = stdout(&registry(
        d,
        &url,
        &["show", "io.modelcontextprotocol/everything", "--versions"],
    ));
    assert!(
        versions.contains("2025.9.25") && versions.contains("[deprecated: Use 2026.8.31"),
        "{versions}"
    );
    let shown = stdout(&registry(d, &url, &["show", "io.github.example/weather"]));
    for said in [
        "package 2: oci example/weather-mcp 1.4.0",
        "\"mcp-weather-example==1.4.0\"",
        "asks for weather-weather-api-key (secret, kept in the keychain)",
        "asks for weather-units (one of metric, imperial, default metric)",
    ] {
        assert!(shown.contains(said), "{said} not in: {shown}");
    }
    let json = registry(
        d,
        &url,
        &[
            "--json",
            "show",
            "io.github.example/weather",
            "--package",
            "2",
        ],
    );
    let v: Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["preview"]["entry"]["command"], "docker");
    let unknown = registry(d, &url, &["show", "io.github.nobody/nothing"]);
    assert!(!unknown.status.success());
    assert!(
        stderr(&unknown).contains("no server named io.github.nobody/nothing"),
        "{}",
        stderr(&unknown)
    );
    assert!(!d.join("mcp.json").exists(), "looking writes nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adding_writes_the_entry_as_shown_with_its_answers_in_the_keychain_and_refuses_what_it_must()
 {
    let stand_in = StandIn::start(&fixtures()).await.unwrap();
    let url = stand_in.url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A deprecated version is refused unless asked for.
    let old = registry(
        d,
        &url,
        &[
            "add",
            "io.modelcontextprotocol/everything",
            "--version",
            "2025.9.25",
        ],
    );
    assert!(!old.status.success());
    assert!(stderr(&old).contains("deprecated"), "{}", stderr(&old));
    // A value outside a pick list is refused, and nothing is written.
    let wrong = registry(
        d,
        &url,
        &[
            "add",
            "io.github.example/weather",
            "--input",
            "weather-units=kelvin",
        ],
    );
    assert!(!wrong.status.success());
    assert!(
        stderr(&wrong).contains("not one of weather-units's choices: metric, imperial"),
        "{}",
        stderr(&wrong)
    );
    assert!(!d.join("mcp.json").exists());
    let added = registry(
        d,
        &url,
        &[
            "add",
            "io.github.example/weather",
            "--input",
            "weather-units=imperial",
            "--input",
            "weather-weather-api-key=sk-registry-test",
        ],
    );
    assert!(added.status.success(), "{}", stderr(&added));
    let said = stdout(&added);
    assert!(
        said.contains("added weather (io.github.example/weather 1.4.0)"),
        "{said}"
    );
    // Asked still: what was not given.
    assert!(said.contains("mcpwb config input weather-region"), "{said}");
    assert!(!said.contains("config input weather-units"), "{said}");
    let file = std::fs::read_to_string(d.join("mcp.json")).unwrap();
    assert!(file.contains("mcp-weather-example==1.4.0"), "{file}");
    assert!(
        !file.contains("sk-registry-test"),
        "a secret never goes into the file: {file}"
    );
    // The same name again: refused, told how.
    let again = registry(d, &url, &["add", "io.github.example/weather"]);
    assert!(stderr(&again).contains("--as NAME"), "{}", stderr(&again));
    let other = registry(
        d,
        &url,
        &["add", "io.github.example/weather", "--as", "weather2"],
    );
    assert!(other.status.success(), "{}", stderr(&other));
    // Values named as server.json names them (the key's variable, a
    // template's part); one it gives a default takes it, and says so.
    let named = registry(
        d,
        &url,
        &[
            "add",
            "io.github.example/weather",
            "--as",
            "weather3",
            "--input",
            "WEATHER_API_KEY=sk-named",
            "--input",
            "region=eu",
        ],
    );
    assert!(named.status.success(), "{}", stderr(&named));
    let said = format!("{}{}", stdout(&named), stderr(&named));
    assert!(
        said.contains(
            "weather-units is metric, its default (change it: mcpwb config input weather-units)"
        ),
        "{said}"
    );
    for given in [
        "weather-weather-api-key",
        "weather-region",
        "it needs Units",
    ] {
        assert!(!said.contains(given), "{given} is answered: {said}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adding_into_a_hosts_file_writes_its_dialect_and_asks_before_a_secret_goes_in_as_text() {
    let stand_in = StandIn::start(&fixtures()).await.unwrap();
    let url = stand_in.url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let claude = d.join("claude_desktop_config.json");
    let mine = "{\n  // my servers\n  \"mcpServers\": {\n    \"fs\": { \"command\": \"fs-server\" }\n  }\n}\n";
    std::fs::write(&claude, mine).unwrap();
    let host = claude.display().to_string();
    let base = [
        "add",
        "io.github.example/weather",
        "--in",
        host.as_str(),
        "--input",
        "weather-cache-dir=/var/cache/weather",
    ];
    // Claude Desktop asks for nothing itself: each value now, or refused.
    let short = registry(d, &url, &base);
    assert!(!short.status.success());
    assert!(
        stderr(&short).contains("--input weather-weather-api-key=VALUE")
            && stderr(&short).contains("--input weather-region=VALUE"),
        "{}",
        stderr(&short)
    );
    let with = |extra: &[&str]| {
        let mut args: Vec<&str> = base.to_vec();
        args.extend_from_slice(&[
            "--input",
            "weather-region=us",
            "--input",
            "weather-weather-api-key=sk-host-test",
        ]);
        args.extend_from_slice(extra);
        registry(d, &url, &args)
    };
    // A secret as plain text: not without the person's word.
    let unasked = with(&[]);
    assert!(!unasked.status.success());
    assert!(
        stderr(&unasked).contains("as plain text") && stderr(&unasked).contains("--plain-text"),
        "{}",
        stderr(&unasked)
    );
    assert_eq!(
        std::fs::read_to_string(&claude).unwrap(),
        mine,
        "nothing written on a refusal"
    );
    let added = with(&["--plain-text"]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert!(
        stderr(&added).contains("written into"),
        "{}",
        stderr(&added)
    );
    let text = std::fs::read_to_string(&claude).unwrap();
    assert!(
        text.starts_with("{\n  // my servers\n"),
        "the person's bytes kept: {text}"
    );
    let v: Value = json5_like(&text);
    let entry = &v["mcpServers"]["weather"];
    assert_eq!(entry["command"], "uvx", "{text}");
    assert!(
        entry["args"]
            .to_string()
            .contains("mcp-weather-example==1.4.0"),
        "{text}"
    );
    assert!(
        entry["args"].to_string().contains("/var/cache/weather"),
        "{text}"
    );
    assert!(
        entry["args"].to_string().contains("metric"),
        "a choice left out takes its default: {text}"
    );
    assert_eq!(entry["env"]["WEATHER_REGION"], "us-1");
    assert_eq!(entry["env"]["WEATHER_API_KEY"], "sk-host-test");
    assert_eq!(v["mcpServers"]["fs"]["command"], "fs-server");
    assert!(
        !d.join("mcp.json").exists(),
        "the workbench's own file untouched"
    );

    // VS Code asks for its secrets itself: the key stays an input, declared.
    let vscode = d.join("project/.vscode/mcp.json");
    let out = registry(
        d,
        &url,
        &[
            "add",
            "io.github.example/weather",
            "--in",
            vscode.to_str().unwrap(),
            "--input",
            "weather-region=eu",
            "--input",
            "weather-cache-dir=/tmp/w",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = json5_like(&std::fs::read_to_string(&vscode).unwrap());
    assert_eq!(
        v["servers"]["weather"]["env"]["WEATHER_API_KEY"],
        "${input:weather-weather-api-key}"
    );
    assert_eq!(v["servers"]["weather"]["env"]["WEATHER_REGION"], "eu-1");
    assert_eq!(v["inputs"][0]["id"], "weather-weather-api-key");
    assert_eq!(v["inputs"][0]["password"], true);

    // Goose's YAML: the entry under its extensions, every other line kept.
    let goose = d.join("home/.config/goose/config.yaml");
    std::fs::create_dir_all(goose.parent().unwrap()).unwrap();
    let mine = "# my goose\nGOOSE_PROVIDER: openai\nextensions:\n  developer:\n    enabled: true\n    type: builtin\n";
    std::fs::write(&goose, mine).unwrap();
    let out = registry(
        d,
        &url,
        &[
            "add",
            "io.github.example/weather",
            "--in",
            goose.to_str().unwrap(),
            "--input",
            "weather-region=eu",
            "--input",
            "weather-cache-dir=/tmp/w",
            "--input",
            "weather-weather-api-key=sk-goose",
            "--plain-text",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let text = std::fs::read_to_string(&goose).unwrap();
    assert!(
        text.starts_with("# my goose\nGOOSE_PROVIDER: openai\nextensions:\n"),
        "{text}"
    );
    assert!(
        text.ends_with("  developer:\n    enabled: true\n    type: builtin\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  weather:\n")
            && text.contains("WEATHER_API_KEY: sk-goose\n")
            && text.contains("WEATHER_REGION: eu-1\n"),
        "{text}"
    );

    // Codex reads a secret from its own environment: its file names the
    // variable, never the value given, and says which to set.
    let codex = d.join("home/.codex/config.toml");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    std::fs::write(&codex, "# mine\nmodel = \"gpt-5-codex\"\n").unwrap();
    // Into a host that reads secrets from its environment: the key given
    // is not written, the variable to set is said.
    let from_env = |host: &str, starts: &str| {
        let out = registry(
            d,
            &url,
            &[
                "add",
                "io.github.example/weather",
                "--in",
                host,
                "--input",
                "weather-region=eu",
                "--input",
                "weather-cache-dir=/tmp/w",
                "--input",
                "WEATHER_API_KEY=sk-not-in-the-file",
            ],
        );
        assert!(out.status.success(), "{}", stderr(&out));
        let said = format!(
            "names WEATHER_API_KEY, not its value: set WEATHER_API_KEY in the environment {starts} starts in"
        );
        assert!(stderr(&out).contains(&said), "{}", stderr(&out));
    };
    from_env("codex", "Codex");
    let text = std::fs::read_to_string(&codex).unwrap();
    assert!(
        text.starts_with("# mine\nmodel = \"gpt-5-codex\"\n"),
        "{text}"
    );
    assert!(
        text.contains("[mcp_servers.weather]\n")
            && text.contains("env_vars = [\"WEATHER_API_KEY\"]")
            && text.contains("WEATHER_REGION = \"eu-1\"")
            && !text.contains("sk-not-in-the-file"),
        "{text}"
    );
    // So does Gemini CLI, started from a shell: its file gets `${VAR}`.
    let gemini = d.join("home/.gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    std::fs::write(&gemini, "{ \"theme\": \"Dracula\" }\n").unwrap();
    from_env("gemini", "Gemini CLI");
    let v = json5_like(&std::fs::read_to_string(&gemini).unwrap());
    assert_eq!(
        v["mcpServers"]["weather"]["env"]["WEATHER_API_KEY"],
        "${WEATHER_API_KEY}"
    );
    assert_eq!(v["theme"], "Dracula");
}

/// A host's file as JSON (its comments dropped).
fn json5_like(text: &str) -> Value {
    let plain: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    serde_json::from_str(&plain).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// Where the package managers keep what they fetched across runs (beside
/// the third-party servers `cargo xtask test` installs).
fn package_cache(kind: &str) -> Option<PathBuf> {
    let third = std::env::var_os("MCPWB_THIRD_PARTY")?;
    Some(Path::new(&third).parent()?.join(kind))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_added_from_the_registry_starts_from_its_real_package() {
    let (Some(npm_cache), Some(python)) = (package_cache("npm-cache"), super::python()) else {
        eprintln!(
            "MCPWB_THIRD_PARTY or MCPWB_PYTHON is not set: the real packages are not started (cargo xtask test sets them)"
        );
        return;
    };
    let stand_in = StandIn::start(&fixtures()).await.unwrap();
    let url = stand_in.url();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for name in [
        "io.modelcontextprotocol/everything",
        "io.modelcontextprotocol/time",
    ] {
        let added = registry(d, &url, &["add", name]);
        assert!(added.status.success(), "{}", stderr(&added));
    }
    // uvx from the test kit's Python (never a Python downloaded for it).
    let bin = Path::new(&python).parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        let mut c: Command = in_home(d);
        c.args(["--timeout", "300", "--config"])
            .arg(d.join("mcp.json"))
            .args(args)
            .env("PATH", &path)
            .env("npm_config_cache", &npm_cache)
            .env("UV_CACHE_DIR", package_cache("uv-cache").unwrap())
            .env("UV_PYTHON", &python)
            .env("UV_PYTHON_DOWNLOADS", "never");
        c.output().unwrap()
    };
    // As found: no --trust. The person added them: trusted as written.
    let tools = run(&["tools", "everything"]);
    assert!(tools.status.success(), "{}", stderr(&tools));
    assert!(stdout(&tools).contains("echo"), "{}", stdout(&tools));
    let time = run(&[
        "call",
        "time",
        "get_current_time",
        "--args",
        r#"{"timezone": "Europe/Paris"}"#,
    ]);
    assert!(time.status.success(), "{}", stderr(&time));
    assert!(stdout(&time).contains("Europe/Paris"), "{}", stdout(&time));
}
