//! How real clients find a server's era, played from its raw answers
//! (`Workbench::handshakes`): each way ends speaking a version, or failing,
//! and why. The ways are the ones clients in use take: `server/discover`
//! falling back to `initialize` on `-32601` (the TypeScript SDK), on
//! `-32602` (the Python SDK), on any error or no answer within a time, and
//! a 2025 client's `initialize` offering a newer version than the server
//! may know (the server must answer with one it speaks).

use serde::Serialize;
use serde_json::Value;
use workbench_core::connect::stdio::EndedBy;
use workbench_core::workbench::handshakes::{Answer, Handshakes, NO_ANSWER, STOP_GRACE};

use crate::finding::{Finding, Severity};

/// The versions a client of today knows.
const KNOWN: [&str; 5] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// What one way of finding the era ends with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClientEra {
    /// Whose way it is.
    pub client: String,
    /// What it sends and when it falls back.
    pub how: String,
    /// The version it ends up speaking (None: it fails).
    pub speaks: Option<String>,
    /// How it got there, or why it fails.
    pub why: String,
}

fn said(a: &Answer) -> String {
    match a {
        Answer::Result { .. } => "a result".into(),
        Answer::Error { code, message } => format!("error {code} ({message})"),
        Answer::None { why } => format!("no answer: {why}"),
    }
}

/// What `initialize` ends with: the version the server answered, when a
/// client knows it.
fn initialized(a: &Answer, offered: &str) -> (Option<String>, String) {
    match a {
        Answer::Result { result } => match result["protocolVersion"].as_str() {
            Some(v) if KNOWN.contains(&v) => (
                Some(v.to_string()),
                format!("initialize {offered} was answered with {v}"),
            ),
            Some(v) => (
                None,
                format!("initialize {offered} was answered with {v}, a version no client knows"),
            ),
            None => (
                None,
                format!("initialize {offered} was answered without a protocolVersion"),
            ),
        },
        other => (None, format!("initialize {offered} got {}", said(other))),
    }
}

