//! Files the workbench writes for a person (exports): created readable by
//! the owner only, and never through a symbolic link (a link planted where
//! the export goes cannot redirect it).

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

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

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
}
