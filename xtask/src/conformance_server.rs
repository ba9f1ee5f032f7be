//! `cargo xtask conformance --server`: the suite's server scenarios of each
//! revision's requirement set (`--requirements`), against the demo server
//! (`--conformance`: the fixtures the scenarios call) straight and through
//! the bridge (`mcpwb serve --http --no-token --only demo --bare`, the demo
//! server behind it over stdio). What fails the run: a required scenario the
//! demo fails straight, and a scenario that passes straight and fails
//! through the bridge — something the bridge lost. The demo also runs
//! behind two bridges, the inner one on stdio (`mcpwb serve` over stdio,
//! which the suite cannot drive itself). The reference
//! "everything" server from npm (2025-11-25), when set up, through the
//! bridge likewise.
//! The bridge talks to the demo server in its own era (2026-07-28) and to
//! the everything server on 2025-11-25 (its era). Both also run with
//! `mcpwb tap --to` in front (`conformance_tap.rs`), where every scenario
//! must end as straight.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::conformance_tap::{tap_differs, tap_in_front};
use crate::stages::Result;

pub(crate) struct Killed(pub(crate) Child);
impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Each scenario's (name, passed, "p/n" checks) from the suite's summary.
pub(crate) type Rows = Vec<(String, bool, String)>;

/// The suite's tools: Node, the suite's script, and `mcpwb`.
struct Tools<'a> {
    node: &'a Path,
    suite: &'a Path,
    mcpwb: &'a Path,
}

/// The suite's server scenarios a revision requires (scored and not), at
/// that revision, against `url`.
/// Extension scenarios the requirement sets leave out, run one by one at
/// the revision that defines them (SEP-2640 skills).
pub const EXTENSION_SCENARIOS: [(&str, &str); 3] = [
    ("2026-07-28", "sep-2640-skills-enumeration"),
    ("2026-07-28", "sep-2640-skills-manifest"),
    ("2026-07-28", "sep-2640-skills-directory"),
];

/// One extension scenario's row: passed when the suite says 0 failed.
fn run_extension(
    node: &Path,
    suite: &Path,
    url: &str,
    revision: &str,
    name: &str,
) -> Result<(String, bool, String)> {
    let out = Command::new(node)
        .arg(suite)
        .args(["server", "--url", url, "--scenario", name])
        // An extension is off the spec's timeline: run it at this revision.
        .args(["--spec-version", revision, "--force"])
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| format!("could not start the suite: {e}"))?;
    let text = crate::conformance::strip_ansi(&String::from_utf8_lossy(&out.stdout));
    let line = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("Passed: "))
        .ok_or(format!(
            "the suite said no result for {name} at {url}:\n{text}"
        ))?;
    let nums: Vec<u32> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let (passed, total, failed) = match nums.as_slice() {
        [p, t, f, ..] => (*p, *t, *f),
        _ => return Err(format!("{name}: cannot read \"{line}\"")),
    };
    // Skipped is not passed: a server that does not declare the extension
    // has every check skipped but the wire's.
    let own_checks = text
        .lines()
        .filter(|l| l.contains("SUCCESS") && !l.contains("wire-schema-valid"))
        .count();
    let checks = if own_checks == 0 {
        "skipped".to_string()
    } else {
        format!("{passed}/{total}")
    };
    Ok((name.to_string(), failed == 0 && own_checks > 0, checks))
}

fn run_suite(node: &Path, suite: &Path, url: &str, revision: &str) -> Result<Rows> {
    let mut rows = run_requirements(node, suite, url, revision)?;
    for (r, name) in EXTENSION_SCENARIOS {
        if r == revision {
            rows.push(run_extension(node, suite, url, revision, name)?);
        }
    }
    Ok(rows)
}

fn run_requirements(node: &Path, suite: &Path, url: &str, revision: &str) -> Result<Rows> {
    let out = Command::new(node)
        .arg(suite)
        .args(["server", "--url", url, "--requirements", revision])
        .env("NO_COLOR", "1")
        .output()
        .map_err(|e| format!("could not start the suite: {e}"))?;
    let text = crate::conformance::strip_ansi(&String::from_utf8_lossy(&out.stdout));
    let rows = crate::conformance::summary(&text);
    if rows.is_empty() {
        return Err(format!(
            "the suite reported no scenarios for {url}:\n{text}"
        ));
    }
    Ok(rows)
}

