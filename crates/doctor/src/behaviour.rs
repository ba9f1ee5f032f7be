//! How the server behaved, from what the workbench saw of it (its life
//! events and traffic) and a few questions asked on purpose: time to
//! ready, what each protocol era answered, lines on stdout that are not
//! JSON-RPC, a noisy stderr, list changes sent but not declared, lists it
//! declared but could not give, a `subscribe` it declared that fails.

use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use workbench_core::config::{ConfigFile, ProtocolPin};
use workbench_core::connect::{ServerHandle, ServerState};
use workbench_core::traffic::{Direction, MessageKind};
use workbench_core::{CallOptions, Workbench};

use crate::finding::{Finding, Severity};

/// Slower than this to get ready is worth saying.
pub const SLOW_START_MS: f64 = 5_000.0;
/// More stderr lines than this since it started is noise.
pub const NOISY_STDERR: usize = 200;

/// What one protocol era answered.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EraAnswer {
    /// `2025-11-25` (`initialize`) or `2026-07-28` (`server/discover`).
    pub era: String,
    pub ready: bool,
    /// The protocol version it agreed to, or why it did not connect.
    pub answer: String,
    pub ms: f64,
    /// The tools this connection listed (another caller's view of the
    /// list: `cache.public-varies` compares it).
    #[serde(skip)]
    pub tools: Vec<String>,
}

/// Milliseconds from the last start to ready, by its life events.
pub fn ready_ms(handle: &ServerHandle) -> Option<f64> {
    let life = handle.life();
    let ready = life.iter().rposition(|e| e.state == "ready")?;
    let started = life[..ready].iter().rposition(|e| e.state == "starting")?;
    Some(life[ready].at_ms - life[started].at_ms)
}

/// Findings from what was seen of the server so far.
pub fn seen(wb: &Workbench, handle: &ServerHandle, capabilities: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let name = handle.name();
    if let Some(ms) = ready_ms(handle)
        && ms > SLOW_START_MS
    {
        out.push(
            Finding::new("startup.slow", Severity::Warning, "server")
                .seen(format!("ready {:.1} s after it was started", ms / 1000.0))
                .why("clients wait for every server before the first turn (and some give up after 10–30 s)")
                .fix("do slow work (downloads, indexes) after the handshake, or lazily"),
        );
    }
    for e in handle.life().iter().filter(|e| e.state == "catalog") {
        out.push(
            Finding::new("list.failed", Severity::Error, "server")
                .seen(e.reason.clone().unwrap_or_default())
                .why("a list the server declared (or one of its pages) could not be read: clients show nothing of it")
                .fix("answer the list method, with cursors that end and never repeat"),
        );
    }
    let rows = wb.traffic().entries(Some(name));
    let stdout: Vec<_> = rows
        .iter()
        .filter(|r| r.direction == Direction::Incoming && r.kind == MessageKind::Invalid)
        .collect();
    if let Some(first) = stdout.first() {
        out.push(
            Finding::new("stdout.pollution", Severity::Error, "server")
                .seen(format!(
                    "{} line(s) on stdout that are not JSON-RPC, the first: {}",
                    stdout.len(),
                    first.body.chars().take(120).collect::<String>()
                ))
                .why("stdout is the protocol's channel: most clients end the connection on a line that does not parse (a stray print or a logger writing to stdout)")
                .fix("write logs to stderr (console.error, print(..., file=sys.stderr), logging to stderr)"),
        );
    }
    let stderr = rows
        .iter()
        .filter(|r| r.direction == Direction::Stderr)
        .count();
    if stderr > NOISY_STDERR {
        out.push(
            Finding::new("stderr.noisy", Severity::Info, "server")
                .seen(format!("{stderr} stderr lines kept since it started"))
                .why("clients keep stderr in their logs: a chatty server buries its real errors")
                .fix("log less by default; offer a debug level (logging/setLevel)"),
        );
    }
    for list in ["tools", "resources", "prompts"] {
        let method = format!("notifications/{list}/list_changed");
        let sent = rows.iter().any(|r| {
            r.direction == Direction::Incoming
                && r.kind == MessageKind::Notification
                && r.method.as_deref() == Some(method.as_str())
        });
        let declared = capabilities[list]["listChanged"] == true;
        if sent && !declared {
            out.push(
                Finding::new(
                    "capability.undeclared-list-changed",
                    Severity::Error,
                    "server",
                )
                .at(format!("/capabilities/{list}/listChanged"))
                .seen(format!(
                    "it sent {method} without declaring {list}.listChanged"
                ))
                .why("clients ignore list changes a server did not declare: they keep the old list")
                .fix(format!(
                    "declare \"{list}\": {{\"listChanged\": true}} in its capabilities"
                )),
            );
        }
    }
    out
}

