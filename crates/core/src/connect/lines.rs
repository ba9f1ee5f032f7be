//! Line-delimited JSON-RPC over a pipe pair, for either side: rmcp's
//! writer, our reader, with a `Rules` hook that may read a line a faster or
//! more faithful way than rmcp's types before they are tried.
//!
//! The client side (`KeepCallResults`, stdio servers): the answers
//! `keep::kept` names (`tools/call`, the task methods, methods rmcp does not
//! model) are kept as the server wrote them (one parse into JSON, every field kept —
//! rmcp's typed result drops the fields it does not model and refuses
//! content kinds it does not know) and handed to rmcp as a custom result.
//! That one parse also costs a fraction of rmcp's: its result type is an
//! untagged enum, tried variant by variant over a buffered copy. The
//! bridge's server side has its own rule (calls read straight into their
//! type).
//!
//! The rules of rmcp's own reader are kept: a line that is not JSON is
//! skipped, a JSON message that is not a valid one is answered with
//! "Invalid Request", except a notification (skipped: peers send their own
//! kinds). A side may bound lines (`with_max_line`: a longer one is dropped
//! and said on stderr); the client's tap already bounds them with a reason
//! (the entry's `maxMessageSize`).

use std::collections::HashSet;
use std::sync::Mutex;

use rmcp::RoleClient;
use rmcp::model::{CustomResult, ErrorData, JsonRpcMessage, RequestId, ServerResult};
use rmcp::service::{RxJsonRpcMessage, ServiceRole, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader, Empty};

/// How one side reads some lines itself.
pub trait Rules<Role: ServiceRole>: Send + 'static {
    /// A message about to be sent.
    fn sending(&self, _item: &TxJsonRpcMessage<Role>) {}
    /// The line read this side's way, or None for rmcp's types.
    fn read(&self, line: &[u8]) -> Option<RxJsonRpcMessage<Role>>;
}

pub struct Lines<Role: ServiceRole, R, W: AsyncWrite, X> {
    read: BufReader<R>,
    /// The line being read (kept when a read is dropped half way: rmcp
    /// polls `receive` in a `select!`).
    line: Vec<u8>,
    write: AsyncRwTransport<Role, Empty, W>,
    rules: X,
    invalid: bool,
    /// The longest line taken; a longer one is dropped (said on stderr).
    max_line: usize,
    /// Dropping the rest of a line that was too long.
    skipping: bool,
}

/// What a line read gave.
enum Read {
    Line,
    TooLong,
    End,
}

impl<Role, R, W, X> Lines<Role, R, W, X>
where
    Role: ServiceRole,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    pub fn new(read: R, write: W, rules: X) -> Self {
        Lines {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            write: AsyncRwTransport::new(tokio::io::empty(), write),
            rules,
            invalid: false,
            max_line: usize::MAX,
            skipping: false,
        }
    }

    /// Drop lines longer than `max` bytes (a line is held whole to be read).
    pub fn with_max_line(mut self, max: usize) -> Self {
        self.max_line = max;
        self
    }

    /// Read up to the next newline into `self.line`. Cancel-safe: nothing
    /// is awaited between taking bytes from the buffer and keeping them.
    async fn read_line(&mut self) -> Read {
        loop {
            let buf = match self.read.fill_buf().await {
                Ok([]) | Err(_) => return Read::End,
                Ok(buf) => buf,
            };
            let newline = memchr::memchr(b'\n', buf);
            let take = newline.map_or(buf.len(), |i| i + 1);
            if !self.skipping {
                self.line.extend_from_slice(&buf[..take]);
            }
            self.read.consume(take);
            let too_long = self.line.len() > self.max_line;
            if too_long {
                self.line.clear();
                self.skipping = true;
            }
            if newline.is_some() {
                if std::mem::take(&mut self.skipping) {
                    return Read::TooLong;
                }
                return Read::Line;
            }
        }
    }
}

/// Whether `text` (a method name, quoted) appears in the line at all: a
/// quick filter before a rule reads the line as that method's message
/// (which checks the method itself).
pub fn mentions(line: &[u8], quoted: &str) -> bool {
    memchr::memmem::find(line, quoted.as_bytes()).is_some()
}

/// A JSON message that is not a valid one (answered "Invalid Request").
#[derive(Debug)]
struct Invalid;

/// `Ok(None)`: a line to skip.
type Parsed<Role> = Result<Option<RxJsonRpcMessage<Role>>, Invalid>;