/// One server, straight and through each `mcpwb serve --bare` of
/// `bridges` (the mcp.json entry of what it serves, under `label`): per
/// revision, the results straight and through each bridge. `straight` is
/// started listening over HTTP and says its address through `addr`.
/// What stands in front of the server: bridges (each over an mcp.json
/// entry), then `mcpwb tap --to` when `tap_http`.
struct Fronts<'a> {
    bridges: &'a [String],
    tap_http: bool,
}

fn compare(
    label: &str,
    home: &Path,
    tools: &Tools<'_>,
    mut straight: Command,
    addr: impl Fn() -> Option<String>,
    fronts: Fronts<'_>,
    revisions: &[&'static str],
) -> Result<Vec<(&'static str, Rows, Vec<Rows>)>> {
    let Fronts { bridges, tap_http } = fronts;
    let Tools { node, suite, mcpwb } = tools;
    let server = Killed(
        straight
            .stderr(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("{label}: {e}"))?,
    );
    let mut direct_url = None;
    for _ in 0..400 {
        direct_url = addr();
        if direct_url.is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let direct_url = direct_url.ok_or(format!("{label} did not start"))?;
    let mut running = Vec::new();
    let mut urls = Vec::new();
    for (n, entry) in bridges.iter().enumerate() {
        let (bridge, url) = serve(label, n, entry, home, mcpwb)?;
        running.push(bridge);
        urls.push(url);
    }
    // The server straight, with `mcpwb tap --to` in front (the last column).
    if tap_http {
        let (tap, url) = tap_in_front(&direct_url, home, mcpwb)?;
        running.push(tap);
        urls.push(url);
    }
    println!(
        "{label} straight: {direct_url}   through bridges: {}",
        urls.join(", ")
    );
    // All at once: each its own server and suite, nothing shared; a
    // revision after the other.
    let mut out = Vec::new();
    for revision in revisions {
        let (direct, bridged) = std::thread::scope(|s| {
            let direct = s.spawn(|| run_suite(node, suite, &direct_url, revision));
            let bridged: Vec<_> = urls
                .iter()
                .map(|url| s.spawn(move || run_suite(node, suite, url, revision)))
                .collect();
            let join = |h: std::thread::ScopedJoinHandle<'_, Result<Rows>>| {
                h.join()
                    .unwrap_or_else(|_| Err("the suite's run panicked".into()))
            };
            (
                join(direct),
                bridged.into_iter().map(join).collect::<Vec<_>>(),
            )
        });
        out.push((
            *revision,
            direct?,
            bridged.into_iter().collect::<Result<Vec<_>>>()?,
        ));
    }
    drop((server, running));
    Ok(out)
}

/// `mcpwb serve --http 0 --no-token --only LABEL --bare` on an mcp.json
/// holding `entry` under `label`: the running bridge and its address.
fn serve(
    label: &str,
    n: usize,
    entry: &str,
    home: &Path,
    mcpwb: &Path,
) -> Result<(Killed, String)> {
    let config = home.join(format!("{label}-{n}.json"));
    std::fs::write(
        &config,
        format!(r#"{{ "mcpServers": {{ "{label}": {entry} }} }}"#),
    )
    .map_err(|e| e.to_string())?;
    let said = home.join(format!("{label}-{n}-serve.err"));
    let bridge = Killed(
        Command::new(mcpwb)
            .arg("--config")
            .arg(&config)
            .args([
                "--trust",
                "serve",
                "--http",
                "0",
                "--no-token",
                "--only",
                label,
                "--bare",
            ])
            .env("HOME", home)
            .env("MCPWB_KEYCHAIN", "keyutils")
            .env_remove("MCPWB_CONFIG")
            .stderr(std::fs::File::create(&said).map_err(|e| e.to_string())?)
            .spawn()
            .map_err(|e| format!("mcpwb serve: {e}"))?,
    );
    for _ in 0..400 {
        let text = std::fs::read_to_string(&said).unwrap_or_default();
        if let Some(u) = text
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
        {
            return Ok((bridge, u.to_string()));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Err("mcpwb serve --http did not say where it listens".into())
}

/// Print a revision's table (straight, then each bridge's column); what
/// failed the run: a scenario that passes straight but not through a
/// bridge, and (`own`: a server of ours) a scored scenario that fails
/// straight.
fn report(
    label: &str,
    revision: &str,
    direct: &Rows,
    bridged: &[(&str, &Rows)],
    scored: &[String],
    own: bool,
    differences: &[(String, String)],
) -> Vec<String> {
    let heads: String = bridged.iter().map(|(c, _)| format!(" {c} |")).collect();
    let rules = "---|".repeat(bridged.len());
    println!(
        "\n### {label} at {revision}\n\n| scenario | {label} straight |{heads}\n|---|---|{rules}"
    );
    let mut problems = Vec::new();
    let shown = |ok: bool, checks: &str| format!("{} {checks}", if ok { "pass" } else { "fail" });
    for (name, ok, checks) in direct {
        let counted = scored.contains(name);
        let shown_name = if counted {
            name.clone()
        } else {
            format!("{name} (not scored)")
        };
        let mut cells = String::new();
        let meant = differences.iter().any(|(r, s)| r == revision && s == name);
        let mut any_differs = false;
        for (column, rows) in bridged {
            let through = rows.iter().find(|(n, ..)| n == name);
            let cell = through
                .map(|(_, o, c)| shown(*o, c))
                .unwrap_or_else(|| "not run".into());
            cells.push_str(&format!(" {cell} |"));
            let differs = *ok && !through.is_some_and(|(_, o, _)| *o);
            any_differs |= differs;
            if differs && !meant {
                problems.push(format!(
                    "{label} {revision} {name}: passes straight, fails {column}"
                ));
            }
        }
        println!("| {shown_name} | {} |{cells}", shown(*ok, checks));
        if meant && !any_differs {
            problems.push(format!(
                "{label} {revision} {name}: listed in tests/conformance/bridge-differences.txt but no longer differs: take it off"
            ));
        }
        if own && counted && !ok {
            problems.push(format!(
                "{label} {revision} {name}: a required scenario fails straight"
            ));
        }
    }
    let count = |rows: &Rows, scored_only: bool| {
        rows.iter()
            .filter(|r| r.1 && (!scored_only || scored.contains(&r.0)))
            .count()
    };
    let required = direct.iter().filter(|r| scored.contains(&r.0)).count();
    let mut line = format!(
        "\n{label} at {revision}: required {}/{required} straight, all run {}/{}",
        count(direct, true),
        count(direct, false),
        direct.len()
    );
    for (column, rows) in bridged {
        line.push_str(&format!(
            "; {column}: required {}/{required}, all run {}/{}",
            count(rows, true),
            count(rows, false),
            rows.len()
        ));
    }
    println!("{line}");
    problems
}

/// Where the bridge differs from the server behind it on purpose
/// (`revision scenario  # why`, in tests/conformance/bridge-differences.txt).
fn differences(dir: &Path) -> Result<Vec<(String, String)>> {
    let path = dir.join("bridge-differences.txt");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(text
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim())
        .filter(|l| !l.is_empty())
        .filter_map(|l| {
            let (r, s) = l.split_once(char::is_whitespace)?;
            Some((r.to_string(), s.trim().to_string()))
        })
        .collect())
}

/// The scenarios `revision` scores for servers, and the extension ones.
fn scored(dir: &Path, revision: &str) -> Result<Vec<String>> {
    let mut all: Vec<String> = crate::conformance::required(dir, revision, "server")?
        .into_iter()
        .filter(|(_, scored)| *scored)
        .map(|(name, _)| name)
        .collect();
    // The extension scenarios we run count as ours to pass.
    all.extend(
        EXTENSION_SCENARIOS
            .iter()
            .filter(|(r, _)| *r == revision)
            .map(|(_, name)| name.to_string()),
    );
    Ok(all)
}

pub fn server(root: &Path) -> Result {
    crate::conformance::install(root)?;
    crate::tasks::test_build(root)?;
    let dir = root.join("tests/conformance");
    let node = crate::conformance::node(&dir)?;
    let suite = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let target = crate::cache::target_dir(root);
    let bin = target.join("debug");
    let mcpwb = bin.join("mcpwb");
    let home =
        std::env::temp_dir().join(format!("mcpwb-conformance-server-{}", std::process::id()));
    std::fs::create_dir_all(&home).map_err(|e| e.to_string())?;
    let mut lost = Vec::new();
    let tools = Tools {
        node: &node,
        suite: &suite,
        mcpwb: &mcpwb,
    };

    // The demo server, upstream in its own era (2026-07-28: resource
    // subscriptions go through the core's subscriptions/listen stream).
    let demo = bin.join("mcp-demo-server");
    let port_file = home.join("demo-addr");
    let mut straight = Command::new(&demo);
    straight
        .args([
            "--http",
            "127.0.0.1:0",
            "--name",
            "demo",
            "--conformance",
            "--port-file",
        ])
        .arg(&port_file);
    let entry = format!(
        r#"{{ "command": {:?}, "args": ["--name", "demo", "--conformance"] }}"#,
        demo.display().to_string()
    );
    let addr = || {
        std::fs::read_to_string(&port_file)
            .ok()
            .filter(|t| !t.trim().is_empty())
            .map(|t| format!("http://{}/mcp", t.trim()))
    };
    // Behind a second bridge too, the inner one over stdio: what
    // `mcpwb serve` on stdio loses shows there (the suite speaks HTTP only).
    let inner_config = home.join("demo-inner.json");
    std::fs::write(
        &inner_config,
        format!(r#"{{ "mcpServers": {{ "demo": {entry} }} }}"#),
    )
    .map_err(|e| e.to_string())?;
    let chained = format!(
        r#"{{ "command": {:?}, "args": ["--config", {:?}, "--trust", "serve", "--only", "demo", "--bare"], "env": {{ "HOME": {:?}, "MCPWB_KEYCHAIN": "keyutils" }} }}"#,
        mcpwb.display().to_string(),
        inner_config.display().to_string(),
        home.display().to_string()
    );
    // The server behind `mcpwb tap` (stdio), behind the bridge: a scenario
    // that passes through the bridge alone and fails here is what the tap
    // changed on the way (it must pass every byte as it came).
    let tapped = format!(
        r#"{{ "command": {:?}, "args": ["tap", "--", {:?}, "--name", "demo", "--conformance"], "env": {{ "HOME": {:?}, "MCPWB_DATA_DIR": {:?} }} }}"#,
        mcpwb.display().to_string(),
        demo.display().to_string(),
        home.display().to_string(),
        home.join("data").display().to_string()
    );
    let revisions = crate::conformance::REVISIONS;
    let differences = differences(&dir)?;
    let bridges = [entry, chained, tapped];
    let runs = compare(
        "demo",
        &home,
        &tools,
        straight,
        addr,
        Fronts {
            bridges: &bridges,
            tap_http: true,
        },
        &revisions,
    )?;
    for (revision, d, b) in runs {
        let scored = scored(&dir, revision)?;
        lost.extend(report(
            "demo",
            revision,
            &d,
            &[
                ("through the bridge", &b[0]),
                ("through two bridges (stdio inside)", &b[1]),
                ("through the bridge, the server behind mcpwb tap", &b[2]),
                ("through mcpwb tap --to (HTTP)", &b[3]),
            ],
            &scored,
            true,
            &differences,
        ));
        lost.extend(tap_differs("demo", revision, &d, &b[3]));
    }

    // The reference "everything" server from npm (set up by cargo xtask test).
    let everything = target.join("third-party/node_modules/.bin/mcp-server-everything");
    if everything.exists() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| e.to_string())?;
        let mut straight = Command::new(&everything);
        straight.arg("streamableHttp").env("PORT", port.to_string());
        let entry = format!(
            r#"{{ "command": {:?}, "args": ["stdio"], "protocolVersion": "2025-11-25" }}"#,
            everything.display().to_string()
        );
        let url = format!("http://127.0.0.1:{port}/mcp");
        let addr = || {
            std::net::TcpStream::connect(("127.0.0.1", port))
                .ok()
                .map(|_| url.clone())
        };
        let runs = compare(
            "everything",
            &home,
            &tools,
            straight,
            addr,
            Fronts {
                bridges: &[entry],
                tap_http: true,
            },
            &["2025-11-25"],
        )?;
        for (revision, d, b) in runs {
            let scored = scored(&dir, revision)?;
            lost.extend(report(
                "everything",
                revision,
                &d,
                &[
                    ("through the bridge", &b[0]),
                    ("through mcpwb tap --to (HTTP)", &b[1]),
                ],
                &scored,
                false,
                &[],
            ));
            lost.extend(tap_differs("everything", revision, &d, &b[1]));
        }
    } else {
        println!(
            "(the third-party everything server is not installed: cargo xtask test sets it up)"
        );
    }
    let _ = std::fs::remove_dir_all(&home);
    if lost.is_empty() {
        Ok(())
    } else {
        Err(lost.join("; "))
    }
}
