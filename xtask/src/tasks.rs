//! The tasks: run, test, bundle, bindings.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::cache::{shared_dir, target_dir, tidy_cache};
use crate::stages::{Result, Stages, cmd, sh};
use crate::{setup, supply};

/// The port the demo server listens on for mcp.example.json's `demo-http`.
const DEMO_HTTP_ADDR: &str = "127.0.0.1:8765";
const DEMO_HTTP_TOKEN: &str = "demo-token";

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// The features every cargo command of `cargo xtask test` builds with: the
/// window's files embedded, as `tauri build` makes it, so the app binary the
/// Rust tests build is the one the e2e tests run (one feature set, each
/// binary built once). It needs `ui/dist`: [`crate::ui::build_ui`] first.
pub const TEST_FEATURES: [&str; 2] = ["--features", "mcp-workbench/custom-protocol"];

/// Build what `cargo xtask test`'s Rust stage builds, with the same
/// features and lints: the binaries the conformance stages run are those the
/// Rust tests ran (a no-op after that stage). The window's files are built first
/// when there are none.
pub fn test_build(root: &Path) -> Result {
    if !root.join("ui/dist/index.html").exists() {
        setup::npm_packages(root)?;
        crate::ui::build_ui(root)?;
    }
    let mut args = vec!["test", "--workspace", "--all-targets", "--no-run", "-q"];
    args.extend(TEST_FEATURES);
    sh(crate::rust_tests::linted(&mut cmd("cargo", &args, root)))
}

