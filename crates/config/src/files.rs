//! Files the workbench writes for a person (exports): created readable by
//! the owner only, and never through a symbolic link (a link planted where
//! the export goes cannot redirect it); files a project brings (suites,
//! snapshots) are read never through a link, only if regular, bounded.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Error, Result};

/// Write `bytes` to `path` (created 0600, replaced if it is a plain file;
/// refused if it is a symbolic link).
pub fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    let failed = |source: std::io::Error| Error::ConfigWrite {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) {
                failed(std::io::Error::other(
                    "it is a symbolic link; choose another name",
                ))
            } else {
                failed(e)
            }
        })?;
    file.write_all(bytes).map_err(failed)?;
    file.sync_all().map_err(failed)
}

/// Why a link is not read, naming where it points: the person may name
/// that file instead, if it is theirs (a dotfiles folder's).
fn link_refused(path: &Path) -> String {
    match std::fs::read_link(path) {
        Ok(to) => {
            let to = match path.parent() {
                Some(dir) if to.is_relative() => dir.join(to),
                _ => to,
            };
            format!(
                "it is a symbolic link (to {}), which is not followed: name that file instead if it is yours",
                to.display()
            )
        }
        Err(_) => "it is a symbolic link, which is not followed".to_string(),
    }
}

/// Read a file someone else may have placed (a project's suite, a
/// snapshot): never through a symbolic link, only a regular file (a FIFO
/// would block), at most `max` bytes.
pub fn read_no_follow(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits() | nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(nix::errno::Errno::ELOOP as i32) {
                std::io::Error::other(link_refused(path))
            } else {
                e
            }
        })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("it is not a regular file"));
    }
    if meta.len() > max {
        return Err(std::io::Error::other(format!(
            "it is {} bytes, over the {max} this reads",
            meta.len()
        )));
    }
    let mut out = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1).read_to_end(&mut out)?;
    if out.len() as u64 > max {
        return Err(std::io::Error::other(format!(
            "it is over the {max} bytes this reads"
        )));
    }
    Ok(out)
}

/// Write `bytes` to `path` privately (0600) and atomically: a temporary file
/// beside it, renamed over it. A symbolic link at `path` is replaced, never
/// followed; a folder on the way that is a link is refused.
pub fn write_private_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let failed = |source: std::io::Error| Error::ConfigWrite {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(failed(std::io::Error::other(
            "its folder is a symbolic link, which is not followed",
        )));
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcpwb.")
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o600))
        .tempfile_in(dir)
        .map_err(failed)?;
    tmp.write_all(bytes).map_err(failed)?;
    tmp.as_file().sync_all().map_err(failed)?;
    tmp.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

/// Held while a shared file (the trust record, the settings) is read,
/// changed and written: the window, its commands and any number of `mcpwb`
/// runs share it. An advisory lock on `PATH.lock` beside it (owner-only),
/// taken per open, so it serialises the threads of one process too. None
/// when the lock cannot be had (an unwritable folder): the change is then
/// made unlocked, as before there was a lock. Never opened through a link,
/// nor waited on as a FIFO planted where the lock goes (a suite's lock sits
/// in the project that brought the suite).
pub fn lock_beside(path: &Path) -> Option<nix::fcntl::Flock<std::fs::File>> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::create_dir_all(dir);
    }
    let flags = nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .custom_flags(flags.bits())
        .open(path.with_extension("lock"))
        .ok()?;
    file.metadata().ok().filter(|m| m.is_file())?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive).ok()
}

/// Held while a file that writers replace (an mcp.json, a host's config)
/// is compared with what was read and then replaced: a lock on the file
/// itself, so no lock file lands in the person's project. A writer that
/// waited finds the file replaced under it and locks the new one: the
/// window and any number of `mcpwb` runs then see each other's saves, and
/// the second is refused as a conflict instead of writing over the first.
/// None when there is no file yet, or it is a link or not a regular file,
/// or it cannot be locked: the check and the write then go unlocked.
pub fn lock_file(path: &Path) -> Option<nix::fcntl::Flock<std::fs::File>> {
    use std::os::unix::fs::MetadataExt;
    for _ in 0..64 {
        // Not blocking on a FIFO planted there; never through a link.
        let flags = nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(flags.bits())
            .open(path)
            .ok()?;
        let locked_on = file.metadata().ok().filter(|m| m.is_file())?;
        let held = nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockExclusive).ok()?;
        match std::fs::symlink_metadata(path) {
            Ok(now) if now.dev() == locked_on.dev() && now.ino() == locked_on.ino() => {
                return Some(held);
            }
            // Replaced while this one waited: lock what is there now.
            _ => continue,
        }
    }
    None
}

