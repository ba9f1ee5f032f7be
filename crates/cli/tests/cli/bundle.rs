//! `mcpwb bundle` on a real bundle packed by the official `mcpb` CLI (from
//! npm, installed by `cargo xtask test`): shown, refused without a required
//! value (nothing left behind), installed — started, its secret in the
//! keychain and not the file — and removed cleanly; and hostile ZIPs (a
//! path out of the folder, a link) refused whole.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use super::tap::in_home;
use super::{demo_server, stderr, stdout};

fn mcpwb(d: &Path, args: &[&str]) -> std::process::Output {
    in_home(d)
        .arg("--config")
        .arg(d.join("mcp.json"))
        .args(args)
        .output()
        .unwrap()
}

pub(super) fn mcpb() -> Option<PathBuf> {
    let third = std::env::var_os("MCPWB_THIRD_PARTY")?;
    let bin = Path::new(&third).join("node_modules/.bin/mcpb");
    bin.exists().then_some(bin)
}

/// The demo server packed as a bundle by `mcpb pack` (a token it asks for).
pub(super) fn pack_demo(mcpb: &Path, d: &Path) -> PathBuf {
    let src = d.join("src");
    std::fs::create_dir_all(src.join("server")).unwrap();
    std::fs::copy(demo_server(), src.join("server/mcp-demo-server")).unwrap();
    std::fs::write(
        src.join("manifest.json"),
        json!({
            "manifest_version": "0.3", "name": "demo-bundle", "display_name": "Demo (bundled)",
            "version": "0.1.0", "description": "The demo server, as a bundle",
            "author": { "name": "Workbench tests" },
            "server": {
                "type": "binary", "entry_point": "server/mcp-demo-server",
                "mcp_config": {
                    "command": "${__dirname}/server/mcp-demo-server",
                    "args": ["--name", "${user_config.label}"],
                    "env": { "DEMO_TOKEN": "${user_config.token}" }
                }
            },
            "tools": [{ "name": "echo", "description": "Echo" }],
            "user_config": {
                "label": { "type": "string", "title": "Label", "description": "The name it answers with", "default": "bundled" },
                "token": { "type": "string", "title": "Token", "description": "A token", "sensitive": true, "required": true }
            }
        })
        .to_string(),
    )
    .unwrap();
    let file = d.join("demo.mcpb");
    let packed = Command::new(mcpb)
        .arg("pack")
        .arg(&src)
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        packed.status.success(),
        "mcpb pack: {}{}",
        stdout(&packed),
        stderr(&packed)
    );
    file
}