fn parse<Role: ServiceRole>(line: &[u8], rules: &impl Rules<Role>) -> Parsed<Role> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    if let Some(message) = rules.read(line) {
        return Ok(Some(message));
    }
    match serde_json::from_slice::<RxJsonRpcMessage<Role>>(line) {
        Ok(message) => Ok(Some(message)),
        Err(e) if e.is_syntax() || e.is_eof() => Ok(None),
        Err(_) => {
            // A message of a kind rmcp does not model: a notification is
            // let go; a request or response gets "Invalid Request".
            let notification = serde_json::from_slice::<serde_json::Value>(line)
                .is_ok_and(|v| v.get("method").is_some() && v.get("id").is_none());
            if notification { Ok(None) } else { Err(Invalid) }
        }
    }
}

/// The client side: `tools/call` results kept as the server sent them.
#[derive(Default)]
pub struct KeepCallResults {
    /// Ids of the `tools/call` requests sent and not yet answered.
    calls: Mutex<HashSet<RequestId>>,
}

impl Rules<RoleClient> for KeepCallResults {
    fn sending(&self, item: &TxJsonRpcMessage<RoleClient>) {
        if let JsonRpcMessage::Request(r) = item
            && super::keep::kept(&r.request)
        {
            self.calls
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(r.id.clone());
        }
    }

    fn read(&self, line: &[u8]) -> Option<RxJsonRpcMessage<RoleClient>> {
        if self
            .calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_empty()
        {
            return None;
        }
        // A response (no method) to a call sent: kept as sent. One parse,
        // into the JSON that is handed on.
        let serde_json::Value::Object(mut message) = serde_json::from_slice(line).ok()? else {
            return None;
        };
        if message.contains_key("method") {
            return None;
        }
        let id: RequestId = serde_json::from_value(message.get("id")?.clone()).ok()?;
        // The lock is not held over the parse above (`sending` waits on it).
        if !self
            .calls
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id)
        {
            return None;
        }
        let result = message.shift_remove("result")?;
        Some(JsonRpcMessage::response(
            ServerResult::CustomResult(CustomResult(result)),
            id,
        ))
    }
}

