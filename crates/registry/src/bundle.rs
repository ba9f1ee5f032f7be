//! MCP bundles (`.mcpb`, formerly `.dxt`): a ZIP with `manifest.json` at
//! its root. Read (the manifest, whether it carries a signature block),
//! unpacked safely (no path out of the folder, no links, sizes capped,
//! programs kept executable) and turned into an mcp.json entry: the
//! manifest's `mcp_config` with this platform's override applied, its
//! variables (`${__dirname}`, `${HOME}`, …) filled, and each
//! `${user_config.KEY}` given its value — a sensitive one as an
//! `${input:…}` whose answer goes to the keychain, never the file.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use workbench_codes::{ErrorCode, ErrorInfo};

use crate::invalid;
use crate::signature::Signature;

/// The most a bundle may unpack to, and the most files it may hold.
const MAX_BYTES: u64 = 1 << 30;
const MAX_FILES: usize = 20_000;
/// The manifest is read whole: at most this.
const MAX_MANIFEST: u64 = 1 << 20;

/// A bundle as read, before anything is written.
#[derive(Debug, Clone)]
pub struct Bundle {
    pub path: PathBuf,
    pub manifest: Value,
    /// The file's SHA-256 (hex).
    pub sha256: String,
    /// Its signature block (`mcpb sign`), checked.
    pub signature: Signature,
}

impl Bundle {
    pub fn name(&self) -> &str {
        self.manifest["name"].as_str().unwrap_or("bundle")
    }

    pub fn version(&self) -> &str {
        self.manifest["version"].as_str().unwrap_or("")
    }

    /// What the person is asked for: `user_config`, in the manifest's order.
    pub fn user_config(&self) -> Vec<(String, Value)> {
        self.manifest
            .get("user_config")
            .and_then(Value::as_object)
            .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }
}