#[test]
fn a_bundle_packed_by_mcpb_installs_starts_keeps_its_secret_and_is_removed_cleanly() {
    let Some(mcpb) = mcpb() else {
        eprintln!("MCPWB_THIRD_PARTY has no mcpb (cargo xtask test installs it): skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let file = pack_demo(&mcpb, d);
    let file = file.to_str().unwrap();

    let shown = mcpwb(d, &["bundle", "show", file]);
    let text = stdout(&shown);
    assert!(
        text.contains(
            "publisher: Workbench tests (its manifest says); signature: unsigned: nobody vouches for who made it"
        ),
        "{text}"
    );
    assert!(
        text.contains("asks for token (string, required, secret, kept in the keychain)"),
        "{text}"
    );

    let refused = mcpwb(d, &["bundle", "install", file]);
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("it needs Token (token)"),
        "{}",
        stderr(&refused)
    );
    assert!(
        !d.join("home/data/bundles/demo-bundle").exists(),
        "nothing left behind"
    );

    let wrong = mcpwb(
        d,
        &[
            "bundle",
            "install",
            file,
            "--set",
            "token=x",
            "--sha256",
            &"0".repeat(64),
        ],
    );
    assert!(
        stderr(&wrong).contains("is not the file published"),
        "{}",
        stderr(&wrong)
    );

    let installed = mcpwb(
        d,
        &[
            "bundle",
            "install",
            file,
            "--set",
            "token=sk-bundle-secret",
            "--set",
            "label=from-bundle",
        ],
    );
    assert!(installed.status.success(), "{}", stderr(&installed));
    let config = std::fs::read_to_string(d.join("mcp.json")).unwrap();
    assert!(
        !config.contains("sk-bundle-secret"),
        "the secret is in the keychain: {config}"
    );
    assert!(config.contains("${input:demo-bundle-token}"), "{config}");
    // Installed by the person: it starts as found (no --trust).
    let servers = mcpwb(d, &["servers"]);
    let line = stdout(&servers);
    assert!(
        line.contains("demo-bundle\tready\tfrom-bundle 0.1.0"),
        "{line}{}",
        stderr(&servers)
    );

    let removed = mcpwb(d, &["bundle", "remove", "demo-bundle"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(!d.join("home/data/bundles/demo-bundle").exists());
    let left = std::fs::read_to_string(d.join("mcp.json")).unwrap();
    assert!(!left.contains("demo-bundle\""), "{left}");
    // Its input's declaration goes with it: nobody else asks for it.
    assert!(!left.contains("demo-bundle-token"), "{left}");
}

/// What the publisher should mend in a manifest is said after an install,
/// as the manifest's, not as the person's error: the install went through.
#[test]
fn a_manifests_faults_are_said_as_its_publishers() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let manifest = json!({
        "manifest_version": "0.3", "name": "notes", "version": "1.2.0", "description": "Notes",
        "author": { "name": "Ann Example" },
        "server": { "type": "node", "entry_point": "server/index.js",
            "mcp_config": { "command": "node", "args": ["${__dirname}/server/index.js"],
                "env": { "API_KEY": "${user_config.api_key}" } } },
        "user_config": { "api_key": { "type": "string", "title": "API key", "sensitive": true, "required": true } }
    })
    .to_string();
    let file = d.join("notes.mcpb");
    zip(
        &file,
        &[
            ("manifest.json", &manifest, 0o100644),
            ("server/index.js", "", 0o100644),
        ],
    );
    let installed = mcpwb(
        d,
        &[
            "bundle",
            "install",
            file.to_str().unwrap(),
            "--set",
            "api_key=sk-x",
        ],
    );
    assert!(installed.status.success(), "{}", stderr(&installed));
    assert!(
        stderr(&installed).contains(
            "mcpwb: the bundle's manifest, for its publisher: error bundle.user-config-text"
        ),
        "{}",
        stderr(&installed)
    );
    // Removed as any entry is (`config remove`, the window's Remove), it
    // takes its unpacked folder too.
    let folder = d.join("home/data/bundles/notes");
    assert!(folder.join("server/index.js").exists());
    let removed = mcpwb(d, &["config", "remove", "notes"]);
    assert!(removed.status.success(), "{}", stderr(&removed));
    assert!(!folder.exists(), "its folder goes with it");
}

/// A ZIP written by Python's zipfile: `entries` are (name, text, unix mode).
fn zip(path: &Path, entries: &[(&str, &str, u32)]) {
    let script = "import sys, json, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w')\nfor name, text, mode in json.loads(sys.argv[2]):\n    i = zipfile.ZipInfo(name)\n    i.external_attr = mode << 16\n    z.writestr(i, text)\nz.close()\n";
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .arg(json!(entries).to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn a_bundle_reaching_out_of_its_folder_or_holding_a_link_is_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let manifest = json!({
        "manifest_version": "0.3", "name": "evil", "version": "1.0.0", "description": "x",
        "author": { "name": "x" },
        "server": { "type": "binary", "entry_point": "run", "mcp_config": { "command": "${__dirname}/run" } }
    })
    .to_string();
    let out_of = d.join("out.mcpb");
    zip(
        &out_of,
        &[
            ("manifest.json", &manifest, 0o100644),
            ("../../escaped.txt", "gotcha", 0o100644),
        ],
    );
    let refused = mcpwb(d, &["bundle", "install", out_of.to_str().unwrap()]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("a path outside its folder"),
        "{}",
        stderr(&refused)
    );
    assert!(!d.join("home/data/escaped.txt").exists() && !d.join("home/escaped.txt").exists());
    assert!(
        !d.join("home/data/bundles/evil").exists(),
        "what was written is removed"
    );
    let linked = d.join("link.mcpb");
    zip(
        &linked,
        &[
            ("manifest.json", &manifest, 0o100644),
            ("run", "/bin/sh", 0o120777),
        ],
    );
    let refused = mcpwb(d, &["bundle", "install", linked.to_str().unwrap()]);
    assert!(
        stderr(&refused).contains("it holds a link (run)"),
        "{}",
        stderr(&refused)
    );
    assert!(!d.join("home/data/bundles/evil").exists());
    assert!(!d.join("mcp.json").exists(), "nothing added");
    let not_a_bundle = d.join("plain.mcpb");
    std::fs::write(&not_a_bundle, "hello").unwrap();
    let refused = mcpwb(d, &["bundle", "show", not_a_bundle.to_str().unwrap()]);
    assert!(
        stderr(&refused).contains("is not a bundle (not a ZIP)"),
        "{}",
        stderr(&refused)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_registry_bundle_package_is_downloaded_checked_against_its_sha256_and_installed() {
    let Some(mcpb) = mcpb() else {
        eprintln!("MCPWB_THIRD_PARTY has no mcpb (cargo xtask test installs it): skipped");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let reg = d.join("registry");
    std::fs::create_dir_all(reg.join("files")).unwrap();
    let packed = pack_demo(&mcpb, d);
    std::fs::copy(&packed, reg.join("files/demo-mcp.mcpb")).unwrap();
    let sum = Command::new("sha256sum").arg(&packed).output().unwrap();
    let sha = stdout(&sum).split_whitespace().next().unwrap().to_string();
    let stand_in = workbench_testkit::registry::StandIn::start(&reg)
        .await
        .unwrap();
    let url = stand_in.url();
    let entry = |sha: &str| {
        json!({
            "server": { "name": "io.github.example/demo-bundle", "description": "The demo as a bundle", "version": "0.1.0",
                "packages": [{ "registryType": "mcpb", "identifier": format!("{url}/files/demo-mcp.mcpb"),
                               "fileSha256": sha, "transport": { "type": "stdio" } }] },
            "_meta": { "io.modelcontextprotocol.registry/official": { "status": "active", "isLatest": true } }
        })
        .to_string()
    };
    let add = |args: &[&str]| {
        in_home(d)
            .arg("--config")
            .arg(d.join("mcp.json"))
            .args([
                "registry",
                "--registry",
                &url,
                "add",
                "io.github.example/demo-bundle",
            ])
            .args(args)
            .output()
            .unwrap()
    };
    // A "hash" that is a path: refused before anything is downloaded.
    std::fs::write(reg.join("demo.json"), entry("../../../escaped")).unwrap();
    let refused = add(&["--input", "token=x"]);
    assert!(
        stderr(&refused).contains("is not a SHA-256"),
        "{}",
        stderr(&refused)
    );
    assert!(!d.join("home/escaped.mcpb").exists() && !d.join("escaped.mcpb").exists());
    // A registry entry whose hash is not the file's: refused, nothing added.
    std::fs::write(reg.join("demo.json"), entry(&"ab".repeat(32))).unwrap();
    let refused = add(&["--refresh", "--input", "token=sk-from-registry"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("is not the file published"),
        "{}",
        stderr(&refused)
    );
    assert!(!d.join("mcp.json").exists());
    std::fs::write(reg.join("demo.json"), entry(&sha)).unwrap();
    // Asked again (the last answer is kept 5 minutes).
    let added = add(&["--refresh", "--input", "token=sk-from-registry"]);
    assert!(added.status.success(), "{}", stderr(&added));
    assert!(
        stderr(&added).contains("its SHA-256 checked"),
        "{}",
        stderr(&added)
    );
    let servers = mcpwb(d, &["servers"]);
    assert!(
        stdout(&servers).contains("demo-bundle\tready"),
        "{}{}",
        stdout(&servers),
        stderr(&servers)
    );
    assert!(
        !std::fs::read_to_string(d.join("mcp.json"))
            .unwrap()
            .contains("sk-from-registry")
    );
}
