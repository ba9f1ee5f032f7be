//! The house's invariants that the compiler does not hold by itself
//! (ARCHITECTURE.md's "Invariants"), over the whole workspace: the leaf
//! modules stay leaves, no command module reaches back into the one that
//! chooses it, a server is started or connected to only through core's one
//! door, and a tool is called only with the capability the one call path
//! holds.

mod crates;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace, read where the test runs (`CARGO_MANIFEST_DIR` as cargo or
/// `cargo xtask test` sets it), never where another checkout was built.
fn workspace() -> PathBuf {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")));
    manifest.join("..")
}

fn read(file: &str) -> String {
    std::fs::read_to_string(workspace().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// A file's code: its comments dropped, and its tests (from the first
/// `#[cfg(test)]` on) left out.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]").next().unwrap_or_default();
    text.lines()
        .map(|l| match l.trim_start().starts_with("//") {
            true => "",
            false => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The modules `file` names through `crate::` or `super::` in code.
fn imports(file: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in code(&read(file)).lines() {
        for prefix in ["crate::", "super::"] {
            for (at, _) in line.match_indices(prefix) {
                let rest = &line[at + prefix.len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                out.insert(format!("{prefix}{name}"));
            }
        }
    }
    out
}

/// Every shipped source file of the workspace (relative paths): the
/// crates' `src/` and the app's, not tests, benches, the test kit, the
/// fuzzers or this task runner.
fn shipped() -> Vec<String> {
    let root = workspace();
    let mut stack = vec![root.join("src-tauri/src")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.file_name().is_some_and(|n| n != "testkit") {
            stack.push(dir.join("src"));
        }
    }
    // A crate's unit tests (`mod tests;`) are not shipped.
    rust_files_under(&root, stack, |p| {
        p.file_name()
            .is_some_and(|n| n == "tests" || n == "tests.rs")
    })
}

/// The `.rs` files under `dirs` (paths relative to `root`, sorted), leaving
/// out any file or folder `skip` says.
fn rust_files_under(root: &Path, dirs: Vec<PathBuf>, skip: impl Fn(&Path) -> bool) -> Vec<String> {
    let (mut stack, mut found) = (dirs, Vec::new());
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if skip(&path) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                found.push(rel.display().to_string());
            }
        }
    }
    found.sort();
    found
}

/// The shipped files whose code says any of `needles`.
fn saying(needles: &[&str]) -> Vec<String> {
    shipped()
        .into_iter()
        .filter(|f| {
            let code = code(&read(f));
            needles.iter().any(|n| code.contains(n))
        })
        .collect()
}

/// The shipped files outside core whose code says any of `needles`.
fn saying_outside_core(needles: &[&str]) -> Vec<String> {
    saying(needles)
        .into_iter()
        .filter(|f| !f.starts_with("crates/core/"))
        .collect()
}

#[test]
fn the_leaf_modules_stay_leaves() {
    // file → what it may import from its own crate.
    let leaves: [(&str, &[&str]); 15] = [
        ("crates/core/src/error.rs", &[]),
        ("crates/core/src/cache.rs", &[]),
        ("crates/core/src/challenge.rs", &[]),
        ("crates/core/src/apps.rs", &[]),
        ("crates/core/src/status.rs", &["crate::config"]),
        ("crates/core/src/paths.rs", &["crate::config"]),
        ("crates/core/src/task.rs", &["crate::status"]),
        (
            "crates/core/src/events.rs",
            &["crate::config", "crate::status", "crate::task"],
        ),
        ("crates/config/src/error.rs", &[]),
        (
            "crates/config/src/secrets.rs",
            // files.rs is a leaf too: the lock a made secret holds; and
            // app.rs, the workbench's own places (a test's own namespace).
            &["crate::error", "crate::files", "crate::app", "super::Scope"],
        ),
        ("crates/config/src/files.rs", &["crate::error"]),
        ("crates/config/src/app.rs", &[]),
        ("crates/bridge/src/upstream.rs", &[]),
        ("crates/bridge/src/slot.rs", &[]),
        ("crates/agent/src/search.rs", &["crate::toolset"]),
    ];
    let mut wrong = Vec::new();
    for (file, allowed) in leaves {
        for import in imports(file) {
            if !allowed.contains(&import.as_str()) {
                wrong.push(format!("{file} imports {import}"));
            }
        }
    }
    assert!(wrong.is_empty(), "a leaf reaches up:\n{}", wrong.join("\n"));
}

#[test]
fn no_command_reaches_back_into_the_one_that_chooses_it() {
    let dir = workspace().join("crates/cli/src");
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().to_string();
        if name == "commands.rs" || name == "main.rs" || !name.ends_with(".rs") {
            continue;
        }
        let file = format!("crates/cli/src/{name}");
        if imports(&file).contains("crate::commands") {
            wrong.push(file);
        }
    }
    assert!(
        wrong.is_empty(),
        "these import commands.rs (take what they need from session.rs): {wrong:?}"
    );
}

/// One door starts a server or opens a connection to one: core's
/// `connect::door`, which checks the entry is trusted and enabled before
/// anything of it is read or run. A process is spawned, and an MCP client
/// transport built, only where listed here, each for a reason.
#[test]
fn a_server_is_started_only_through_the_one_door() {
    let processes = saying(&["Command::new(", "CommandWrap::"]);
    assert_eq!(
        processes,
        [
            // Opens the sign-in page in the person's browser.
            "crates/cli/src/auth_cmd.rs",
            // The person's login shell, asked for its PATH (no server).
            "crates/core/src/connect/resolve.rs",
            // The one spawn of a server, called by the door only.
            "crates/core/src/connect/stdio.rs",
            // The watcher that ends the servers' groups should this process
            // die without its shutdown (a fixed script; no server).
            "crates/reaper/src/lib.rs",
            // The tap runs the command its host gives it; a workbench
            // entry reaches it only through `door::hand_over`.
            "crates/tap/src/keep.rs",
            "crates/tap/src/stdio.rs",
        ],
        "a process is started outside the one door"
    );
    // Every server started is watched from its start, so that none outlives
    // a process killed outright: core's spawn and the tap's both tell the
    // reaper of the group they start.
    for server in [
        "crates/core/src/connect/stdio.rs",
        "crates/tap/src/keep.rs",
        "crates/tap/src/stdio.rs",
    ] {
        let code = code(&read(server));
        assert!(
            code.contains("workbench_reaper::watch(") || code.contains("Group::led_by("),
            "{server} starts a server the reaper is not told of"
        );
    }
    let spawns = saying(&["stdio::spawn("]);
    assert_eq!(
        spawns,
        ["crates/core/src/connect/door.rs"],
        "a stdio server is spawned outside the door"
    );
    let transports = saying(&[
        "StreamableHttpClientTransport::",
        "SseTransport::connect",
        "serve_client",
    ]);
    assert_eq!(
        transports,
        [
            // `connect`, which takes only an entry the door let through.
            "crates/core/src/connect/mod.rs",
            // `serve --attach`: the window's own bridge, on this machine only.
            "crates/core/src/connect/own_bridge.rs",
        ],
        "an MCP client transport is built outside the one door"
    );
    // The door is the only place an entry's references are read for a start.
    let outside_core = saying_outside_core(&["door::admit(", "door::hand_over("]);
    assert_eq!(
        outside_core,
        // `mcpwb tap --server`: the application layer's one sequence.
        ["crates/app/src/tap.rs"],
        "who hands an entry over to run outside a supervisor"
    );
}

/// One capability calls a tool: `ToolCaller`, made when a workbench is
/// started and handed by the composition roots to the one call path.
#[test]
fn a_tool_is_called_only_with_the_one_capability() {
    let outside_core = saying_outside_core(&["ToolCaller", "start_with_caller"]);
    assert_eq!(
        outside_core,
        [
            // The one call path: holds it, never hands it on.
            "crates/calls/src/lib.rs",
            // `mcpwb`'s composition root: starts the workbench (an empty one
            // too, for a run naming no server) and gives the capability to
            // `Calls::new`.
            "crates/cli/src/session.rs",
            // The app's composition root.
            "src-tauri/src/compose.rs",
        ],
        "who holds the capability to call a tool"
    );
    let outside_core = saying_outside_core(&["call_tool_on(", "call_qualified_on("]);
    assert_eq!(
        outside_core,
        ["crates/calls/src/lib.rs"],
        "who calls a tool through the core"
    );
    // No bare rmcp peer's tool call anywhere shipped.
    let bare = saying(&[".call_tool(", "call_tool_once("]);
    assert!(
        bare.iter().all(|f| f.starts_with("crates/core/")),
        "a tool called on a bare peer: {bare:?}"
    );
}

/// The adapters: the window's commands, `mcpwb`'s subcommands and the
/// agent's tools (`workbench-selftools`), which are to be a few lines over
/// the application layer (`workbench-app`).
fn adapters() -> Vec<String> {
    let root = workspace();
    let mut found = Vec::new();
    for (dir, keep) in [
        (
            "src-tauri/src/commands",
            (|_: &str| true) as fn(&str) -> bool,
        ),
        // All of mcpwb but its composition root (the workbench started,
        // the capability to call handed out) and its printing of the
        // libraries' types.
        ("crates/cli/src", |n: &str| {
            !["session.rs", "print.rs"].contains(&n)
        }),
        ("crates/selftools/src", |_: &str| true),
    ] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".rs") && keep(&name) {
                found.push(format!("{dir}/{name}"));
            }
        }
    }
    found.sort();
    found
}