/// Read the bundle at `path`: its manifest and hash. Refused when it is
/// not a ZIP with a `manifest.json` at its root, or the link is a link.
pub fn read(path: &Path) -> Result<Bundle, ErrorInfo> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| {
        ErrorInfo::new(
            ErrorCode::NotFound,
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    if meta.file_type().is_symlink() {
        return Err(invalid(format!(
            "{} is a link: give the bundle file itself",
            path.display()
        )));
    }
    let bytes =
        std::fs::read(path).map_err(|e| invalid(format!("cannot read {}: {e}", path.display())))?;
    let sha256 = sha256_hex(&bytes);
    let signature = crate::signature::check(&bytes);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&bytes)).map_err(|e| {
        invalid(format!(
            "{} is not a bundle (not a ZIP): {e}",
            path.display()
        ))
    })?;
    let mut file = zip.by_name("manifest.json").map_err(|_| {
        invalid(format!(
            "{} has no manifest.json at its root: not an MCP bundle",
            path.display()
        ))
    })?;
    if file.size() > MAX_MANIFEST {
        return Err(invalid("its manifest.json is over 1 MiB"));
    }
    let mut text = String::new();
    file.by_ref()
        .take(MAX_MANIFEST)
        .read_to_string(&mut text)
        .map_err(|e| invalid(format!("its manifest.json cannot be read: {e}")))?;
    let manifest: Value = serde_json::from_str(&text).map_err(|e| {
        invalid(format!(
            "its manifest.json is not JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    if !manifest.get("name").is_some_and(Value::is_string) {
        return Err(invalid("its manifest.json has no name"));
    }
    Ok(Bundle {
        path: path.to_path_buf(),
        manifest,
        sha256,
        signature,
    })
}

/// Unpack `bundle` into `into` (made; it must not exist). Every entry
/// stays inside it; a link or a path outside refuses the whole bundle and
/// removes what was written.
pub fn unpack(bundle: &Bundle, into: &Path) -> Result<(), ErrorInfo> {
    if into.exists() {
        return Err(invalid(format!(
            "{} exists already: remove the bundle installed there first",
            into.display()
        )));
    }
    let done = unpack_into(bundle, into);
    if done.is_err() {
        let _ = std::fs::remove_dir_all(into);
    }
    done
}

/// A file's SHA-256, in hex.
fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn unpack_into(bundle: &Bundle, into: &Path) -> Result<(), ErrorInfo> {
    // What is unpacked is the file that was read, checked (its SHA-256, its
    // signature) and shown, not whatever the path holds now.
    let bytes = std::fs::read(&bundle.path)
        .map_err(|e| invalid(format!("cannot read {}: {e}", bundle.path.display())))?;
    let now = sha256_hex(&bytes);
    if now != bundle.sha256 {
        return Err(ErrorInfo::new(
            ErrorCode::Refused,
            format!(
                "{} changed since it was read (its SHA-256 was {}, it is {now}): nothing was unpacked; read it again",
                bundle.path.display(),
                bundle.sha256
            ),
        ));
    }
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| invalid(format!("not a ZIP: {e}")))?;
    if zip.len() > MAX_FILES {
        return Err(invalid(format!(
            "it holds {} files, more than {MAX_FILES}",
            zip.len()
        )));
    }
    std::fs::create_dir_all(into)
        .map_err(|e| invalid(format!("cannot make {}: {e}", into.display())))?;
    let mut total = 0u64;
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| invalid(format!("its entry {i} cannot be read: {e}")))?;
        let shown = entry
            .name()
            .map(|n| n.into_owned())
            .unwrap_or_else(|_| format!("entry {i}"));
        let Some(relative) = entry.enclosed_name() else {
            return Err(invalid(format!(
                "it holds {shown}, a path outside its folder: refused"
            )));
        };
        let mode = entry.unix_mode().unwrap_or(0o644);
        if mode & 0o170000 == 0o120000 {
            return Err(invalid(format!("it holds a link ({shown}): refused")));
        }
        let target = into.join(&relative);
        if entry.is_dir() {
            std::fs::create_dir_all(&target).map_err(|e| invalid(e.to_string()))?;
            continue;
        }
        total += entry.size();
        if total > MAX_BYTES {
            return Err(invalid("it unpacks to more than 1 GiB: refused"));
        }
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| invalid(e.to_string()))?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&target)
            .map_err(|e| invalid(format!("cannot write {}: {e}", target.display())))?;
        // Read at most what the entry says it holds.
        let size = entry.size();
        std::io::copy(&mut entry.by_ref().take(size), &mut out)
            .map_err(|e| invalid(format!("cannot unpack {}: {e}", relative.display())))?;
        use std::os::unix::fs::PermissionsExt;
        let executable = mode & 0o111 != 0;
        let _ = std::fs::set_permissions(
            &target,
            std::fs::Permissions::from_mode(if executable { 0o755 } else { 0o644 }),
        );
    }
    Ok(())
}

/// What a bundle becomes in mcp.json.
#[derive(Debug, Clone)]
pub struct BundleEntry {
    pub entry: Map<String, Value>,
    /// Inputs declared for its sensitive values (answered into the keychain).
    pub inputs: Vec<Value>,
    /// The answers to keep for them (`id`, value).
    pub secrets: Vec<(String, String)>,
}

/// The entry of `manifest`, unpacked at `dir`, named `name`, with the
/// person's `answers` to its `user_config` (KEY → value; a `multiple` one
/// as several values). Refused when a required value is missing.
pub fn entry(
    manifest: &Value,
    dir: &Path,
    name: &str,
    answers: &[(String, String)],
) -> Result<BundleEntry, ErrorInfo> {
    let config = mcp_config_of(manifest)?;
    let places = Places {
        dir: dir.display().to_string(),
        home: std::env::var("HOME").unwrap_or_default(),
    };
    let declared: Map<String, Value> = manifest
        .get("user_config")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    check_answers(&declared, answers)?;
    let mut out = BundleEntry {
        entry: Map::new(),
        inputs: Vec::new(),
        secrets: Vec::new(),
    };
    let values = values_of(&declared, answers, name, &places, &mut out)?;
    let text = Text {
        places: &places,
        values: &values,
    };
    let command = config
        .get("command")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("its mcp_config has no command"))?;
    out.entry
        .insert("command".into(), json!(keep(text.fill(command))));
    let mut args = Vec::new();
    for a in config
        .get("args")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(a) = a.as_str() else { continue };
        let whole = a
            .strip_prefix("${user_config.")
            .and_then(|r| r.strip_suffix('}'))
            .and_then(|k| values.get(k));
        match whole {
            Some(Value::Array(many)) => args.extend(many.iter().map(|v| json!(keep(text_of(v))))),
            _ => args.push(json!(keep(text.fill(a)))),
        }
    }
    if !args.is_empty() {
        out.entry.insert("args".into(), Value::Array(args));
    }
    let env: Map<String, Value> = config
        .get("env")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), json!(keep(text.fill(v))))))
        .collect();
    if !env.is_empty() {
        out.entry.insert("env".into(), Value::Object(env));
    }
    out.entry.insert("cwd".into(), json!(places.dir));
    if let Some(d) = manifest.get("description").and_then(Value::as_str) {
        out.entry.insert("description".into(), json!(d));
    }
    Ok(out)
}