/// One `server/discover` client: speaks 2026-07-28 when the server lists
/// it, else falls back when `falls_back` says so.
fn discovering(
    client: &str,
    how: &str,
    h: &Handshakes,
    falls_back: impl Fn(&Answer) -> bool,
) -> ClientEra {
    let (speaks, why) = match &h.discover {
        Answer::Result { result } => {
            let versions: Vec<&str> = result["supportedVersions"]
                .as_array()
                .map(|l| l.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if versions.contains(&"2026-07-28") {
                (
                    Some("2026-07-28".to_string()),
                    "server/discover lists 2026-07-28".to_string(),
                )
            } else if versions.is_empty() {
                (
                    None,
                    "server/discover was answered without supportedVersions: the client cannot pick a version and stops".into(),
                )
            } else {
                (
                    None,
                    format!(
                        "server/discover lists only {versions:?}, none this client speaks over server/discover"
                    ),
                )
            }
        }
        other if falls_back(other) => {
            let (v, why) = initialized(&h.initialize_2025, "2025-11-25");
            (
                v,
                format!("server/discover got {}; fell back: {why}", said(other)),
            )
        }
        other => (
            None,
            format!(
                "server/discover got {}, which is not what it falls back on: it stops",
                said(other)
            ),
        ),
    };
    ClientEra {
        client: client.into(),
        how: how.into(),
        speaks,
        why,
    }
}

/// Every way, played on the server's answers.
pub fn play(h: &Handshakes) -> Vec<ClientEra> {
    let code = |c: i64| move |a: &Answer| matches!(a, Answer::Error { code, .. } if *code == c);
    let mut out = vec![
        discovering(
            "TypeScript SDK",
            "server/discover; falls back to initialize on -32601",
            h,
            code(-32601),
        ),
        discovering(
            "Python SDK",
            "server/discover; falls back to initialize on -32602",
            h,
            code(-32602),
        ),
        discovering(
            "A client that waits",
            &format!(
                "server/discover; falls back on any error or no answer within {} s",
                NO_ANSWER.as_secs()
            ),
            h,
            |a| !matches!(a, Answer::Result { .. }),
        ),
    ];
    let (mut speaks, mut why) = initialized(&h.initialize_newer, "2026-07-28");
    // 2026-07-28 is found through server/discover: a server that answers
    // initialize with it while it does not list it there echoes the
    // version it was offered, and the client goes on in an era the server
    // does not speak.
    let discovers_2026 = matches!(&h.discover, Answer::Result { result }
        if result["supportedVersions"].as_array().is_some_and(|l| l.iter().any(|v| v == "2026-07-28")));
    if speaks.as_deref() == Some("2026-07-28") && !discovers_2026 {
        speaks = None;
        why = format!(
            "initialize 2026-07-28 was answered with 2026-07-28, but server/discover ({}) does not list it: the server echoes the version it is offered",
            match &h.discover {
                Answer::Result { .. } => "a result without it".to_string(),
                other => said(other),
            }
        );
    }
    out.push(ClientEra {
        client: "A 2025 client offering a newer version".into(),
        how: "initialize with 2026-07-28; takes the version the server answers".into(),
        speaks,
        why,
    });
    let (speaks, why) = initialized(&h.initialize_2025, "2025-11-25");
    out.push(ClientEra {
        client: "A 2025 client".into(),
        how: "initialize with 2025-11-25".into(),
        speaks,
        why,
    });
    out
}

/// The ways that fail, as one finding.
pub fn findings(clients: &[ClientEra]) -> Vec<Finding> {
    let failing: Vec<&ClientEra> = clients.iter().filter(|c| c.speaks.is_none()).collect();
    if failing.is_empty() {
        return Vec::new();
    }
    vec![
        Finding::new("era.client-fails", Severity::Warning, "server")
            .seen(
                failing
                    .iter()
                    .map(|c| format!("{}: {}", c.client, c.why))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
            .why("clients find a server's era in different ways (the TypeScript SDK falls back on -32601, the Python SDK on -32602); one whose way ends in an error does not connect at all")
            .fix("speak 2026-07-28 (answer server/discover with your supportedVersions): every way then gets through; a 2025-era server cannot satisfy both fallbacks, so answer server/discover with -32601 (Method not found, what most clients expect), and initialize with a version you speak whatever version is offered"),
    ]
}

/// How hosts stop a stdio server: they close its stdin and wait (the
/// spec's shutdown), then SIGTERM, then SIGKILL. One that outlived its
/// stdin's close after an opening is said.
pub fn stopping(h: &Handshakes) -> Vec<Finding> {
    let grace = STOP_GRACE.as_secs();
    let seen = match h.stopped_by {
        None | Some(EndedBy::Itself) => return Vec::new(),
        Some(EndedBy::Sigterm) => {
            format!("still running {grace} s after its stdin closed; SIGTERM ended it")
        }
        Some(EndedBy::Sigkill) => format!(
            "still running {grace} s after its stdin closed, and {grace} s after SIGTERM; SIGKILL ended it"
        ),
    };
    vec![
        Finding::new("stdio.outlives-stdin", Severity::Warning, "server")
            .seen(seen)
            .why("a host stops a stdio server by closing its stdin and waiting for it to exit, then signals it: each restart and each quit of the host waits on it, what it was writing is cut off by the signal, and a host that crashes or is killed leaves it running")
            .fix("exit when stdin reaches its end (in Node, a timer or a socket keeps the process alive after the transport closes: `process.stdin.on('end', () => process.exit(0))`; in Python, end the loop that reads stdin and return from main)"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn h(discover: Answer, newer: Answer) -> Handshakes {
        Handshakes {
            discover,
            initialize_newer: newer,
            initialize_2025: Answer::Result {
                result: json!({"protocolVersion": "2025-11-25"}),
            },
            stopped_by: None,
        }
    }

    #[test]
    fn a_server_that_outlives_its_stdin_is_said_with_what_ended_it() {
        let ok = Answer::Error {
            code: -32601,
            message: "no".into(),
        };
        let mut played = h(ok.clone(), ok);
        assert!(stopping(&played).is_empty(), "over HTTP: nothing to say");
        played.stopped_by = Some(EndedBy::Itself);
        assert!(stopping(&played).is_empty());
        played.stopped_by = Some(EndedBy::Sigterm);
        let said = stopping(&played);
        assert_eq!(said[0].code, "stdio.outlives-stdin");
        assert!(said[0].seen.contains("SIGTERM ended it"), "{:?}", said[0]);
        played.stopped_by = Some(EndedBy::Sigkill);
        assert!(stopping(&played)[0].seen.contains("SIGKILL ended it"));
    }

    fn speaks(c: &[ClientEra]) -> Vec<Option<&str>> {
        c.iter().map(|c| c.speaks.as_deref()).collect()
    }

    #[test]
    fn each_client_ends_as_its_fallback_rule_says() {
        let ok = Answer::Result {
            result: json!({"protocolVersion": "2025-11-25"}),
        };
        // A 2025 server answering -32601: all fall back but Python's.
        let c = play(&h(
            Answer::Error {
                code: -32601,
                message: "Method not found".into(),
            },
            ok.clone(),
        ));
        let v = Some("2025-11-25");
        assert_eq!(speaks(&c), [v, None, v, v, v]);
        assert!(
            c[1].why.contains("not what it falls back on"),
            "{}",
            c[1].why
        );
        // One that never answers: only the waiting client gets through.
        let c = play(&h(
            Answer::None {
                why: "no answer within 5 s".into(),
            },
            ok.clone(),
        ));
        assert_eq!(speaks(&c), [None, None, v, v, v]);
        // A 2026 server.
        let c = play(&h(
            Answer::Result {
                result: json!({"supportedVersions": ["2025-11-25", "2026-07-28"]}),
            },
            Answer::Result {
                result: json!({"protocolVersion": "2026-07-28"}),
            },
        ));
        let n = Some("2026-07-28");
        assert_eq!(speaks(&c), [n, n, n, n, v]);
        assert!(findings(&c).is_empty());
        // One that refuses a newer initialize instead of answering its own.
        let c = play(&h(
            Answer::Error {
                code: -32601,
                message: "nope".into(),
            },
            Answer::Error {
                code: -32602,
                message: "Unsupported protocol version".into(),
            },
        ));
        assert_eq!(c[3].speaks, None);
        assert_eq!(findings(&c)[0].code, "era.client-fails");
        // One that echoes 2026-07-28 in initialize but does not discover.
        let c = play(&h(
            Answer::Error {
                code: -32601,
                message: "nope".into(),
            },
            Answer::Result {
                result: json!({"protocolVersion": "2026-07-28"}),
            },
        ));
        assert_eq!(c[3].speaks, None);
        assert!(c[3].why.contains("echoes"), "{}", c[3].why);
    }
}
