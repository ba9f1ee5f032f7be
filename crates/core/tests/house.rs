//! The house's invariants that the compiler does not hold by itself
//! (ARCHITECTURE.md's "Invariants"): the leaf modules stay leaves, no
//! command module reaches back into the one that chooses it, and only the
//! one call path may call a tool.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The modules `file` names through `crate::` or `super::` in code (not in
/// comments, not in its tests).
fn imports(file: &str) -> BTreeSet<String> {
    let text =
        std::fs::read_to_string(workspace().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    let code = text.split("#[cfg(test)]").next().unwrap_or_default();
    let mut out = BTreeSet::new();
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with("//") {
            continue;
        }
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

#[test]
fn the_leaf_modules_stay_leaves() {
    // file → what it may import from its own crate.
    let leaves: [(&str, &[&str]); 14] = [
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
            &["crate::error", "super::Scope"],
        ),
        ("crates/config/src/files.rs", &["crate::error"]),
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

#[test]
fn only_the_one_call_path_may_call_a_tool() {
    // `unsafe impl ... OneCallPath`: workbench-calls, and core's test-only
    // feature. Any other is a caller that skips the gate and the history.
    let mut found = Vec::new();
    let mut stack = vec![
        workspace().join("crates"),
        workspace().join("src-tauri/src"),
    ];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                if text.contains(&["OneCallPath", " for"].concat()) {
                    let rel = path.strip_prefix(workspace()).unwrap_or(&path);
                    found.push(rel.display().to_string().replace("../", ""));
                }
            }
        }
    }
    found.sort();
    assert_eq!(
        found,
        [
            "crates/calls/src/lib.rs",
            "crates/core/src/workbench/testing.rs"
        ],
        "who implements OneCallPath"
    );
}
