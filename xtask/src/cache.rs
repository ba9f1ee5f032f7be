//! Where the run builds and what it keeps between runs: a checkout's own
//! build folder in the machine's cache (never another clone's), and what
//! every checkout may share (installed servers, the Python SDK, tools).

use std::path::{Path, PathBuf};

/// Where cargo builds: `$CARGO_TARGET_DIR`, else this checkout's folder in
/// the machine's cache ([`build_cache`]), else `target/` in the checkout.
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| build_cache(root))
        .unwrap_or_else(|| root.join("target"))
}

/// The machine's cache for the project, when on: under CI (`CI=true`,
/// which tests a fresh clone each time) `$XDG_CACHE_HOME/mcp-workbench`;
/// `MCPWB_BUILD_CACHE=DIR` puts it elsewhere (or turns it on outside CI),
/// `=off` keeps everything in the checkout's `target/`.
fn cache_home() -> Option<PathBuf> {
    match std::env::var("MCPWB_BUILD_CACHE") {
        Ok(v) if v.is_empty() || v == "off" || v == "0" => None,
        Ok(dir) => Some(PathBuf::from(dir)),
        Err(_) => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            ci.then(|| {
                std::env::var_os("XDG_CACHE_HOME")
                    .map(PathBuf::from)
                    .filter(|p| p.is_absolute())
                    .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                    .unwrap_or_else(std::env::temp_dir)
                    .join("mcp-workbench")
            })
        }
    }
}

/// The cargo build folder of the checkout at `root` in the machine's cache
/// (`builds/<folder>-<hash of its path>`): kept between runs of the same
/// checkout, never shared with another — cargo names a workspace's own
/// artefacts alike whatever its path, so a shared folder could hand one
/// clone's test binaries (and the fixture paths compiled into them) to
/// another. Never used when `CARGO_TARGET_DIR` is set: the person chose.
pub fn build_cache(root: &Path) -> Option<PathBuf> {
    if std::env::var_os("CARGO_TARGET_DIR").is_some() {
        return None;
    }
    Some(cache_home()?.join("builds").join(checkout_key(root)))
}

/// What every checkout on the machine may share, being no build of its
/// own: the third-party servers, the Python SDK, the prebuilt tools. The
/// machine's cache when on, else the checkout's build folder.
pub fn shared_dir(root: &Path) -> PathBuf {
    cache_home()
        .map(|c| c.join("shared"))
        .unwrap_or_else(|| target_dir(root))
}

/// `<folder name>-<FNV-1a of the canonical path>`: readable, and one per
/// checkout whatever toolchain hashes it.
fn checkout_key(root: &Path) -> String {
    let path = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in path.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let name: String = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(32)
        .collect();
    format!("{name}-{hash:016x}")
}

/// Before a run in the cache: write which checkout a build folder is for,
/// drop the folders of checkouts that are gone, and say when the old
/// shared folder (every checkout's builds in one) is still there.
pub fn tidy_cache(root: &Path) {
    let (Some(home), Some(mine)) = (cache_home(), build_cache(root)) else {
        return;
    };
    let _ = std::fs::create_dir_all(&mine);
    let _ = std::fs::write(mine.join("checkout"), root.display().to_string());
    println!("build folder: {} (this checkout's own)", mine.display());
    if let Ok(entries) = std::fs::read_dir(home.join("builds")) {
        for entry in entries.flatten() {
            let Ok(of) = std::fs::read_to_string(entry.path().join("checkout")) else {
                continue;
            };
            if !Path::new(of.trim()).join("Cargo.toml").exists() {
                println!(
                    "build folder: {} was for {}, which is gone: removed",
                    entry.path().display(),
                    of.trim()
                );
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    let old = home.join("target");
    if old.join("debug").exists() {
        println!(
            "build folder: {} (all checkouts' builds in one, before builds were kept apart) is no longer used: delete it to free its space",
            old.display()
        );
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_clones_never_share_a_build_folder_and_one_keeps_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("work/main"), dir.path().join("other/main"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let (ka, kb) = (super::checkout_key(&a), super::checkout_key(&b));
        assert_ne!(ka, kb, "same folder name, other path: another build folder");
        assert!(
            ka.starts_with("main-") && kb.starts_with("main-"),
            "{ka} {kb}"
        );
        // The same checkout, however it is named (a link to it), keeps its folder.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&a, &link).unwrap();
        assert_eq!(super::checkout_key(&link), ka);
        assert_eq!(super::checkout_key(&a), ka);
    }
}
