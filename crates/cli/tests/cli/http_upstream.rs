//! What the HTTP tap's tests stand on: `mcpwb tap --to` running (stopped
//! with SIGTERM so it keeps its sessions' ends), and a hand-written
//! upstream that writes down each request as it arrived and answers with
//! the bytes a test chose.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use super::tap::in_home;

/// A running `mcpwb tap --to`; stopped (SIGTERM, so it keeps the sessions'
/// ends) on drop.
pub(super) struct HttpTap {
    pub(super) child: Child,
    pub(super) url: String,
    pub(super) stopped: bool,
}

impl HttpTap {
    pub(super) fn start(dir: &Path, to: &str) -> HttpTap {
        HttpTap::start_with(dir, to, &[])
    }

    /// `mcpwb tap --to URL` with `more` arguments (`--no-record`).
    pub(super) fn start_with(dir: &Path, to: &str, more: &[&str]) -> HttpTap {
        let mut child = in_home(dir)
            .args(["--json", "tap", "--to", to])
            .args(more)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let v: Value = serde_json::from_str(&first).unwrap_or_else(|_| panic!("{first}"));
        HttpTap {
            child,
            url: v["url"].as_str().unwrap().to_string(),
            stopped: false,
        }
    }

    pub(super) fn stop(&mut self) {
        if std::mem::replace(&mut self.stopped, true) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
        let _ = self.child.wait();
    }

    /// `127.0.0.1:PORT`, the token, the server's path.
    pub(super) fn parts(&self) -> (String, String, String) {
        let rest = self.url.strip_prefix("http://").unwrap();
        let (addr, path) = rest.split_once('/').unwrap();
        let (token, path) = path.split_once('/').unwrap();
        (addr.into(), token.into(), format!("/{path}"))
    }
}

impl Drop for HttpTap {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One HTTP/1.1 message as it crossed a socket.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Message {
    /// The request or status line.
    pub(super) start: String,
    /// Lowercased names, values as sent; repeated names joined.
    pub(super) headers: BTreeMap<String, String>,
    pub(super) body: Vec<u8>,
}

pub(super) fn read_head(
    r: &mut BufReader<TcpStream>,
) -> Option<(String, BTreeMap<String, String>)> {
    let mut start = String::new();
    if r.read_line(&mut start).ok()? == 0 {
        return None;
    }
    let mut headers = BTreeMap::new();
    loop {
        let mut line = String::new();
        r.read_line(&mut line).ok()?;
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            break;
        }
        let (n, v) = line.split_once(':').unwrap();
        headers
            .entry(n.trim().to_ascii_lowercase())
            .and_modify(|e: &mut String| {
                e.push_str(", ");
                e.push_str(v.trim());
            })
            .or_insert_with(|| v.trim().to_string());
    }
    Some((start.trim_end().to_string(), headers))
}

/// A body framed by Content-Length, chunks, or the connection's end.
pub(super) fn read_body(
    r: &mut BufReader<TcpStream>,
    headers: &BTreeMap<String, String>,
) -> Vec<u8> {
    let mut body = Vec::new();
    if let Some(n) = headers.get("content-length") {
        body.resize(n.parse().unwrap(), 0);
        r.read_exact(&mut body).unwrap();
    } else if headers
        .get("transfer-encoding")
        .is_some_and(|t| t == "chunked")
    {
        loop {
            let mut size = String::new();
            r.read_line(&mut size).unwrap();
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk).unwrap();
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else if !headers.contains_key("content-length") && !headers.is_empty() {
        r.read_to_end(&mut body).unwrap();
    }
    body
}

/// What the upstream answers: status line, headers, the body in pieces
/// (written with a pause between).
pub(super) struct Answer {
    pub(super) status: &'static str,
    pub(super) headers: Vec<(&'static str, String)>,
    pub(super) pieces: Vec<Vec<u8>>,
}

/// A server that writes down each request and answers each with the next
/// of `answers`, then closes the connection.
pub(super) fn upstream(answers: Vec<Answer>) -> (String, mpsc::Receiver<Message>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for answer in answers {
            let (stream, _) = listener.accept().unwrap();
            let mut r = BufReader::new(stream.try_clone().unwrap());
            let Some((start, headers)) = read_head(&mut r) else {
                return;
            };
            let body = if headers.contains_key("content-length")
                || headers.contains_key("transfer-encoding")
            {
                read_body(&mut r, &headers)
            } else {
                Vec::new()
            };
            let _ = tx.send(Message {
                start,
                headers,
                body,
            });
            let mut w = stream;
            let mut head = format!("HTTP/1.1 {}\r\n", answer.status);
            for (n, v) in &answer.headers {
                head.push_str(&format!("{n}: {v}\r\n"));
            }
            head.push_str("connection: close\r\n\r\n");
            w.write_all(head.as_bytes()).unwrap();
            for piece in &answer.pieces {
                w.write_all(piece).unwrap();
                w.flush().unwrap();
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    });
    (addr, rx)
}

/// Send `head` + `body` to `addr` raw; the answer as it came.
pub(super) fn send(addr: &str, head: &str, body: &[u8]) -> Message {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut r = BufReader::new(s);
    let (start, headers) = read_head(&mut r).unwrap();
    let body = read_body(&mut r, &headers);
    Message {
        start,
        headers,
        body,
    }
}

/// Headers that belong to one hop (and the framing a proxy may redo).
pub(super) fn end_to_end(h: &BTreeMap<String, String>) -> BTreeMap<String, String> {
    h.iter()
        .filter(|(n, _)| {
            !matches!(
                n.as_str(),
                "connection"
                    | "transfer-encoding"
                    | "content-length"
                    | "host"
                    | "mcp-workbench-token"
                    | "date"
            )
        })
        .map(|(n, v)| (n.clone(), v.clone()))
        .collect()
}