fn has_display() -> bool {
    std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

/// Build the UI and the app with its assets embedded (custom protocol), debug profile.
fn build_app(root: &Path) -> Result {
    sh(tauri_cli(root, &["build", "--debug", "--no-bundle"]))
}

/// The cargo profile the desktop app is shipped and benchmarked in (the
/// workspace's Cargo.toml says why); its files land in `target/app/`.
pub(crate) const APP_PROFILE: &str = "app";

/// The app as shipped: the UI built and embedded, the `app` profile; with
/// `bundle`, packaged as a .deb too.
pub(crate) fn build_shipped_app(root: &Path, bundle: bool) -> Result {
    let mut args = vec!["build"];
    args.extend(if bundle {
        ["--bundles", "deb"].as_slice()
    } else {
        ["--no-bundle"].as_slice()
    });
    args.extend(["--", "--profile", APP_PROFILE]);
    // Its start-up code laid out first (see startup_order).
    sh(tauri_cli(root, &args).envs(crate::startup_order::build_env(root)))
}

/// The demo server, debug (tests) or release (benchmarks).
pub(crate) fn build_demo_server(root: &Path, release: bool) -> Result {
    let mut args = vec!["build"];
    if release {
        args.push("--release");
    }
    args.extend(["--package", "workbench-testkit", "--bin", "mcp-demo-server"]);
    sh(cmd("cargo", &args, root))
}

/// The Tauri CLI from ui/node_modules (prebuilt; `cargo install tauri-cli` takes
/// ~15 min here). It must run from the root so it finds src-tauri/.
pub(crate) fn tauri_cli(root: &Path, args: &[&str]) -> Command {
    let mut c = cmd(
        &root
            .join("ui/node_modules/.bin/tauri")
            .display()
            .to_string(),
        args,
        root,
    );
    c.env("NO_COLOR", "1");
    c
}

struct KillOnDrop(Child);
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn run(args: &[String]) -> Result {
    let root = root();
    let screenshot = match args {
        [] => None,
        [flag, path] if flag == "--screenshot" => {
            Some(std::path::absolute(path).map_err(|e| e.to_string())?)
        }
        _ => return Err("usage: cargo xtask run [--screenshot PNG]".into()),
    };
    let mut stages = Stages::default();
    let outcome = (|| {
        stages.run("set-up: Debian packages", || {
            setup::debian_packages(screenshot.is_some() || !has_display())
        })?;
        stages.run("set-up: npm packages", || setup::npm_packages(&root))?;
        stages.run("build: demo server", || build_demo_server(&root, false))?;
        stages.run("build: app", || build_app(&root))?;
        stages.run("app", || launch(&root, screenshot.as_deref()))
    })();
    stages.report();
    outcome
}

fn launch(root: &Path, screenshot: Option<&Path>) -> Result {
    let target = target_dir(root);
    let demo = target.join("debug/mcp-demo-server");
    let app = target.join("debug/mcp-workbench");
    let config = root.join("mcp.example.json");
    println!(
        "starting the demo server on http://{DEMO_HTTP_ADDR}/mcp for mcp.example.json's demo-http"
    );
    let _demo = match Command::new(&demo)
        .args([
            "--name",
            "demo-http",
            "--http",
            DEMO_HTTP_ADDR,
            "--token",
            DEMO_HTTP_TOKEN,
        ])
        .stdin(Stdio::null())
        .spawn()
    {
        Ok(child) => Some(KillOnDrop(child)),
        Err(e) => {
            println!(
                "warning: could not start the demo HTTP server ({e}); demo-http will not connect"
            );
            None
        }
    };
    // The example is this repository's own file and the person asked to
    // open it: its entries are trusted for them (--trust).
    let app_cmd = format!(
        "{} --trust --config {}",
        shell_quote(&app.display().to_string()),
        shell_quote(&config.display().to_string())
    );
    let script = match screenshot {
        Some(png) => format!(
            "{app_cmd} & pid=$!; sleep 6; import -window root {png}; kill $pid; wait $pid; echo screenshot: {png}",
            png = shell_quote(&png.display().to_string())
        ),
        None => app_cmd,
    };
    if has_display() && screenshot.is_none() {
        println!("opening the window on {}", config.display());
        sh(Command::new("sh").args(["-c", &script]))
    } else {
        println!("no display here (or a screenshot was asked for): running the window under Xvfb");
        sh(Command::new("xvfb-run").args([
            "-a",
            "-s",
            "-screen 0 1280x800x24",
            "sh",
            "-c",
            &script,
        ]))
    }
}

pub(crate) fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

pub fn test() -> Result {
    let root = root();
    tidy_cache(&root);
    let mut stages = Stages::default();
    let outcome = (|| {
        stages.run("set-up: Rust components", setup::rust_components)?;
        // The window's files need only npm, the Rust build needs them and
        // the Debian packages: the two set-ups run at once.
        let ui = crate::beside::start(crate::beside::UI, false)?;
        // What only the tests use and npm installs starts now too, at a
        // lower priority: it goes on beside the Rust build, which keeps the
        // CPUs it wants.
        let node_tools = crate::beside::start(crate::beside::NODE_TOOLS, true)?;
        stages.run("set-up: Debian packages", || setup::debian_packages(true))?;
        stages.run("check: rustfmt", || {
            sh(cmd("cargo", &["fmt", "--all", "--", "--check"], &root))
        })?;
        stages.run(
            "build: UI (npm packages, tsc --noEmit, vite; beside the Debian packages)",
            || ui.wait(),
        )?;
        // What needs the Debian packages' Python venv is fetched while the Rust build compiles.
        let py_tools = crate::beside::start(crate::beside::PY_TOOLS, true)?;
        let binaries = std::cell::RefCell::new(Vec::new());
        stages.run(
            "build: every Rust target, linted (clippy-driver, -D warnings)",
            || {
                *binaries.borrow_mut() = crate::rust_tests::build(&root, &TEST_FEATURES)?;
                Ok(())
            },
        )?;
        let (driver, python, deny, mdbook) = (
            std::cell::RefCell::new(PathBuf::new()),
            std::cell::RefCell::new(PathBuf::new()),
            std::cell::RefCell::new(PathBuf::new()),
            std::cell::RefCell::new(PathBuf::new()),
        );
        stages.run(
            "set-up: tauri-driver, third-party servers, Python SDK, cargo-deny, mdBook, the conformance suite (beside the build)",
            || {
                node_tools.wait()?;
                py_tools.wait()?;
                // Each is there now: these only name it.
                *driver.borrow_mut() = setup::tauri_driver(&root)?;
                *python.borrow_mut() = setup::python_sdk(&root)?;
                *deny.borrow_mut() = crate::tools::install(&root, &crate::tools::CARGO_DENY)?;
                *mdbook.borrow_mut() = crate::tools::install(&root, &crate::tools::MDBOOK)?;
                Ok(())
            },
        )?;
        // The keychain's tests are the libraries' own, run again in a
        // Secret Service of their own: the binaries this build made.
        let units = crate::rust_tests::unit_tests(&binaries.borrow());
        // The doctor mostly waits on server-everything (16% of the machine
        // busy when it ran alone): it runs beside the Rust tests.
        let doctor = {
            let root = root.clone();
            std::thread::spawn(move || doctor_everything(&root))
        };
        stages.run("test: Rust (unit, integration, bindings drift)", || {
            crate::rust_tests::run(
                &root,
                &TEST_FEATURES,
                binaries.take(),
                &[
                    ("MCPWB_THIRD_PARTY", shared_dir(&root).join("third-party")),
                    ("MCPWB_PYTHON", python.borrow().clone()),
                ],
            )
        })?;
        stages.run(
            "test: keychain (Secret Service in a private D-Bus session)",
            || keychain(&root, &units),
        )?;
        stages.run(
            "test: the doctor on server-everything (third-party; run beside the Rust tests)",
            || {
                let (passed, said) = doctor
                    .join()
                    .map_err(|_| "the doctor's run panicked".to_string())?;
                println!("{}", said.trim_end());
                passed
            },
        )?;
        let ui = root.join("ui");
        // The UI's unit tests need nothing the conformance suite does, and
        // the suite leaves a third of the machine idle (its scenarios wait):
        // they run beside it and are waited for after it. A worker a CPU
        // (vitest keeps one CPU back: on two, its 53 files took 71 s in one
        // worker, 48 s in two).
        let vitest = {
            let workers = format!(
                "--maxWorkers={}",
                std::thread::available_parallelism().map_or(2, |n| n.get())
            );
            let vitest = cmd("npm", &["run", "--silent", "test", "--", &workers], &ui);
            std::thread::spawn(move || crate::stages::captured(vitest))
        };
        stages.run("test: MCP conformance suite (mcpwb as a client)", || {
            crate::conformance::client(&root)
        })?;
        stages.run("test: MCP conformance suite (through the bridge)", || {
            crate::conformance_server::server(&root)
        })?;
        stages.run(
            "check: supply chain (cargo deny, npm licenses and audit)",
            || supply::check(&root, &deny.borrow()),
        )?;
        stages.run(
            "test: UI (vitest, run beside the conformance suite)",
            || {
                let (passed, said) = vitest
                    .join()
                    .map_err(|_| "the vitest run panicked".to_string())?;
                println!("{}", said.trim_end());
                passed
            },
        )?;
        stages.run("check: eslint", || {
            sh(cmd("npm", &["run", "--silent", "lint"], &ui))
        })?;
        stages.run("test: e2e (real window, WebKitWebDriver, Xvfb)", || {
            e2e(&root, &driver.borrow(), &python.borrow())
        })?;
        stages.run("build: the user guide (mdBook, links checked)", || {
            crate::guide::build(&root, &mdbook.borrow(), &target_dir(&root))
        })
    })();
    stages.report_against(std::time::Duration::from_secs(15 * 60));
    outcome
}

/// The ignored `secret_service` tests of the libraries' test binaries
/// `units` (program, package folder), against a real Secret Service:
/// gnome-keyring in its own session bus, its keyring files in a folder of
/// this run's (it keeps them in $XDG_DATA_HOME/keyrings), so the person's
/// keyring is never touched. The binaries are run as built; `cargo test`
/// here checked the whole workspace again, and on a fresh machine rebuilt
/// part of it (22.7 s of a stage whose tests take half a second).
fn keychain(root: &Path, units: &[(PathBuf, PathBuf)]) -> Result {
    if units.is_empty() {
        return Err("no unit-test binaries were built".into());
    }
    let runs: Vec<String> = units
        .iter()
        .map(|(exe, dir)| {
            format!(
                "(cd {} && {} secret_service --ignored --quiet) || exit 1",
                shell_quote(&dir.display().to_string()),
                shell_quote(&exe.display().to_string())
            )
        })
        .collect();
    let script = format!(
        "echo -n throwaway | gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 1\n{}",
        runs.join("\n")
    );
    let keyrings = std::env::temp_dir().join(format!("xtask-keyrings-{}", std::process::id()));
    let mut c = cmd("dbus-run-session", &["--", "sh", "-c", &script], root);
    c.env("XDG_DATA_HOME", &keyrings);
    println!(
        "running the secret_service tests of {} library test binaries",
        units.len()
    );
    let ran = sh(&mut c);
    let _ = std::fs::remove_dir_all(&keyrings);
    ran
}

fn e2e(root: &Path, driver: &Path, python: &Path) -> Result {
    let target = target_dir(root);
    let dir = root.join("tests/e2e");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".test.mjs"))
        .map(|p| p.display().to_string())
        .collect();
    // The longest first, so the run does not end on a long one alone: the
    // walk through every view (short, but it visits each room in two
    // themes and two sizes), then by size, which follows their time (the
    // last run's 17 files: two at a time end at 164 s of work in this
    // order, at 177 s in the names' order).
    let size = |f: &String| std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
    files.sort_by_key(|f| {
        (
            !f.ends_with("/views.test.mjs"),
            std::cmp::Reverse(size(f)),
            f.clone(),
        )
    });
    // A hung WebDriver must not eat CI's time: the whole e2e run gets 15 min.
    let mut args: Vec<&str> = vec![
        "--signal=TERM",
        "--kill-after=15",
        "900",
        "xvfb-run",
        "-a",
        "-s",
        // Room for the 1200×800 screenshots and more.
        "-screen 0 1920x1200x24",
        "node",
        "--test",
        // Three files at once, each with its own driver, ports, home and
        // display: most of a test's time is waiting on the window or a
        // server (two at a time left 39% of the machine idle). Three once
        // failed on an App's partial input racing the model's stream; the
        // test now holds the stream until the App has shown it.
        "--test-concurrency=3",
    ];
    args.extend(files.iter().map(String::as_str));
    let mut c = cmd("timeout", &args, root);
    c.env("TAURI_DRIVER", driver)
        // The driver drives this machine's WebKitWebDriver, never a cloud's.
        .env_remove("REMOTE_WEBDRIVER_URL")
        .env_remove("CN_API_KEY")
        .env("APP_BINARY", target.join("debug/mcp-workbench"))
        .env("DEMO_SERVER", target.join("debug/mcp-demo-server"))
        .env("SCRIPTED_LLM", target.join("debug/scripted-llm"))
        .env("MCPWB_THIRD_PARTY", shared_dir(root).join("third-party"))
        // The Python SDK's client as a host (the Sessions room).
        .env("MCPWB_PYTHON", python)
        // Screenshots stay with the checkout, whatever the build folder.
        .env("E2E_ARTIFACTS", root.join("target/e2e"));
    sh(&mut c)
}

