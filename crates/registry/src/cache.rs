//! The registry's answers kept on disk, one file per address (named by its
//! hash), with when they came. Written whole (a temporary file renamed);
//! a file that cannot be read is as if absent.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn file(dir: &Path, url: &str) -> PathBuf {
    let hash = Sha256::digest(url.as_bytes());
    let name: String = hash.iter().take(16).map(|b| format!("{b:02x}")).collect();
    dir.join(format!("{name}.json"))
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// The answer kept for `url`, and its age.
pub fn read(dir: &Path, url: &str) -> Option<(Value, Duration)> {
    let path = file(dir, url);
    // Never through a link planted in the folder.
    if std::fs::symlink_metadata(&path)
        .ok()?
        .file_type()
        .is_symlink()
    {
        return None;
    }
    let kept: Value = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    if kept.get("url").and_then(Value::as_str) != Some(url) {
        return None;
    }
    let at = kept.get("fetched").and_then(Value::as_u64)?;
    Some((
        kept.get("body")?.clone(),
        Duration::from_secs(now().saturating_sub(at)),
    ))
}

pub fn write(dir: &Path, url: &str, body: &Value) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let path = file(dir, url);
    let tmp = path.with_extension(format!("{}.tmp", std::process::id()));
    let text = json!({ "url": url, "fetched": now(), "body": body }).to_string();
    let _ = std::fs::remove_file(&tmp);
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, &path)
}