/// How many times an adapter's code reaches past the application layer
/// into a library: a path through a library crate (`workbench_core::…`,
/// any but `workbench_app` and the adapters' own `workbench_selftools`), or a method called on the window's library
/// handles (`state.workbench`, `state.agent`, `state.calls`,
/// `state.surfaces`) or on `mcpwb`'s (`wb.`, `agent.`, `calls.`, `store.`).
fn library_calls(code: &str) -> usize {
    // A method chained on the next line (`wb\n    .catalog()`, as rustfmt
    // puts it) is the same call as on one line.
    let joined = code
        .split('\n')
        .map(|line| {
            let t = line.trim_start();
            if t.starts_with('.') { t } else { line }
        })
        .collect::<Vec<_>>();
    let mut code_one = String::with_capacity(code.len());
    for line in joined {
        if !line.starts_with('.') && !code_one.is_empty() {
            code_one.push('\n');
        }
        code_one.push_str(line);
    }
    let code = code_one.as_str();
    let paths = code
        .match_indices("workbench_")
        .filter(|(at, _)| {
            let before = code[..*at].chars().next_back();
            let rest = &code[*at..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && rest[name.len()..].starts_with("::")
                && name != "workbench_app"
                // An adapter naming another surface (`mcpwb serve --workbench`
                // serves the agent's tools) is not reaching into a library.
                && name != "workbench_selftools"
        })
        .count();
    let handles = [
        "state.workbench.",
        "state.workbench\n",
        "state.agent.",
        "state.agent\n",
        "state.calls.",
        "state.calls\n",
        "state.surfaces.",
    ];
    let mut through = handles
        .iter()
        .map(|h| code.matches(h).count())
        .sum::<usize>();
    for handle in ["wb.", "agent.", "calls.", "store."] {
        through += code
            .match_indices(handle)
            .filter(|(at, _)| {
                // A handle cloned or its workbench taken is no operation.
                let after = &code[at + handle.len()..];
                !code[..*at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                    && !after.starts_with("clone()")
                    && !after.starts_with("workbench()")
            })
            .count();
    }
    paths + through
}

/// The adapters reach into no library: every operation they offer is one
/// function of the application layer, with its checks and sequence once.
#[test]
fn the_adapters_stand_on_the_application_layer() {
    let mut rows: Vec<(usize, String)> = adapters()
        .into_iter()
        .map(|f| (library_calls(&code(&read(&f))), f))
        .filter(|(n, _)| *n > 0)
        .collect();
    rows.sort_by(|a, b| b.cmp(a));
    let total: usize = rows.iter().map(|(n, _)| n).sum();
    let table = rows
        .iter()
        .map(|(n, f)| format!("  {n:>4}  {f}"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        total, 0,
        "the adapters reach into the libraries {total} times: \
         put the operation in workbench-app (one function, its checks and sequence once) and call that\n{table}"
    );
}

/// The public functions (a crate's API: `pub`, not `pub(crate)` or
/// `pub(super)`) of the shipped library crates whose error is a bare
/// `String`: what went wrong reaches the next crate with no code to switch
/// on (a refusal read as an internal fault). Each, with its file.
fn string_errors() -> Vec<String> {
    let mut out = Vec::new();
    for file in shipped().into_iter().filter(|f| f.starts_with("crates/")) {
        let code = code(&read(&file));
        for (at, _) in code.match_indices("pub ") {
            let rest = &code[at + 4..];
            let rest = rest.strip_prefix("async ").unwrap_or(rest);
            let Some(signature) = rest.strip_prefix("fn ") else {
                continue;
            };
            let end = signature.find(['{', ';']).unwrap_or(signature.len());
            let signature: String = signature[..end]
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            if let Some(returns) = signature.split("->").nth(1)
                && returns.contains("Result<")
                && returns.trim_end().ends_with(", String>")
            {
                let name: String = signature
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                out.push(format!("{file}: {name}"));
            }
        }
    }
    out
}

/// No public function of a shipped library crate answers with a bare
/// `String` error: each error carries its code.
#[test]
fn errors_that_cross_a_crate_have_a_code() {
    let found = string_errors();
    assert!(
        found.is_empty(),
        "{} public functions return Result<_, String>: give the error its code (ErrorInfo, or the crate's own error type)\n  {}",
        found.len(),
        found.join("\n  ")
    );
}

/// Every Rust file of the workspace's crates and the window, tests and
/// benchmarks included (relative paths).
fn every_rust_file() -> Vec<String> {
    let root = workspace();
    let dirs = vec![root.join("crates"), root.join("src-tauri")];
    rust_files_under(&root, dirs, |_| false)
}

/// reqwest is built without a TLS crypto provider of its own and panics
/// making a client before one is installed for the process: every HTTP
/// client, a test's too, is made through `workbench-http` (which installs
/// ring first), and a library that makes its own (genai) is called after
/// `workbench_http::ready()`.
#[test]
fn an_http_client_is_made_only_through_its_one_crate() {
    let without_comments = |f: &str| -> String {
        read(f)
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let files = every_rust_file();
    let made_elsewhere: Vec<&String> = files
        .iter()
        .filter(|f| !f.starts_with("crates/http/"))
        .filter(|f| {
            let code = without_comments(f);
            [
                "reqwest::Client::builder(",
                "reqwest::Client::new(",
                "reqwest::Client::default(",
                "reqwest::ClientBuilder::new(",
                "StreamableHttpClientTransport::from_config(",
                "StreamableHttpClientTransport::from_uri(",
            ]
            .iter()
            .any(|n| code.contains(n))
        })
        .collect();
    assert!(
        made_elsewhere.is_empty(),
        "HTTP clients made without workbench-http (make them with workbench_http::builder or client): {made_elsewhere:?}"
    );
    let genai_unready: Vec<&String> = files
        .iter()
        .filter(|f| {
            let code = without_comments(f);
            (code.contains("genai::Client::new(") || code.contains("genai::Client::builder("))
                && !code.contains("workbench_http::ready()")
        })
        .collect();
    assert!(
        genai_unready.is_empty(),
        "genai makes its client before the TLS crypto is installed: {genai_unready:?}"
    );
}
