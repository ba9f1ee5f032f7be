//! What a cloned repository's suites may try through `mcpwb test`, played
//! for real against the person's own servers (a hand-written server whose
//! every call is written down): nothing runs before the person trusts the
//! suite, Deny and destructive marks hold after, nothing is read or
//! written through a planted link, and no secret lands in what a suite
//! writes (the table: `tests/hostile/README.md`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use super::{BIN, demo_server, stderr, stdout};

const SECRET: &str = "AKIAplantedSecret0123456789";

struct Home {
    home: tempfile::TempDir,
    clone: tempfile::TempDir,
}

impl Home {
    /// The person's own config (one server, `mine`, a tool of every hint)
    /// and settings, and a clone with a suites folder.
    fn new(policies: Value) -> Home {
        let home = tempfile::tempdir().unwrap();
        let own = home.path().join(".config/mcp-workbench");
        std::fs::create_dir_all(&own).unwrap();
        let calls = home.path().join("calls.log");
        std::fs::write(
            own.join("mcp.json"),
            json!({ "mcpServers": { "mine": {
                "command": demo_server(), "args": ["--fault", "hinted"],
                "env": { "MCP_DEMO_CALLS": calls }
            } } })
            .to_string(),
        )
        .unwrap();
        std::fs::write(
            home.path().join("settings.json"),
            json!({ "agent": { "providers": [], "tool_policies": policies } }).to_string(),
        )
        .unwrap();
        let clone = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(clone.path().join(".mcp-workbench/suites")).unwrap();
        Home { home, clone }
    }

    fn suites(&self) -> PathBuf {
        self.clone.path().join(".mcp-workbench/suites")
    }

    fn calls(&self) -> String {
        std::fs::read_to_string(self.home.path().join("calls.log")).unwrap_or_default()
    }

    /// A bare `mcpwb test` in the clone (the person's own config trusted):
    /// `extra` holds "test" and what goes before and after it.
    fn test(&self, extra: &[&str]) -> std::process::Output {
        self.mcpwb(extra)
    }

    /// `mcpwb --trust --timeout 10 ARGS` in the clone.
    fn mcpwb(&self, args: &[&str]) -> std::process::Output {
        let h = self.home.path();
        Command::new(BIN)
            .args(["--trust", "--timeout", "10"])
            .args(args)
            .current_dir(self.clone.path())
            .env_remove("MCPWB_CONFIG")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_DATA_HOME")
            .env("HOME", h)
            .env("MCPWB_DATA_DIR", h.join("data"))
            .env("MCPWB_SETTINGS", h.join("settings.json"))
            .env("AWS_SECRET_ACCESS_KEY", SECRET)
            .output()
            .unwrap()
    }
}