/// The key a file is recorded under (a trust record, the tapped hosts):
/// its real folder and its own name. A relative path, or one through a
/// linked folder, keys the same file; the file's own name is never
/// resolved, so a link is recorded as the link it is (never trusted as
/// what it points to).
pub fn record_key(path: &Path) -> String {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    match (
        abs.parent().and_then(|p| p.canonicalize().ok()),
        abs.file_name(),
    ) {
        (Some(dir), Some(name)) => dir.join(name).display().to_string(),
        _ => abs.display().to_string(),
    }
}

/// Whether `inner` (which must exist) is `outer` or inside it once every
/// link is resolved, and is not itself a link.
pub fn stays_inside(inner: &Path, outer: &Path) -> bool {
    if std::fs::symlink_metadata(inner).map_or(true, |m| m.file_type().is_symlink()) {
        return false;
    }
    match (inner.canonicalize(), outer.canonicalize()) {
        (Ok(i), Ok(o)) => i.starts_with(o),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_file_is_locked_only_as_the_regular_file_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("mcp.json");
        assert!(lock_file(&file).is_none(), "no file yet: nothing to lock");
        std::fs::write(&file, "{}").unwrap();
        assert!(lock_file(&file).is_some());
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(lock_file(&link).is_none(), "never through a link");
        // A FIFO planted there is not waited on.
        let fifo = dir.path().join("fifo.json");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        assert!(lock_file(&fifo).is_none());
    }

    #[test]
    fn a_lock_beside_a_file_is_private_and_never_taken_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let settings = dir.path().join("settings.json");
        let held = lock_beside(&settings).expect("the lock");
        let lock = dir.path().join("settings.lock");
        let mode = std::fs::metadata(&lock).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        drop(held);
        // A link planted where the lock goes: not followed, nothing made.
        std::fs::remove_file(&lock).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::os::unix::fs::symlink(&elsewhere, &lock).unwrap();
        assert!(lock_beside(&settings).is_none());
        assert!(!elsewhere.exists());
        // A FIFO planted there: not waited on for a reader, not taken.
        std::fs::remove_file(&lock).unwrap();
        nix::unistd::mkfifo(&lock, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let at = settings.clone();
        std::thread::spawn(move || tx.send(lock_beside(&at).is_none()).unwrap());
        let refused = rx.recv_timeout(std::time::Duration::from_secs(5));
        assert_eq!(refused, Ok(true), "waited on or locked a FIFO");
    }

    #[test]
    fn exports_are_private_and_never_follow_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("chat.md");
        write_private(&out, b"hello").unwrap();
        assert_eq!(std::fs::read(&out).unwrap(), b"hello");
        let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let target = dir.path().join("victim");
        std::fs::write(&target, "keep me").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let e = write_private(&link, b"overwrite").unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    }

    #[test]
    fn planted_links_are_neither_read_nor_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret");
        std::fs::write(&secret, "credentials").unwrap();
        let link = dir.path().join("snap.json");
        std::os::unix::fs::symlink(&secret, &link).unwrap();
        let e = read_no_follow(&link, 1 << 20).unwrap_err();
        assert!(e.to_string().contains("symbolic link"), "{e}");
        // It says where the link points (a relative one from its folder):
        // the person names that file if it is theirs.
        assert!(e.to_string().contains(&secret.display().to_string()), "{e}");
        let relative = dir.path().join("relative.json");
        std::os::unix::fs::symlink("secret", &relative).unwrap();
        let e = read_no_follow(&relative, 1 << 20).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("(to {})", secret.display())),
            "{e}"
        );
        write_private_atomic(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&secret).unwrap(), "credentials");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");
        assert!(
            !std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let mode = std::fs::metadata(&link).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // A folder that is a link is refused; one inside is found out.
        let outside = tempfile::tempdir().unwrap();
        let linked = dir.path().join("__snapshots__");
        std::os::unix::fs::symlink(outside.path(), &linked).unwrap();
        assert!(write_private_atomic(&linked.join("x.json"), b"x").is_err());
        assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none());
        assert!(!stays_inside(&linked, dir.path()));
        std::fs::create_dir(dir.path().join("real")).unwrap();
        assert!(stays_inside(&dir.path().join("real"), dir.path()));
        // Over the limit, or not a regular file.
        std::fs::write(dir.path().join("big"), vec![b'x'; 100]).unwrap();
        assert!(read_no_follow(&dir.path().join("big"), 10).is_err());
        assert!(read_no_follow(dir.path(), 10).is_err());
    }
}
