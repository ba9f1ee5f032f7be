//! What each crate's manifest and root say: unsafe code forbidden where
//! there is no FFI, the window's libraries named only by the window, doc
//! tests kept where documentation has code.

use std::path::PathBuf;

use super::{rust_files_under, workspace};

/// `unsafe` is for memory-safety contracts: every crate without FFI
/// forbids it, the window's included.
#[test]
fn crates_without_ffi_forbid_unsafe_code() {
    let root = workspace();
    let mut missing = Vec::new();
    let crates = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .chain([root.join("src-tauri")]);
    for dir in crates {
        let name = dir.strip_prefix(&root).unwrap().display().to_string();
        // The allocator's knobs (mimalloc's C library), and the window's
        // environment replaced in one store (the C library's `environ`).
        if name == "crates/memory" || name == "crates/early" {
            continue;
        }
        for top in ["src/lib.rs", "src/main.rs"] {
            let file = dir.join(top);
            if let Ok(text) = std::fs::read_to_string(&file)
                && !text.contains("#![forbid(unsafe_code)]")
            {
                missing.push(format!("{name}/{top}"));
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "crates without FFI that do not forbid unsafe code: {missing:?}"
    );
}

/// The window's wire format lives at the edge: its types and their
/// TypeScript bindings are the Tauri crate's (`src-tauri/src/wire`), and
/// no library, nor the application layer, depends on specta or Tauri.
#[test]
fn the_libraries_know_nothing_of_the_window() {
    for dependency in ["specta", "tauri", "tauri-specta"] {
        let found = crates_naming(dependency);
        assert!(
            found.is_empty(),
            "{dependency} is named by {found:?}: the window's types belong in src-tauri/src/wire"
        );
    }
    assert!(
        !crates_naming("serde").is_empty(),
        "the check reads the manifests (serde is named by several)"
    );
}

/// The crates under `crates/` whose manifests name `dependency` (as a
/// dependency line or a feature that turns it on).
fn crates_naming(dependency: &str) -> Vec<String> {
    let root = workspace().join("crates");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let manifest = entry.unwrap().path().join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest) else {
            continue;
        };
        let names = text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with(&format!("{dependency} "))
                || l.starts_with(&format!("{dependency}="))
                || l.starts_with(&format!("{dependency}."))
                || l.contains(&format!("\"dep:{dependency}\""))
                || l.contains(&format!("/{dependency}\""))
        });
        if names {
            found.push(manifest.display().to_string());
        }
    }
    found.sort();
    found
}

/// A library that turns its doc tests off (`doctest = false`: rustdoc
/// then never reads it, which `cargo test --doc` spent up to a minute on
/// for libraries without one example) has no code block in its
/// documentation: an example written there later would never run.
#[test]
fn a_library_with_code_in_its_documentation_keeps_its_doc_tests() {
    let root = workspace();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    folders.push(root.join("src-tauri"));
    let mut off = 0;
    let mut wrong = Vec::new();
    for folder in folders {
        let manifest = std::fs::read_to_string(folder.join("Cargo.toml")).unwrap_or_default();
        if !manifest
            .lines()
            .any(|l| l.replace(' ', "") == "doctest=false")
        {
            continue;
        }
        off += 1;
        for file in rust_files_under(&root, vec![folder.join("src")], |_| false) {
            let text = std::fs::read_to_string(root.join(&file)).unwrap();
            for (n, line) in text.lines().enumerate() {
                let line = line.trim_start();
                if (line.starts_with("///") || line.starts_with("//!")) && line.contains("```") {
                    wrong.push(format!("{file}:{}", n + 1));
                }
            }
        }
    }
    assert!(
        off > 0,
        "no library has its doc tests off: the test reads nothing"
    );
    assert!(
        wrong.is_empty(),
        "code in the documentation of a library with `doctest = false` (turn its doc tests on): {wrong:?}"
    );
}
