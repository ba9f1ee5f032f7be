//! What a person does with the sessions hosts had through `mcpwb tap`:
//! list, read, delete, export (masked unless asked), import, each host's
//! fingerprint and two compared, and a session saved as a suite.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use workbench_calls::suite::trust::{Review, SuiteTrust, review};
use workbench_core::config::{ServerEntry, Transport};
use workbench_core::{ErrorCode, ErrorInfo};
use workbench_store::Store;
pub use workbench_store::{TapMessage, TapRow};
pub use workbench_tap::session::Session;

use crate::invalid;

/// Which of the config's entries a session was with: the one of its name,
/// else the one whose URL (its origin and path) or command line the
/// session's server ran as. None: none matches (an HTTP tap names its
/// sessions by `host:port`), and the person says which.
pub fn server_of(session: &Session, entries: &[ServerEntry]) -> Option<String> {
    let named = session.header["server"].as_str().unwrap_or_default();
    if let Some(e) = entries.iter().find(|e| e.name == named) {
        return Some(e.name.clone());
    }
    let command = session.header["command"].as_str().unwrap_or_default();
    let without_query = |u: &str| {
        u.split(['?', '#'])
            .next()
            .unwrap_or(u)
            .trim_end_matches('/')
            .to_string()
    };
    entries
        .iter()
        .find(|e| match &e.transport {
            Transport::Stdio {
                command: c, args, ..
            } => {
                let line = std::iter::once(c.as_str())
                    .chain(args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" ");
                line == command
            }
            Transport::StreamableHttp { url, .. }
            | Transport::Sse { url, .. }
            | Transport::RemoteAuto { url, .. } => {
                !command.is_empty() && without_query(url) == without_query(command)
            }
        })
        .map(|e| e.name.clone())
}

/// A session saved as a suite.
pub struct SaveAsSuite {
    /// The session.
    pub session: i64,
    /// The suite's name (default `session-ID`).
    pub name: Option<String>,
    /// The entry its cases call (default: [`server_of`]).
    pub server: Option<String>,
    /// The folder it is written into.
    pub dir: PathBuf,
}

/// The suite a session became: not trusted until the person trusts it in
/// its review (what a host sent is someone else's input).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteMade {
    pub path: String,
    /// The entry its cases call.
    pub server: String,
    pub cases: u32,
    /// Calls answered with a JSON-RPC error, not made cases.
    pub left_out: u32,
    /// What it would do, for the person to trust it.
    pub review: Review,
}