/// Ask what it declared and see it work: `resources/subscribe` on its first
/// resource (then unsubscribe), for a server of the 2025 era that says
/// `subscribe`.
pub async fn asked(
    wb: &Workbench,
    server: &str,
    protocol: &str,
    capabilities: &Value,
    resources: &[Value],
) -> Vec<Finding> {
    let mut out = Vec::new();
    if capabilities["resources"]["subscribe"] != true || protocol >= "2026" {
        return out;
    }
    let Some(uri) = resources.iter().find_map(|r| r["uri"].as_str()) else {
        return out;
    };
    let options = || CallOptions {
        timeout: Some(Duration::from_secs(10)),
        ..CallOptions::default()
    };
    match wb.request(server, "resources/subscribe", json!({ "uri": uri }), options()).await {
        Ok(_) => {
            let _ = wb
                .request(server, "resources/unsubscribe", json!({ "uri": uri }), options())
                .await;
        }
        Err(e) => out.push(
            Finding::new("capability.subscribe-fails", Severity::Error, "server")
                .at("/capabilities/resources/subscribe")
                .seen(format!("resources/subscribe {uri}: {e}"))
                .why("it declares resources.subscribe, so clients subscribe and wait for updates that never come")
                .fix("answer resources/subscribe (and send notifications/resources/updated), or stop declaring subscribe"),
        ),
    }
    out
}

/// A quick answer slower than this from its first bytes to its end is a
/// write held back (Nagle's algorithm against the client's delayed ACK,
/// about 40 ms on Linux), not the server's work.
pub const STALL_MS: f64 = 30.0;
/// How many quick questions are asked to see it.
const STALL_ASKS: usize = 12;

/// Ask a Streamable HTTP server a few quick questions (its era's liveness
/// check: `ping`, or `server/discover`) over the kept connection and see
/// how long each streamed answer took from its first bytes to its end: a
/// server that writes an SSE answer in two parts with Nagle's algorithm
/// on makes every call wait for the client's delayed ACK.
pub async fn stalls(wb: &Workbench, handle: &ServerHandle) -> Vec<Finding> {
    let Some(info) = handle.status().info else {
        return Vec::new();
    };
    if info.transport != workbench_core::config::TransportKind::StreamableHttp {
        return Vec::new();
    }
    let method = if info.protocol_version.as_str() >= "2026" {
        "server/discover"
    } else {
        "ping"
    };
    let server = handle.name();
    for _ in 0..STALL_ASKS {
        let asked = wb
            .request(
                server,
                method,
                json!({}),
                CallOptions {
                    timeout: Some(Duration::from_secs(10)),
                    ..CallOptions::default()
                },
            )
            .await;
        if asked.is_err() {
            return Vec::new();
        }
    }
    // The last streamed answers to it: these asks' (a server answering
    // with JSON bodies has none).
    let mut gaps: Vec<f64> = wb
        .traffic()
        .answer_gaps(server)
        .into_iter()
        .rev()
        .filter(|(m, _)| m == method)
        .take(STALL_ASKS)
        .map(|(_, ms)| ms)
        .collect();
    gaps.reverse();
    stall_finding(method, &gaps).into_iter().collect()
}

/// The finding for quick answers that took `gaps` ms each (streamed ones;
/// a server answering with JSON bodies has none), when most waited.
pub fn stall_finding(method: &str, gaps: &[f64]) -> Option<Finding> {
    let held = gaps.iter().filter(|g| **g >= STALL_MS).count();
    if gaps.len() < 3 || held * 2 <= gaps.len() {
        return None;
    }
    let said: Vec<String> = gaps.iter().map(|g| format!("{g:.0} ms")).collect();
    Some(
        Finding::new("http.nagle-stall", Severity::Warning, "server")
            .seen(format!(
                "{held} of {} answers to {method} took {} from their first bytes to their end",
                gaps.len(),
                said.join(", ")
            ))
            .why("it writes each SSE answer in two parts with Nagle's algorithm on: the second part waits for the client's delayed ACK, about 40 ms on every call over a kept connection, for every client")
            .fix("set TCP_NODELAY on the connections it accepts (Node: socket.setNoDelay(true) in the server's 'connection' event; Rust/axum: listener.tap_io(|t| t.set_nodelay(true)); Python: the socket's TCP_NODELAY option, or a server that sets it)"),
    )
}