const EVIL: &str = r#"{ "server": "mine", "cases": [
  { "name": "denied", "tool": "lookup", "arguments": { "key": "${env:AWS_SECRET_ACCESS_KEY}" } },
  { "name": "destroys", "tool": "wipe" },
  { "name": "leaks", "tool": "note", "arguments": { "t": "${env:AWS_SECRET_ACCESS_KEY}" },
    "expect": { "snapshot": true, "text": { "contains": "nothing like this" } } }
] }"#;

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(files_under(&p));
        } else if e.file_type().is_ok_and(|t| t.is_file()) {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_cloned_suite_runs_nothing_until_trusted_and_deny_destructive_and_secrets_hold() {
    let h = Home::new(json!({ "mine/lookup": "deny" }));
    std::fs::write(h.suites().join("evil.json"), EVIL).unwrap();

    // Untrusted: exit 4, what it would call and read is said, nothing ran.
    let out = h.test(&["test"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(4), "{err}{}", stdout(&out));
    assert!(
        err.contains("not trusted") && err.contains("evil.json"),
        "{err}"
    );
    assert!(
        err.contains("mine/lookup") && err.contains("mine/wipe"),
        "{err}"
    );
    assert!(err.contains("${env:AWS_SECRET_ACCESS_KEY}"), "{err}");
    assert!(err.contains("--trust-suites"), "{err}");
    assert_eq!(h.calls(), "", "the clone's suite called a tool");

    // Trusted for CI: the Deny and the destructive mark still hold.
    let junit = h.clone.path().join("junit.xml");
    let junit_arg = junit.display().to_string();
    let out = h.test(&["--json", "test", "--trust-suites", "--junit", &junit_arg]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    let calls = h.calls();
    assert!(!calls.contains("lookup"), "a denied tool ran: {calls}");
    assert!(!calls.contains("wipe"), "a destructive tool ran: {calls}");
    assert!(calls.starts_with("note "), "{calls}");
    let report: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let cases = &report["report"]["suites"][0]["cases"];
    let message = |i: usize| {
        cases[i]["failures"][0]["message"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert!(message(0).contains("denied in Settings"), "{}", message(0));
    assert!(message(1).contains("marked destructive"), "{}", message(1));
    // The secret reached the server (the person trusted the suite) but
    // nothing the run wrote or printed holds it.
    assert!(calls.contains(SECRET));
    assert!(!text.contains(SECRET), "--json printed the secret: {text}");
    assert!(!stderr(&out).contains(SECRET));
    let mut written = vec![junit.clone()];
    written.extend(files_under(&h.suites()));
    written.extend(files_under(&h.home.path().join("data")));
    for f in written {
        let bytes = std::fs::read(&f).unwrap();
        let found = bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes());
        assert!(!found, "{} holds the secret", f.display());
    }
    let snap = std::fs::read_to_string(h.suites().join("__snapshots__/evil.json")).unwrap();
    assert!(snap.contains("called note"), "{snap}");

    // A rule the person set lets the destructive tool run from a suite.
    std::fs::write(
        h.home.path().join("settings.json"),
        json!({ "agent": { "providers": [], "tool_policies": { "mine/lookup": "deny", "mine/wipe": "allow" } } }).to_string(),
    )
    .unwrap();
    let out = h.test(&["test", "--case", "destroys"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(h.calls().contains("wipe"));

    // A later pull that changes a byte asks again.
    std::fs::write(
        h.suites().join("evil.json"),
        EVIL.replace("destroys", "destroys!"),
    )
    .unwrap();
    let before = h.calls();
    let out = h.test(&["test"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_eq!(h.calls(), before);
}

#[test]
fn snapshots_and_junit_are_never_read_or_written_through_a_planted_link() {
    let h = Home::new(json!({}));
    let suite = r#"{ "server": "mine", "cases": [
      { "name": "kept", "tool": "note", "arguments": { "t": "x" }, "expect": { "snapshot": true } } ] }"#;
    std::fs::write(h.suites().join("s.json"), suite).unwrap();
    // `__snapshots__/s.json -> ~/.ssh/authorized_keys`, and the JUnit file
    // a link to another of the person's files.
    let keys = h.home.path().join("authorized_keys");
    std::fs::write(&keys, "ssh-ed25519 AAAA the-persons-key\n").unwrap();
    let docker = h.home.path().join("docker-config.json");
    std::fs::write(&docker, r#"{"auths": {"x": {"auth": "c2VjcmV0"}}}"#).unwrap();
    std::fs::create_dir(h.suites().join("__snapshots__")).unwrap();
    std::os::unix::fs::symlink(&keys, h.suites().join("__snapshots__/s.json")).unwrap();
    let junit = h.clone.path().join("report.xml");
    std::os::unix::fs::symlink(&docker, &junit).unwrap();
    let junit_arg = junit.display().to_string();

    let out = h.test(&["test", "--trust-suites", "--junit", &junit_arg]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(&keys).unwrap(),
        "ssh-ed25519 AAAA the-persons-key\n",
        "the snapshot was written through the link"
    );
    assert!(
        std::fs::read_to_string(&docker)
            .unwrap()
            .contains("c2VjcmV0")
    );
    assert!(!stdout(&out).contains("the-persons-key"));
    // What was written is a private file where the links were.
    use std::os::unix::fs::PermissionsExt;
    for f in [h.suites().join("__snapshots__/s.json"), junit.clone()] {
        let m = std::fs::symlink_metadata(&f).unwrap();
        assert!(m.file_type().is_file(), "{}", f.display());
        assert_eq!(m.permissions().mode() & 0o777, 0o600, "{}", f.display());
    }

    // A link to credentials read as the stored snapshot never reaches a diff.
    std::fs::remove_file(h.suites().join("__snapshots__/s.json")).unwrap();
    std::os::unix::fs::symlink(&docker, h.suites().join("__snapshots__/s.json")).unwrap();
    let out = h.test(&["test"]);
    assert!(!stdout(&out).contains("c2VjcmV0"), "{}", stdout(&out));

    // A `__snapshots__` folder leading elsewhere: refused, nothing written there.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(h.suites().join("__snapshots__")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), h.suites().join("__snapshots__")).unwrap();
    let out = h.test(&["test", "--update-snapshots"]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("leads outside the suite's folder"),
        "{}",
        stdout(&out)
    );
    assert!(
        std::fs::read_dir(elsewhere.path())
            .unwrap()
            .next()
            .is_none()
    );

    // A suite file that is itself a link in the folder is not read.
    std::os::unix::fs::symlink(&keys, h.suites().join("linked.json")).unwrap();
    let out = h.test(&["test"]);
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
}

#[test]
fn the_probe_calls_only_what_the_persons_rules_allow() {
    let h = Home::new(json!({}));
    let out = h.mcpwb(&["doctor", "--probe", "mine"]);
    let text = stdout(&out);
    let calls = h.calls();
    assert!(calls.contains("lookup"), "{calls}\n{text}{}", stderr(&out));
    assert!(
        !calls.contains("wipe") && !calls.contains("note"),
        "{calls}"
    );
    assert!(
        !calls.contains("search_web"),
        "an open-world tool was probed: {calls}"
    );
    assert!(text.contains("not probed  search_web"), "{text}");
    assert!(
        stderr(&out).contains("the probe calls 1 of mine's 2 read-only tools: lookup"),
        "{}",
        stderr(&out)
    );

    // Denied in Settings: not probed.
    std::fs::write(
        h.home.path().join("settings.json"),
        json!({ "agent": { "providers": [], "tool_policies": { "mine/lookup": "deny" } } })
            .to_string(),
    )
    .unwrap();
    let before = h.calls();
    let out = h.mcpwb(&["doctor", "--probe", "mine"]);
    assert_eq!(h.calls(), before, "a denied tool was probed");
    assert!(
        stdout(&out).contains("not probed  lookup"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("denied in Settings"),
        "{}",
        stdout(&out)
    );

    // A project's server: its read-only mark is not taken at its word.
    let project_calls = h.home.path().join("project-calls.log");
    std::fs::write(
        h.clone.path().join(".mcp.json"),
        json!({ "mcpServers": { "theirs": {
            "command": demo_server(), "args": ["--fault", "hinted"],
            "env": { "MCP_DEMO_CALLS": project_calls }
        } } })
        .to_string(),
    )
    .unwrap();
    let project = h.clone.path().display().to_string();
    let out = h.mcpwb(&["--project", &project, "doctor", "--probe", "theirs"]);
    let text = stdout(&out);
    assert!(
        !project_calls.exists(),
        "a project's tool was probed: {text}"
    );
    assert!(
        text.contains("not taken at its word"),
        "{text}{}",
        stderr(&out)
    );
}
