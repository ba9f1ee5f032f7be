//! Reading and writing mcp.json safely: a document remembers what it read,
//! a save refuses to overwrite a file that changed on disk since, writes a
//! temp file beside it (fsync, same permissions) and renames it over the
//! original, keeping the previous version as `<name>.bak`.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::ConfigFile;
use super::edit::{EditOp, apply};
use crate::error::{Error, Result};

/// The text of a config file as read, and what it was read as.
#[derive(Debug)]
pub struct Document {
    /// The file.
    pub path: PathBuf,
    /// Its text as read (what a save checks the disk against).
    pub text: String,
    /// The bytes on disk when read (None: the file did not exist).
    read_as: Option<Vec<u8>>,
    /// The file's lock, when it was opened to be changed at once
    /// ([`Document::open_locked`]): released by the save.
    held: Option<Held>,
}

/// A lock on the file (`files::lock_file`).
struct Held(#[allow(dead_code)] nix::fcntl::Flock<std::fs::File>);

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Held")
    }
}

/// A copy is of the text, never of the lock (only the one that saves
/// lets it go).
impl Clone for Document {
    fn clone(&self) -> Document {
        Document {
            path: self.path.clone(),
            text: self.text.clone(),
            read_as: self.read_as.clone(),
            held: None,
        }
    }
}

/// What this process last wrote to each config file: a change the watch
/// sees that matches it is the app's own save, not an edit made elsewhere.
static WRITTEN: std::sync::Mutex<Option<std::collections::HashMap<PathBuf, Vec<u8>>>> =
    std::sync::Mutex::new(None);

fn remember_written(path: &Path, bytes: &[u8]) {
    let mut map = WRITTEN.lock().unwrap_or_else(|e| e.into_inner());
    map.get_or_insert_with(Default::default)
        .insert(path.to_path_buf(), bytes.to_vec());
}

/// Whether `bytes` are what this process last wrote to `path`.
pub fn written_here(path: &Path, bytes: &[u8]) -> bool {
    WRITTEN
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .and_then(|m| m.get(path))
        .is_some_and(|b| b == bytes)
}

/// The file that holds the previous version after a save.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".bak");
    path.with_file_name(name)
}

fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::ConfigUnreadable {
            path: path.to_path_buf(),
            source,
        }),
    }
}

impl Document {
    /// Read `path`; a missing file is an empty document (the first save creates it).
    pub fn open(path: &Path) -> Result<Document> {
        let read_as = read_bytes(path)?;
        let text = match &read_as {
            Some(b) => String::from_utf8(b.clone()).map_err(|_| Error::ConfigUnreadable {
                path: path.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "the file is not UTF-8 text",
                ),
            })?,
            None => String::new(),
        };
        Ok(Document {
            path: path.to_path_buf(),
            text,
            read_as,
            held: None,
        })
    }

    /// Read `path` to change it now: its lock is held from the read to the
    /// save, so another workbench writer waits and this one's edit is
    /// applied to the file as it is (never refused for a save that came
    /// in between). For one change computed from the file, not for a
    /// person's edit of what they were shown (that is [`Document::open`]).
    pub fn open_locked(path: &Path) -> Result<Document> {
        let held = crate::files::lock_file(path).map(Held);
        let mut doc = Document::open(path)?;
        doc.held = held;
        Ok(doc)
    }

    /// Whether the file on disk is still what was read.
    pub fn is_current(&self) -> Result<bool> {
        Ok(read_bytes(&self.path)? == self.read_as)
    }

    /// Apply one edit to the text (nothing is written yet).
    pub fn edit(&mut self, op: &EditOp) -> Result<()> {
        self.text = apply(&self.path, &self.text, op)?;
        Ok(())
    }

    /// Write `self.text`, if it loads, unless the file changed on disk.
    pub fn save(&mut self) -> Result<()> {
        ConfigFile::parse(&self.path, &self.text)?;
        // The check and the write as one against other workbench writers.
        let _held = self
            .held
            .take()
            .or_else(|| crate::files::lock_file(&self.path).map(Held));
        if !self.is_current()? {
            return Err(Error::ConfigConflict {
                path: self.path.clone(),
            });
        }
        if self.read_as.as_deref() == Some(self.text.as_bytes()) {
            return Ok(());
        }
        match self.read_as {
            Some(_) => write_atomic(&self.path, self.text.as_bytes(), true)?,
            // There was no file: made only if there is still none (another
            // writer's first save is not written over; told it changed).
            None => write_new(&self.path, self.text.as_bytes())?,
        }
        remember_written(&self.path, self.text.as_bytes());
        self.read_as = Some(self.text.clone().into_bytes());
        Ok(())
    }

    /// Replace the whole text (the raw editor), checked like any save.
    pub fn replace(&mut self, text: String) -> Result<()> {
        ConfigFile::parse(&self.path, &text)?;
        self.text = text;
        Ok(())
    }
}