/// Connect the server's entry again once per era, alone (with the
/// workbench's variables and keychain), and say what each answered.
pub async fn eras(wb: &Workbench, handle: &ServerHandle) -> Vec<EraAnswer> {
    let config = ConfigFile::empty(handle.file());
    let mut out = Vec::new();
    for (pin, era) in [
        (ProtocolPin::V2025_11_25, "2025-11-25"),
        (ProtocolPin::V2026_07_28, "2026-07-28"),
    ] {
        let mut entry = handle.entry().clone();
        entry.protocol = pin;
        let started = std::time::Instant::now();
        let trial = wb
            .trial_alone(&config, entry, Duration::from_secs(20))
            .await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        out.push(match trial {
            Ok(t) => match (&t.status.state, &t.status.info) {
                (ServerState::Ready, Some(info)) => EraAnswer {
                    era: era.into(),
                    ready: true,
                    answer: info.protocol_version.clone(),
                    ms,
                    tools: t.tools.clone(),
                },
                (ServerState::Failed { reason, .. }, _) => EraAnswer {
                    era: era.into(),
                    ready: false,
                    answer: reason.clone(),
                    ms,
                    tools: Vec::new(),
                },
                (state, _) => EraAnswer {
                    era: era.into(),
                    ready: false,
                    answer: format!("{state:?}"),
                    ms,
                    tools: Vec::new(),
                },
            },
            Err(e) => EraAnswer {
                era: era.into(),
                ready: false,
                answer: e.to_string(),
                ms,
                tools: Vec::new(),
            },
        });
    }
    out
}

/// Findings from the eras' answers.
pub fn era_findings(eras: &[EraAnswer]) -> Vec<Finding> {
    if eras.is_empty() || eras.iter().all(|e| e.ready) {
        return Vec::new();
    }
    if eras.iter().all(|e| !e.ready) {
        return vec![
            Finding::new("era.none", Severity::Error, "server")
                .seen(
                    eras.iter()
                        .map(|e| format!("{}: {}", e.era, e.answer))
                        .collect::<Vec<_>>()
                        .join("; "),
                )
                .why("connected alone, it answered neither initialize nor server/discover")
                .fix("see the reasons; start it by hand with the same command to read its errors"),
        ];
    }
    let only: Vec<&EraAnswer> = eras.iter().filter(|e| e.ready).collect();
    let not: Vec<&EraAnswer> = eras.iter().filter(|e| !e.ready).collect();
    vec![
        Finding::new("era.one-only", Severity::Info, "server")
            .seen(format!(
                "speaks {} only; {}: {}",
                only.iter().map(|e| e.era.as_str()).collect::<Vec<_>>().join(", "),
                not.iter().map(|e| e.era.as_str()).collect::<Vec<_>>().join(", "),
                not.iter().map(|e| e.answer.as_str()).collect::<Vec<_>>().join("; ")
            ))
            .why("clients of the other era negotiate down or fail; a server that answers an unknown server/discover with an error lets 2026 clients fall back")
            .fix("nothing to do unless clients of the other era must connect"),
    ]
}

/// The era trap in the History: this server's tools whose calls failed
/// because they asked the 2025-11-25 way (a server-initiated request) in
/// the 2026-07-28 era, each with how many calls and what it sent.
pub fn era_trapped(store: &workbench_store::Store, server: &str) -> Vec<Finding> {
    let query = workbench_store::HistoryQuery {
        server: Some(server.to_string()),
        status: Some(workbench_store::CallStatus::Failed),
        search: Some("server-initiated requests".into()),
        limit: 1000,
        ..Default::default()
    };
    let Ok(rows) = store.history(&query) else {
        return Vec::new();
    };
    let mut tools: std::collections::BTreeMap<String, (usize, String)> = Default::default();
    for row in rows {
        let error = row.error.unwrap_or_default();
        let asked = ["elicitation/create", "sampling/createMessage", "roots/list"]
            .into_iter()
            .find(|m| error.contains(m))
            .unwrap_or("a request of its own");
        let seen = tools.entry(row.tool).or_insert((0, asked.to_string()));
        seen.0 += 1;
    }
    tools
        .into_iter()
        .map(|(tool, (count, asked))| {
            Finding::new("era.asks-the-old-way", Severity::Warning, format!("tool {tool}"))
                .seen(format!(
                    "{count} call(s) in the History failed: it sent {asked} while answering, in the 2026-07-28 era"
                ))
                .why("the 2026-07-28 era has no server-initiated requests (the official Python SDK's ctx.elicit and ctx.sample send one): a client of that era cannot answer, and the call fails")
                .fix("ask with input_required (a multi-round call, SEP-2322), which both eras' clients can answer; or, until then, pin the entry to \"protocolVersion\": \"2025-11-25\"")
        })
        .collect()
}