/// The manifest's `server.mcp_config`, this platform's override put over
/// what it names.
fn mcp_config_of(manifest: &Value) -> Result<Map<String, Value>, ErrorInfo> {
    let server = manifest
        .get("server")
        .ok_or_else(|| invalid("its manifest has no server"))?;
    let mut config = server
        .get("mcp_config")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| invalid("its manifest has no server.mcp_config: nothing to run"))?;
    if let Some(over) = config
        .get("platform_overrides")
        .and_then(|o| o.get(std::env::consts::OS))
        .and_then(Value::as_object)
        .cloned()
    {
        for (k, v) in over {
            config.insert(k, v);
        }
    }
    Ok(config)
}

/// The folders a manifest's `${…}` name: the bundle's and the person's.
struct Places {
    dir: String,
    home: String,
}

impl Places {
    fn fixed(&self, text: &str) -> String {
        let home = &self.home;
        text.replace("${__dirname}", &self.dir)
            .replace("${HOME}", home)
            .replace("${DESKTOP}", &format!("{home}/Desktop"))
            .replace("${DOCUMENTS}", &format!("{home}/Documents"))
            .replace("${DOWNLOADS}", &format!("{home}/Downloads"))
            .replace("${pathSeparator}", "/")
            .replace("${/}", "/")
    }
}

/// An answer for a key the manifest does not ask for is refused.
fn check_answers(
    declared: &Map<String, Value>,
    answers: &[(String, String)],
) -> Result<(), ErrorInfo> {
    for key in answers.iter().map(|(k, _)| k) {
        if !declared.contains_key(key) {
            return Err(invalid(format!(
                "it asks for no \"{key}\" (it asks for: {})",
                if declared.is_empty() {
                    "nothing".to_string()
                } else {
                    declared.keys().cloned().collect::<Vec<_>>().join(", ")
                }
            )));
        }
    }
    Ok(())
}

/// Each declared key's value: the person's answers (all of them for a
/// `multiple` key), else its default, else nothing (a required one
/// refuses). A sensitive value becomes a prompted input of `out` (kept in
/// its secrets, to store in the keychain) and the value a reference to it.
fn values_of(
    declared: &Map<String, Value>,
    answers: &[(String, String)],
    name: &str,
    places: &Places,
    out: &mut BundleEntry,
) -> Result<Map<String, Value>, ErrorInfo> {
    let mut values: Map<String, Value> = Map::new();
    for (key, decl) in declared {
        let given: Vec<&str> = answers
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect();
        let value = if !given.is_empty() {
            if decl.get("multiple").and_then(Value::as_bool) == Some(true) {
                json!(given)
            } else {
                json!(given[given.len() - 1])
            }
        } else if let Some(d) = decl.get("default") {
            match d {
                Value::String(s) => json!(places.fixed(s)),
                Value::Array(a) => Value::Array(
                    a.iter()
                        .map(|x| {
                            x.as_str()
                                .map(|s| json!(places.fixed(s)))
                                .unwrap_or(x.clone())
                        })
                        .collect(),
                ),
                other => other.clone(),
            }
        } else if decl.get("required").and_then(Value::as_bool) == Some(true) {
            let title = decl.get("title").and_then(Value::as_str).unwrap_or(key);
            return Err(invalid(format!(
                "it needs {title} ({key}): give it (--set {key}=VALUE)"
            )));
        } else {
            continue;
        };
        if decl.get("sensitive").and_then(Value::as_bool) == Some(true) {
            let id = format!("{name}-{}", key.replace('_', "-").to_ascii_lowercase());
            out.inputs.push(json!({
                "type": "promptString",
                "id": id,
                "description": decl.get("title").and_then(Value::as_str).unwrap_or(key),
                "password": true,
            }));
            if let Some(v) = value.as_str().filter(|v| !v.is_empty()) {
                out.secrets.push((id.clone(), v.to_string()));
            }
            values.insert(key.clone(), json!(format!("${{input:{id}}}")));
        } else {
            values.insert(key.clone(), value);
        }
    }
    Ok(values)
}