pub fn bundle() -> Result {
    let root = root();
    let mut stages = Stages::default();
    let outcome = (|| {
        stages.run("set-up: Debian packages", || setup::debian_packages(false))?;
        stages.run("set-up: npm packages", || setup::npm_packages(&root))?;
        stages.run("bundle: release .deb", || {
            // The package carries mcpwb and the demo server (the first start's
            // example) beside the window (tauri.conf.json's deb files).
            sh(cmd(
                "cargo",
                &[
                    "build",
                    "--release",
                    "--package",
                    "workbench-cli",
                    "--bin",
                    "mcpwb",
                    "--package",
                    "workbench-testkit",
                    "--bin",
                    "mcp-demo-server",
                ],
                &root,
            ))?;
            build_shipped_app(&root, true)?;
            let debs = target_dir(&root).join(APP_PROFILE).join("bundle/deb");
            println!(
                "the .deb is in {} (install: sudo dpkg -i <file>.deb)",
                debs.display()
            );
            Ok(())
        })
    })();
    stages.report();
    outcome
}

pub fn bindings() -> Result {
    let root = root();
    sh(cmd(
        "cargo",
        &[
            "test",
            "--package",
            "mcp-workbench",
            "--test",
            "app",
            "bindings",
        ],
        &root,
    )
    .env("UPDATE_BINDINGS", "1"))?;
    println!("wrote ui/src/bindings.ts");
    Ok(())
}