impl<Role, R, W, X> Transport<Role> for Lines<Role, R, W, X>
where
    Role: ServiceRole,
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
    X: Rules<Role>,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<Role>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.rules.sending(&item);
        workbench_awake::passed();
        // Written now when the pipe takes it (nearly always): rmcp spawns
        // the returned future as a task of its own, and a line left for
        // that task reached the server only once the task was scheduled,
        // and two such tasks could write in either order (measured: +3-5%
        // calls a second against bare rmcp; the order is tested). Polled
        // once here (a waker that does nothing); when the pipe is full or
        // an earlier line still holds the writer, the same future is
        // handed on and its next poll waits as usual (lines stay in order:
        // the writer's lock queues them).
        let mut write = Box::pin(self.write.send(item));
        match futures::FutureExt::now_or_never(write.as_mut()) {
            Some(done) => futures::future::Either::Left(std::future::ready(done)),
            None => futures::future::Either::Right(write),
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<Role>> {
        loop {
            if self.invalid {
                let answer = TxJsonRpcMessage::<Role>::error(
                    ErrorData::invalid_request("Invalid request", None),
                    None,
                );
                self.write.send(answer).await.ok()?;
                self.invalid = false;
            }
            match self.read_line().await {
                Read::Line => {}
                Read::TooLong => {
                    eprintln!(
                        "[mcpwb] a message of more than {} bytes was dropped unread (a request in it gets no answer): send less in one message",
                        self.max_line
                    );
                    continue;
                }
                // A last line cut short by the end of the stream is dropped.
                Read::End => return None,
            }
            // A relay on a runtime of its own waits for the next awake.
            workbench_awake::passed();
            let parsed = parse(&self.line, &self.rules);
            self.line.clear();
            match parsed {
                Ok(Some(message)) => return Some(message),
                Ok(None) => {}
                Err(Invalid) => self.invalid = true,
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.write.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(ids: &[i64]) -> KeepCallResults {
        KeepCallResults {
            calls: Mutex::new(ids.iter().map(|i| RequestId::Number(*i)).collect()),
        }
    }

    #[test]
    fn a_call_result_is_kept_as_sent_and_other_lines_go_through_rmcp() {
        let asked = calls(&[2]);
        let line = br#"{"jsonrpc":"2.0","id":2,"result":{"content":[],"x-vendor":{"a":1}}}"#;
        let Ok(Some(JsonRpcMessage::Response(r))) = parse(line, &asked) else {
            panic!("a response")
        };
        let ServerResult::CustomResult(CustomResult(v)) = r.result else {
            panic!("kept as sent: {:?}", r.result)
        };
        assert_eq!(v["x-vendor"]["a"], 1);
        assert!(asked.calls.lock().unwrap().is_empty(), "answered once");
        // The same id again (no call pending): rmcp's types.
        let Ok(Some(JsonRpcMessage::Response(r))) = parse(line, &asked) else {
            panic!("a response")
        };
        assert!(!matches!(r.result, ServerResult::CustomResult(_)));
        // A server's request that reuses a pending call's id is a request.
        let asked = calls(&[1]);
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        assert!(matches!(
            parse(ping, &asked),
            Ok(Some(JsonRpcMessage::Request(_)))
        ));
        assert_eq!(asked.calls.lock().unwrap().len(), 1, "the call still waits");
    }

    fn ping(id: i64) -> TxJsonRpcMessage<RoleClient> {
        JsonRpcMessage::request(
            rmcp::model::ClientRequest::PingRequest(Default::default()),
            RequestId::Number(id),
        )
    }

    /// What the server side of `pipe` has read by now, or within `ms`.
    async fn read_for(pipe: &mut tokio::io::DuplexStream, ms: u64) -> String {
        use tokio::io::AsyncReadExt;
        let mut got = Vec::new();
        let mut buf = [0u8; 256];
        while let Ok(Ok(n)) =
            tokio::time::timeout(std::time::Duration::from_millis(ms), pipe.read(&mut buf)).await
        {
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        String::from_utf8(got).unwrap()
    }

    #[tokio::test]
    async fn a_line_is_written_when_sent_not_when_its_future_runs() {
        let (ours, mut theirs) = tokio::io::duplex(4096);
        let mut lines = Lines::<RoleClient, _, _, _>::new(tokio::io::empty(), ours, calls(&[]));
        let sent = lines.send(ping(1));
        // Nothing awaited yet, and the server has the line.
        let got = read_for(&mut theirs, 200).await;
        assert!(got.contains(r#""id":1"#) && got.ends_with('\n'), "{got}");
        sent.await.unwrap();
    }

    #[tokio::test]
    async fn lines_that_do_not_fit_at_once_stay_in_the_order_sent() {
        // A pipe that takes 16 bytes at a time: no line fits at once.
        let (ours, mut theirs) = tokio::io::duplex(16);
        let mut lines = Lines::<RoleClient, _, _, _>::new(tokio::io::empty(), ours, calls(&[]));
        let first = lines.send(ping(1));
        let second = lines.send(ping(2));
        // The later line's future runs first: its line still comes second.
        let second = tokio::spawn(second);
        tokio::task::yield_now().await;
        let first = tokio::spawn(first);
        let got = read_for(&mut theirs, 300).await;
        first.await.unwrap().unwrap();
        second.await.unwrap().unwrap();
        let ids: Vec<i64> = got
            .lines()
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        assert_eq!(ids, vec![1, 2], "{got}");
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_dropped_and_the_next_one_read() {
        let long = format!(
            r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"pad":"{}"}}}}"#,
            "x".repeat(300_000)
        );
        let ping = r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#;
        let input = format!("{long}\n{ping}\n");
        let mut lines =
            Lines::new(input.as_bytes(), tokio::io::sink(), calls(&[])).with_max_line(1000);
        let Some(JsonRpcMessage::Request(r)) = lines.receive().await else {
            panic!("the ping after the long line")
        };
        assert_eq!(r.id, RequestId::Number(4));
        assert!(lines.receive().await.is_none(), "then the end");
    }

    #[test]
    fn bad_lines_are_skipped_or_refused_as_rmcp_does() {
        let none = calls(&[]);
        assert!(matches!(parse(b"not json\n", &none), Ok(None)));
        assert!(matches!(parse(b"  \r\n", &none), Ok(None)));
        assert!(matches!(
            parse(
                br#"{"jsonrpc":"2.0","method":"vendor/thing","params":5}"#,
                &none
            ),
            Ok(None)
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","id":"x","nonsense":true}"#, &none),
            Err(Invalid)
        ));
        // An error answer to a pending call goes through as an error.
        let asked = calls(&[3]);
        let error = br#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"no"}}"#;
        assert!(matches!(
            parse(error, &asked),
            Ok(Some(JsonRpcMessage::Error(_)))
        ));
        assert!(asked.calls.lock().unwrap().is_empty());
    }
}
