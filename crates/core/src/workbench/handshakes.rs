//! The first message of each way a client finds a server's era, sent raw
//! and the answer kept as it came: `server/discover` (2026-07-28) on a
//! fresh connection, and `initialize` offering a version newer than the
//! 2025 era (`2026-07-28`) and the 2025 one. What each real client makes of
//! these answers is the doctor's (`--eras`). A stdio server is started once
//! per message (its stderr kept under `SERVER (handshakes)`); a Streamable
//! HTTP one gets a sessionless POST each. The legacy SSE transport has one
//! era only and is not played.

use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::Workbench;
use crate::config::Transport;
use crate::connect::stdio::EndedBy;
use crate::error::{Error, Result};

/// How long an answer is waited for before it counts as none.
pub const NO_ANSWER: Duration = Duration::from_secs(5);

/// One message's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Answer {
    /// A result (as sent).
    Result { result: Value },
    /// A JSON-RPC error.
    Error { code: i64, message: String },
    /// Nothing within the time (or the connection ended first: why).
    None { why: String },
}

/// What the server answered to each opening.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Handshakes {
    /// `server/discover`, first thing on a new connection.
    pub discover: Answer,
    /// `initialize` offering `2026-07-28` (newer than the 2025 era).
    pub initialize_newer: Answer,
    /// `initialize` offering `2025-11-25`.
    pub initialize_2025: Answer,
    /// A stdio server: what ended it once its stdin closed after an
    /// opening (the most it took of the three; None over HTTP).
    pub stopped_by: Option<EndedBy>,
}

fn discover() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "mcpwb-doctor", "version": env!("CARGO_PKG_VERSION")},
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }})
}

fn initialize(version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "mcpwb-doctor", "version": env!("CARGO_PKG_VERSION")}
    }})
}

/// The answer to id 1 in a message (or None when it is something else).
fn answer_of(message: &Value) -> Option<Answer> {
    if message["id"] != json!(1) {
        return None;
    }
    if let Some(e) = message.get("error") {
        return Some(Answer::Error {
            code: e["code"].as_i64().unwrap_or(0),
            message: e["message"].as_str().unwrap_or_default().to_string(),
        });
    }
    message
        .get("result")
        .map(|r| Answer::Result { result: r.clone() })
}

impl Workbench {
    /// Send each opening to `server`'s entry on a connection of its own,
    /// through the one door: an entry not trusted or turned off is refused
    /// before anything is read, started or sent.
    pub async fn handshakes(&self, server: &str) -> Result<Handshakes> {
        let handle = self.server(server)?;
        if matches!(handle.entry().transport, Transport::Sse { .. }) {
            return Err(Error::Refused(format!(
                "{server} speaks the legacy SSE transport, which has one era (2024-11-05): nothing to play"
            )));
        }
        let admitted = crate::connect::door::admit(
            handle.entry(),
            &self.inner.options.supervisor.vars,
            self.traffic(),
        )
        .await?;
        let label = format!("{server} (handshakes)");
        let mut answers = Vec::new();
        let mut stopped_by: Option<EndedBy> = None;
        for message in [
            discover(),
            initialize("2026-07-28"),
            initialize("2025-11-25"),
        ] {
            let answer =
                if let Some(started) = admitted.spawn(&label, handle.base_dir(), self.traffic()) {
                    let (answer, ended_by) = over_stdio(started, &message).await;
                    stopped_by = stopped_by.max(ended_by);
                    answer
                } else {
                    match admitted.http() {
                        Some(Ok((url, client))) => over_http(&url, client, &message).await,
                        Some(Err(why)) => return Err(Error::Refused(why)),
                        None => Answer::None {
                            why: "neither a command nor a URL".into(),
                        },
                    }
                };
            answers.push(answer);
        }
        let mut it = answers.into_iter();
        let mut next = || it.next().unwrap_or(Answer::None { why: String::new() });
        Ok(Handshakes {
            discover: next(),
            initialize_newer: next(),
            initialize_2025: next(),
            stopped_by,
        })
    }
}

async fn over_stdio(
    started: std::result::Result<
        (
            crate::connect::stdio::StdioChild,
            crate::connect::stdio::StdioPipes,
        ),
        String,
    >,
    message: &Value,
) -> (Answer, Option<EndedBy>) {
    let (child, pipes) = match started {
        Ok(started) => started,
        Err(why) => return (Answer::None { why }, None),
    };
    let mut write = pipes.write;
    let mut lines = BufReader::new(pipes.read).lines();
    let line = format!("{message}\n");
    let answer = tokio::time::timeout(NO_ANSWER, async {
        if let Err(e) = write.write_all(line.as_bytes()).await {
            return Answer::None {
                why: format!("it did not take the message: {e}"),
            };
        }
        let _ = write.flush().await;
        loop {
            match lines.next_line().await {
                Ok(Some(text)) => {
                    if let Some(a) = serde_json::from_str::<Value>(&text)
                        .ok()
                        .as_ref()
                        .and_then(answer_of)
                    {
                        return a;
                    }
                }
                Ok(None) => {
                    return Answer::None {
                        why: "it closed its output without answering".into(),
                    };
                }
                Err(e) => return Answer::None { why: e.to_string() },
            }
        }
    })
    .await
    .unwrap_or_else(|_| Answer::None {
        why: format!("no answer within {} s", NO_ANSWER.as_secs()),
    });
    // Closed as a host closes it to stop the server.
    drop(write);
    drop(lines);
    let exit = child.shutdown(STOP_GRACE).await;
    (answer, Some(exit.ended_by))
}

/// How long a server is given to end once its stdin closes (then SIGTERM
/// and as long again): what the doctor holds a server to.
pub const STOP_GRACE: Duration = Duration::from_secs(2);

/// One sessionless POST with the entry's client (its headers go only where
/// they were meant to: the door's checks of plain http and redirects).
async fn over_http(url: &str, client: reqwest::Client, message: &Value) -> Answer {
    let version = if message["method"] == "server/discover" {
        "2026-07-28"
    } else {
        "2025-11-25"
    };
    let request = client
        .post(url)
        .timeout(NO_ANSWER)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("MCP-Protocol-Version", version)
        .body(message.to_string());
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) if e.is_timeout() => {
            return Answer::None {
                why: format!("no answer within {} s", NO_ANSWER.as_secs()),
            };
        }
        Err(e) => {
            return Answer::None {
                why: crate::error::error_chain(&e),
            };
        }
    };
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    // The body is JSON, or an SSE stream whose events carry messages.
    let messages: Vec<Value> = match serde_json::from_str::<Value>(&text) {
        Ok(v) => vec![v],
        Err(_) => text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect(),
    };
    messages
        .iter()
        .find_map(answer_of)
        .unwrap_or_else(|| Answer::None {
            why: format!(
                "HTTP {status} without an answer: {}",
                text.chars().take(200).collect::<String>()
            ),
        })
}