/// `mcpwb doctor` (both eras, read-only tools probed) on the third-party
/// server-everything: whether it passed (an error finding fails the run)
/// and what it printed, its findings.
/// Everything it writes goes to a throwaway home.
fn doctor_everything(root: &Path) -> (Result, String) {
    let target = target_dir(root);
    let bin = shared_dir(root).join("third-party/node_modules/.bin/mcp-server-everything");
    let home = std::env::temp_dir().join(format!("mcpwb-doctor-everything-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&home) {
        return (Err(format!("{}: {e}", home.display())), String::new());
    }
    let config = home.join("mcp.json");
    let text = format!(
        r#"{{"mcpServers": {{"everything": {{"command": {}}}}}}}"#,
        json_string(&bin.display().to_string())
    );
    if let Err(e) = std::fs::write(&config, text) {
        return (Err(format!("{}: {e}", config.display())), String::new());
    }
    let mut doctor = cmd(
        target.join("debug/mcpwb").to_str().unwrap_or("mcpwb"),
        &[
            "--trust",
            "--config",
            config.to_str().unwrap_or_default(),
            "doctor",
            "everything",
            "--eras",
            "--probe",
        ],
        root,
    );
    doctor
        .env("HOME", &home)
        .env("MCPWB_DATA_DIR", home.join("data"))
        .env("MCPWB_SETTINGS", home.join("settings.json"))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_DATA_HOME");
    let outcome = crate::stages::captured(doctor);
    let _ = std::fs::remove_dir_all(&home);
    outcome
}

/// `s` as a JSON string literal.
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