/// Write `bytes` to `path` so that a reader sees the old file or the new
/// one, never half of either.
pub fn write_atomic(path: &Path, bytes: &[u8], backup: bool) -> Result<()> {
    write_via_temp(path, bytes, Some(backup))
}

/// [`write_atomic`] of a file that is not there: made whole, or not at all
/// when a file came there meanwhile (`ConfigConflict`, nothing replaced).
pub fn write_new(path: &Path, bytes: &[u8]) -> Result<()> {
    write_via_temp(path, bytes, None)
}

/// Written to a temporary file beside `path`, then moved there: over what
/// is there (`replace`: Some, with its backup when `Some(true)`), or only
/// where nothing is (None).
fn write_via_temp(path: &Path, bytes: &[u8], replace: Option<bool>) -> Result<()> {
    let backup = replace == Some(true);
    let failed = |source: std::io::Error| Error::ConfigWrite {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(failed)?;
    let permissions = std::fs::metadata(path).ok().map(|m| m.permissions());
    let mut tmp = tempfile::Builder::new()
        .prefix(".mcp.json.")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(failed)?;
    tmp.write_all(bytes).map_err(failed)?;
    tmp.as_file().sync_all().map_err(failed)?;
    if let Some(p) = permissions {
        std::fs::set_permissions(tmp.path(), p).map_err(failed)?;
    }
    if backup {
        // The previous version, for a person who wants it back: written
        // afresh, never through a link planted where the backup goes.
        let previous = std::fs::read(path).map_err(failed)?;
        let bak = backup_path(path);
        if std::fs::symlink_metadata(&bak).is_ok_and(|m| m.file_type().is_symlink()) {
            std::fs::remove_file(&bak).map_err(failed)?;
        }
        super::files::write_private(&bak, &previous)?;
    }
    if replace.is_some() {
        tmp.persist(path).map_err(|e| failed(e.error))?;
    } else {
        tmp.persist_noclobber(path).map_err(|e| {
            if e.error.kind() == std::io::ErrorKind::AlreadyExists {
                Error::ConfigConflict {
                    path: path.to_path_buf(),
                }
            } else {
                failed(e.error)
            }
        })?;
    }
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use serde_json::json;

    use super::*;

    fn upsert(name: &str) -> EditOp {
        EditOp::Upsert {
            name: name.into(),
            fields: json!({ "command": "x" }).as_object().unwrap().clone(),
        }
    }

    /// Writers at once, each adding its own entries and opening the file
    /// again when told it changed: none is lost.
    #[test]
    fn saves_at_once_each_see_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, "{ \"mcpServers\": {} }\n").unwrap();
        let file = path.clone();
        crate::tests::at_once(4, move |w| {
            for i in 0..15 {
                loop {
                    let mut doc = Document::open(&file).unwrap();
                    doc.edit(&upsert(&format!("w{w}-{i}"))).unwrap();
                    match doc.save() {
                        Ok(()) => break,
                        Err(Error::ConfigConflict { .. }) => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            }
        });
        let kept = ConfigFile::parse(&path, &std::fs::read_to_string(&path).unwrap()).unwrap();
        let missing: Vec<String> = (0..4)
            .flat_map(|w| (0..15).map(move |i| format!("w{w}-{i}")))
            .filter(|n| !kept.servers.iter().any(|s| s.name == *n))
            .collect();
        assert!(missing.is_empty(), "lost: {missing:?}");
    }

    /// Writers at once into a file none of them found (a first `mcpwb
    /// config add` beside the window's first save, or a host making its
    /// file): the first makes it, the others are told it changed and add
    /// to it. None is written over.
    #[test]
    fn first_saves_at_once_never_write_over_each_other() {
        for round in 0..40 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("mcp.json");
            let file = path.clone();
            crate::tests::at_once(4, move |w| {
                loop {
                    let mut doc = Document::open_locked(&file).unwrap();
                    doc.edit(&upsert(&format!("w{w}"))).unwrap();
                    match doc.save() {
                        Ok(()) => break,
                        Err(Error::ConfigConflict { .. }) => continue,
                        Err(e) => panic!("{e}"),
                    }
                }
            });
            let text = std::fs::read_to_string(&path).unwrap();
            let kept = ConfigFile::parse(&path, &text).unwrap();
            assert_eq!(kept.servers.len(), 4, "round {round}: {text}");
        }
    }

    #[test]
    fn a_save_is_atomic_keeps_permissions_and_one_backup() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        let original = "// mine\n{ \"mcpServers\": {} }\n";
        std::fs::write(&path, original).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let mut doc = Document::open(&path).unwrap();
        doc.edit(&upsert("a")).unwrap();
        doc.save().unwrap();
        let now = std::fs::read_to_string(&path).unwrap();
        assert!(now.starts_with("// mine\n") && now.contains("\"a\""));
        assert_eq!(
            std::fs::read_to_string(backup_path(&path)).unwrap(),
            original
        );
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // A second save keeps one backup: the version before it.
        doc.edit(&upsert("b")).unwrap();
        doc.save().unwrap();
        assert_eq!(std::fs::read_to_string(backup_path(&path)).unwrap(), now);
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_link_planted_where_the_backup_goes_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, "{ \"mcpServers\": {} }").unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "keep me").unwrap();
        std::os::unix::fs::symlink(&victim, backup_path(&path)).unwrap();
        let mut doc = Document::open(&path).unwrap();
        doc.edit(&upsert("a")).unwrap();
        doc.save().unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");
        let bak = std::fs::symlink_metadata(backup_path(&path)).unwrap();
        assert!(bak.file_type().is_file());
        assert_eq!(bak.permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn a_file_changed_on_disk_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, "{ \"mcpServers\": {} }").unwrap();
        let mut doc = Document::open(&path).unwrap();
        let theirs = "{ \"mcpServers\": { \"theirs\": { \"command\": \"y\" } } }";
        std::fs::write(&path, theirs).unwrap();
        doc.edit(&upsert("mine")).unwrap();
        let e = doc.save().unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::ConfigConflict);
        assert!(e.to_string().contains("changed on disk"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), theirs);
        // Deleting the file under us is a change too.
        let mut doc = Document::open(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        doc.edit(&upsert("x")).unwrap();
        assert!(doc.save().is_err());
        assert!(!path.exists());
    }

    #[test]
    fn text_that_does_not_load_is_never_written_and_a_new_file_is_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("mcp.json");
        let mut doc = Document::open(&path).unwrap();
        assert!(doc.replace("{ \"mcpServers\": { ".to_string()).is_err());
        doc.text = "{ broken".to_string();
        let e = doc.save().unwrap_err();
        assert_eq!(e.code(), crate::error::ErrorCode::ConfigSyntax);
        assert!(!path.exists());
        let mut doc = Document::open(&path).unwrap();
        doc.edit(&upsert("first")).unwrap();
        doc.save().unwrap();
        assert!(path.exists() && !backup_path(&path).exists());
    }
}