/// Session `request.session`'s answered tool calls as a new suite, held to
/// what the host saw: each call's arguments as the host sent them (kept as
/// text: a `${…}` a host's model wrote is never read as a reference), its
/// result a snapshot (an error result expected as one), compared without
/// what only one protocol era adds. The suite is written untrusted, marked
/// as made from the session: it runs once the person has read and trusted
/// it, wherever it lies. `entries`: the config's, to name the server.
pub fn save_as_suite(
    store: &Store,
    entries: &[ServerEntry],
    request: SaveAsSuite,
) -> Result<SuiteMade, ErrorInfo> {
    let id = request.session;
    let session = open(store, id)?;
    let server = match request.server.or_else(|| server_of(&session, entries)) {
        Some(s) => s,
        None => {
            let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
            return Err(invalid(format!(
                "which server is the suite for? Session {id} was with {} and no entry of your mcp.json runs that; name one ({})",
                session.header["server"].as_str().unwrap_or("a server"),
                if names.is_empty() {
                    "there are none".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
    };
    if !entries.is_empty() && !entries.iter().any(|e| e.name == server) {
        return Err(ErrorInfo::new(
            ErrorCode::UnknownServer,
            format!("no server named \"{server}\" in your mcp.json"),
        ));
    }
    let (mut suite, snapshots, left_out) = workbench_tap::session::to_suite(&session, &server);
    let cases = suite["cases"].as_array().map_or(0, Vec::len);
    if cases == 0 {
        return Err(invalid(format!(
            "session {id} has no answered tools/call to make a case of"
        )));
    }
    suite["madeFrom"] = Value::String(made_from(&session, id));
    let name = request.name.unwrap_or_else(|| format!("session-{id}"));
    let path = workbench_calls::suite::create(&request.dir, &name, &suite, &snapshots, None)?;
    let (mut read, broken) = workbench_calls::suite::load(std::slice::from_ref(&path));
    let parsed = match (read.pop(), broken.first()) {
        (Some(s), None) => s,
        (_, Some(b)) => return Err(invalid(format!("the suite does not read back: {b}"))),
        (None, None) => return Err(invalid("the suite does not read back")),
    };
    Ok(SuiteMade {
        path: path.display().to_string(),
        server,
        cases: u32::try_from(cases).unwrap_or(u32::MAX),
        left_out: u32::try_from(left_out).unwrap_or(u32::MAX),
        review: review(&parsed, &SuiteTrust::app()),
    })
}

/// What the suite says it was made from: the session and its host.
fn made_from(session: &Session, id: i64) -> String {
    let h = &session.header;
    match (h["host"].as_str(), h["hostVersion"].as_str()) {
        (Some(host), Some(v)) => format!("session {id} ({host} {v})"),
        (Some(host), None) => format!("session {id} ({host})"),
        _ => format!("session {id}"),
    }
}

/// The largest session file read by an import.
const MAX_IMPORT: u64 = 512 * 1024 * 1024;

fn storage(what: &str, e: impl std::fmt::Display) -> ErrorInfo {
    ErrorInfo::new(ErrorCode::Storage, format!("{what}: {e}"))
}

/// The sessions kept, newest first (at most `limit`).
pub fn list(store: &Store, limit: u32) -> Result<Vec<TapRow>, ErrorInfo> {
    store.taps(limit).map_err(|e| storage("the sessions", e))
}

/// Session `id` as kept (its credentials as the tap kept them: masked
/// where it knew them).
pub fn open(store: &Store, id: i64) -> Result<Session, ErrorInfo> {
    Session::from_store(store, id).map_err(|e| match e {
        workbench_tap::session::SessionError::NotFound(_) => {
            ErrorInfo::new(ErrorCode::NotFound, e.to_string())
        }
        other => ErrorInfo::new(ErrorCode::Storage, other.to_string()),
    })
}

/// Session `id`'s messages in order.
pub fn messages(store: &Store, id: i64) -> Result<Vec<TapMessage>, ErrorInfo> {
    store
        .tap_messages(id)
        .map_err(|e| storage("the session's messages", e))
}

/// Forget session `id` and its messages (its calls stay in the History).
pub fn delete(store: &Store, id: i64) -> Result<(), ErrorInfo> {
    match store.delete_tap(id) {
        Ok(true) => Ok(()),
        Ok(false) => Err(ErrorInfo::new(
            ErrorCode::NotFound,
            format!("no session {id}"),
        )),
        Err(e) => Err(storage(&format!("session {id}"), e)),
    }
}

/// A session file's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One JSON object a line: the header, then each message (what
    /// `import` and `mcpwb mock` read).
    Jsonl,
    /// An HTTP archive, for the tools that read those.
    Har,
}

/// Session `id` as a file's text, and the file's usual name; credentials
/// masked unless `unmasked` (the person asked, in a terminal).
pub fn export(
    store: &Store,
    id: i64,
    format: Format,
    unmasked: bool,
) -> Result<(String, String), ErrorInfo> {
    let mut session = open(store, id)?;
    if !unmasked {
        session = session.masked();
    }
    Ok(match format {
        Format::Har => (
            format!("session-{id}.har"),
            serde_json::to_string_pretty(&workbench_tap::har::to_har(&session)).unwrap_or_default()
                + "\n",
        ),
        Format::Jsonl => (format!("session-{id}.jsonl"), session.to_jsonl()),
    })
}

/// Keep the session in file `path` (JSON Lines, as exported; read without
/// following a symlink): its new id. It is marked as imported from there.
pub fn import(store: &Store, path: &std::path::Path) -> Result<i64, ErrorInfo> {
    read_file(path)?
        .import(store, path)
        .map_err(|e| storage(&path.display().to_string(), e))
}

/// The session in file `path` (JSON Lines, as exported), read without
/// following a symlink.
pub fn read_file(path: &std::path::Path) -> Result<Session, ErrorInfo> {
    let bytes = workbench_core::files::read_no_follow(path, MAX_IMPORT)
        .map_err(|e| invalid(format!("{}: {e}", path.display())))?;
    Session::from_jsonl(&String::from_utf8_lossy(&bytes))
        .map_err(|e| invalid(format!("{}: {e}", path.display())))
}

/// What the host did in session `id` (its fingerprint).
pub fn fingerprint(store: &Store, id: i64) -> Result<Value, ErrorInfo> {
    Ok(workbench_tap::fingerprint::of_session(&open(store, id)?))
}

/// Each host release's fingerprint, merged over its kept sessions (the
/// newest 1,000).
pub fn hosts(store: &Store) -> Result<Vec<Value>, ErrorInfo> {
    let mut by_host: std::collections::BTreeMap<(String, String), Vec<Value>> =
        std::collections::BTreeMap::new();
    for r in list(store, 1000)? {
        let Some(host) = r.host.clone() else { continue };
        by_host
            .entry((host, r.host_version.clone().unwrap_or_default()))
            .or_default()
            .push(fingerprint(store, r.id)?);
    }
    Ok(by_host
        .values()
        .map(|all| workbench_tap::fingerprint::merge(all))
        .collect())
}

/// A session id's fingerprint, or HOST@VERSION's (HOST's) over its sessions.
pub fn fingerprint_of(store: &Store, which: &str) -> Result<Value, ErrorInfo> {
    if let Ok(id) = which.parse::<i64>() {
        return fingerprint(store, id);
    }
    let (host, version) = which.rsplit_once('@').unwrap_or((which, ""));
    hosts(store)?
        .into_iter()
        .find(|f| f["host"] == host && (version.is_empty() || f["version"] == version))
        .ok_or_else(|| {
            ErrorInfo::new(
                ErrorCode::NotFound,
                format!("no session of {which}: `mcpwb session hosts` lists the hosts seen"),
            )
        })
}

/// What the host of `b` does differently from the host of `a`, in sentences.
pub fn compare(a: &Value, b: &Value) -> Vec<String> {
    workbench_tap::fingerprint::compare(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session file as `mcpwb session export` writes one: an HTTP server
    /// whose URL carries a key, a host that sent a bearer token, and the
    /// server echoing it back.
    const FILE: &str = concat!(
        r#"{"mcpwbSession":1,"server":"127.0.0.1:9","command":"https://api.example.com/mcp?api_key=KEY-0123456789abcdef","host":"claude-code","hostVersion":"2.1","protocol":"2025-11-25","startedAt":1,"endedAt":2}"#,
        "\n",
        r#"{"at":1,"from":"tap","message":{"http":{"method":"POST","path":"/mcp?api_key=KEY-0123456789abcdef","status":200,"requestHeaders":{"authorization":"Bearer TOKEN-fedcba9876543210"}}}}"#,
        "\n",
        r#"{"at":1,"from":"host","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"claude-code","version":"2.1"}}}}"#,
        "\n",
        r#"{"at":1,"from":"host","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"hi"}}}}"#,
        "\n",
        r#"{"at":2,"from":"server","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"you sent Bearer TOKEN-fedcba9876543210"}]}}}"#,
        "\n",
    );

    fn kept() -> (tempfile::TempDir, Store, i64) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let file = dir.path().join("s.jsonl");
        std::fs::write(&file, FILE).unwrap();
        let id = import(&store, &file).expect("imported");
        (dir, store, id)
    }

    #[test]
    fn an_export_masks_what_the_host_and_the_url_carried_unless_asked() {
        let (_dir, store, id) = kept();
        for format in [Format::Jsonl, Format::Har] {
            let (name, text) = export(&store, id, format, false).unwrap();
            assert!(name.starts_with(&format!("session-{id}.")), "{name}");
            assert!(!text.contains("TOKEN-fedcba9876543210"), "{text}");
            assert!(!text.contains("KEY-0123456789abcdef"), "{text}");
        }
        let (_, text) = export(&store, id, Format::Jsonl, true).unwrap();
        assert!(text.contains("TOKEN-fedcba9876543210"));
        // What is exported reads back as the same session.
        let back = Session::from_jsonl(&text).unwrap();
        assert_eq!(back.messages.len(), 4);
    }

    #[test]
    fn a_missing_session_is_not_found_and_a_deleted_one_is_gone() {
        let (_dir, store, id) = kept();
        assert_eq!(list(&store, 10).unwrap().len(), 1);
        delete(&store, id).unwrap();
        assert_eq!(open(&store, id).unwrap_err().code, ErrorCode::NotFound);
        assert_eq!(delete(&store, id).unwrap_err().code, ErrorCode::NotFound);
        assert!(list(&store, 10).unwrap().is_empty());
    }

    #[test]
    fn an_import_never_follows_a_symlink_and_says_what_is_wrong_with_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        let real = dir.path().join("real.jsonl");
        std::fs::write(&real, FILE).unwrap();
        let link = dir.path().join("link.jsonl");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let err = import(&store, &link).unwrap_err();
        assert_eq!(err.code, ErrorCode::Invalid, "{}", err.message);
        let broken = dir.path().join("broken.jsonl");
        std::fs::write(&broken, "{\"mcpwbSession\":1}\nnot json\n").unwrap();
        let err = import(&store, &broken).unwrap_err();
        assert!(err.message.contains("line 2"), "{}", err.message);
        assert!(list(&store, 10).unwrap().is_empty(), "nothing kept");
    }

    #[test]
    fn hosts_are_fingerprinted_by_release_and_found_by_name() {
        let (_dir, store, id) = kept();
        let hosts = hosts(&store).unwrap();
        assert_eq!(hosts.len(), 1);
        assert_eq!(hosts[0]["host"], "claude-code");
        let by_id = fingerprint_of(&store, &id.to_string()).unwrap();
        let by_name = fingerprint_of(&store, "claude-code@2.1").unwrap();
        assert_eq!(by_id["methods"], by_name["methods"]);
        assert!(compare(&by_id, &by_name).is_empty());
        assert_eq!(
            fingerprint_of(&store, "other@1").unwrap_err().code,
            ErrorCode::NotFound
        );
    }
}
