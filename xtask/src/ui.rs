//! The window's files: `ui/dist`, built by vite, embedded by the app.

use std::path::Path;

use crate::cache::target_dir;
use crate::stages::{Result, cmd, sh};

/// The window's files (`ui/dist`), type-checked first (`npm run build`:
/// tsc --noEmit, then vite) — what `tauri build` runs before cargo.
///
/// Vite writes into a folder of its own, and only the files that differ
/// are replaced in `ui/dist`: the app's build script tells cargo to rebuild
/// the app when any file there changes, and vite rewrote them all on every
/// run, the same bytes (the app's library then compiled again, 35-90 s of
/// every warm `cargo xtask test`).
pub(crate) fn build_ui(root: &Path) -> Result {
    let fresh = target_dir(root).join("ui-dist");
    let out = fresh.display().to_string();
    sh(cmd(
        "npm",
        &[
            "run",
            "--silent",
            "build",
            "--",
            "--outDir",
            &out,
            "--emptyOutDir",
        ],
        &root.join("ui"),
    ))?;
    let changed = sync_tree(&fresh, &root.join("ui/dist"))
        .map_err(|e| format!("could not update ui/dist from {out}: {e}"))?;
    println!("ui/dist: {changed} file(s) changed");
    Ok(())
}

/// Make `to` hold what `from` holds, writing only the files whose bytes
/// differ and removing what `from` lacks: unchanged files keep their
/// times. The number of files written or removed.
fn sync_tree(from: &Path, to: &Path) -> std::io::Result<usize> {
    std::fs::create_dir_all(to)?;
    let mut changed = 0;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            if target.is_file() {
                std::fs::remove_file(&target)?;
            }
            changed += sync_tree(&source, &target)?;
        } else {
            let bytes = std::fs::read(&source)?;
            if std::fs::read(&target).ok().as_deref() != Some(&bytes[..]) {
                if target.is_dir() {
                    std::fs::remove_dir_all(&target)?;
                }
                std::fs::write(&target, &bytes)?;
                changed += 1;
            }
        }
    }
    for entry in std::fs::read_dir(to)? {
        let entry = entry?;
        if !from.join(entry.file_name()).exists() {
            if entry.file_type()?.is_dir() {
                std::fs::remove_dir_all(entry.path())?;
            } else {
                std::fs::remove_file(entry.path())?;
            }
            changed += 1;
        }
    }
    Ok(changed)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    /// ui/dist takes only what changed: an unchanged file keeps its time
    /// (cargo would otherwise build the app again), a changed one is
    /// replaced, a new one added, one vite no longer writes removed.
    #[test]
    fn the_windows_files_are_replaced_only_where_they_differ() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("fresh"), dir.path().join("dist"));
        for d in [from.join("assets"), to.join("assets"), to.join("old")] {
            std::fs::create_dir_all(d).unwrap();
        }
        let write = |p: std::path::PathBuf, s: &str| std::fs::write(p, s).unwrap();
        write(from.join("index.html"), "same");
        write(to.join("index.html"), "same");
        write(from.join("assets/app.js"), "new code");
        write(to.join("assets/app.js"), "old code");
        write(from.join("assets/added.css"), "css");
        write(to.join("assets/gone.js"), "stale");
        write(to.join("old/x.txt"), "stale");
        let long_ago = SystemTime::now() - Duration::from_secs(3600);
        let index = std::fs::File::options()
            .write(true)
            .open(to.join("index.html"))
            .unwrap();
        index.set_modified(long_ago).unwrap();
        drop(index);

        let changed = super::sync_tree(&from, &to).unwrap();

        assert_eq!(changed, 4, "app.js, added.css, gone.js, old/");
        let read = |p: &str| std::fs::read_to_string(to.join(p)).ok();
        assert_eq!(read("assets/app.js").as_deref(), Some("new code"));
        assert_eq!(read("assets/added.css").as_deref(), Some("css"));
        assert_eq!(read("assets/gone.js"), None);
        assert!(!to.join("old").exists());
        let kept = std::fs::metadata(to.join("index.html"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(kept, long_ago, "an unchanged file keeps its time");
        assert_eq!(super::sync_tree(&from, &to).unwrap(), 0);
    }
}