/// A value as the text it stands for in a command, argument or variable.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

/// Literal text from the bundle stays literal in mcp.json, except the
/// input references this mapping itself wrote.
fn keep(s: String) -> String {
    s.replace("${", "$${").replace("$${input:", "${input:")
}

/// A manifest's text with its places and the person's values put in.
struct Text<'a> {
    places: &'a Places,
    values: &'a Map<String, Value>,
}

impl Text<'_> {
    /// `${user_config.KEY}` in a string: its value as text (a multiple
    /// value's joined with commas).
    fn fill(&self, text: &str) -> String {
        let mut s = self.places.fixed(text);
        for (key, v) in self.values {
            let reference = format!("${{user_config.{key}}}");
            let as_text = match v {
                Value::Array(a) => a.iter().map(text_of).collect::<Vec<_>>().join(","),
                other => text_of(other),
            };
            s = s.replace(&reference, &as_text);
        }
        s
    }
}

/// Download the bundle at `url` (a registry `mcpb` package's identifier)
/// into `dest`, at most 1 GiB; its hash is checked by the installer.
pub async fn download(url: &str, dest: &Path) -> Result<(), ErrorInfo> {
    let parsed =
        url::Url::parse(url).map_err(|e| invalid(format!("{url} is not an address: {e}")))?;
    if !matches!(parsed.scheme(), "https" | "http") {
        return Err(invalid(format!(
            "{url}: a bundle is downloaded over http(s)"
        )));
    }
    let client = workbench_http::builder()
        .timeout(std::time::Duration::from_secs(300))
        .build()
        .map_err(|e| invalid(format!("no HTTP client: {e}")))?;
    let mut response =
        client.get(parsed).send().await.map_err(|e| {
            ErrorInfo::new(ErrorCode::Transport, format!("cannot download {url}: {e}"))
        })?;
    if !response.status().is_success() {
        return Err(ErrorInfo::new(
            ErrorCode::Transport,
            format!("{url} answered {}", response.status()),
        ));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| {
        ErrorInfo::new(
            ErrorCode::Transport,
            format!("the download of {url} broke off: {e}"),
        )
    })? {
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > MAX_BYTES {
            return Err(invalid(format!("{url} is over 1 GiB: refused")));
        }
    }
    if let Some(parent) = dest.parent() {
        std::fs::create_dir_all(parent).map_err(|e| invalid(e.to_string()))?;
    }
    std::fs::write(dest, bytes)
        .map_err(|e| invalid(format!("cannot write {}: {e}", dest.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pack(path: &Path, name: &str, command: &str) {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        zip.start_file("manifest.json", stored).unwrap();
        let manifest = json!({
            "manifest_version": "0.3", "name": name, "version": "1.0.0",
            "server": { "type": "binary", "mcp_config": { "command": command } }
        });
        std::io::Write::write_all(&mut zip, manifest.to_string().as_bytes()).unwrap();
        zip.finish().unwrap();
    }

    /// A bundle replaced between being read (and shown, and checked) and
    /// being unpacked: nothing of either is unpacked.
    #[test]
    fn a_bundle_changed_after_it_was_read_is_not_unpacked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("b.mcpb");
        pack(&file, "b", "/usr/bin/true");
        let read_as = read(&file).unwrap();
        pack(&file, "b", "/usr/bin/false");
        let into = dir.path().join("unpacked");
        let err = unpack(&read_as, &into).unwrap_err();
        assert_eq!(err.code, ErrorCode::Refused);
        assert!(
            err.message.contains("changed since it was read"),
            "{}",
            err.message
        );
        assert!(!into.exists());
        // The file as it is now, read again, unpacks.
        unpack(&read(&file).unwrap(), &into).unwrap();
        let manifest = std::fs::read_to_string(into.join("manifest.json")).unwrap();
        assert!(manifest.contains("/usr/bin/false"));
    }
}
