//! What a person does with the sessions hosts had through `mcpwb tap`.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use workbench_calls::suite::trust::{Review, SuiteTrust, review};
use workbench_core::config::{ServerEntry, Transport};
use workbench_core::{ErrorCode, ErrorInfo};
use workbench_store::Store;
use workbench_tap::session::Session;

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
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
    let session = Session::from_store(store, id).map_err(|e| match e {
        workbench_tap::session::SessionError::NotFound(_) => {
            ErrorInfo::new(ErrorCode::NotFound, e.to_string())
        }
        other => ErrorInfo::new(ErrorCode::Storage, other.to_string()),
    })?;
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
    let path = workbench_calls::suite::create(&request.dir, &name, &suite, &snapshots, None)
        .map_err(invalid)?;
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
