//! The stdio client transport: rmcp's writer, our reader. A `tools/call`
//! result is kept as the server wrote it (one parse into JSON, every field
//! kept — rmcp's typed result drops the fields it does not model) and handed
//! to rmcp as a custom result; every other line goes through rmcp's types as
//! before. That one parse also costs a fraction of rmcp's: its result type
//! is an untagged enum, tried variant by variant over a buffered copy.
//!
//! The rules of rmcp's own reader are kept: a line that is not JSON is
//! skipped (the tap has already recorded and withheld it), a JSON message
//! that is not a valid one is answered with "Invalid Request", except a
//! notification (skipped: servers send their own kinds).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::model::{
    ClientRequest, CustomResult, ErrorData, JsonRpcMessage, RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, BufReader, Empty};

pub struct Lines<R, W: AsyncWrite> {
    read: BufReader<R>,
    /// The line being read (kept when a read is dropped half way: rmcp
    /// polls `receive` in a `select!`).
    line: Vec<u8>,
    write: AsyncRwTransport<RoleClient, Empty, W>,
    /// Ids of the `tools/call` requests sent and not yet answered.
    calls: Arc<Mutex<HashSet<RequestId>>>,
    invalid: bool,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Send + Unpin + 'static> Lines<R, W> {
    pub fn new(read: R, write: W) -> Self {
        Lines {
            read: BufReader::with_capacity(64 * 1024, read),
            line: Vec::new(),
            write: AsyncRwTransport::new_client(tokio::io::empty(), write),
            calls: Arc::default(),
            invalid: false,
        }
    }
}

/// What a line is, read without building it.
#[derive(Deserialize)]
struct Peek<'a> {
    id: Option<RequestId>,
    method: Option<serde::de::IgnoredAny>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
}

/// A JSON message that is not a valid one (answered "Invalid Request").
#[derive(Debug)]
struct Invalid;

/// `Ok(None)`: a line to skip.
type Parsed = Result<Option<RxJsonRpcMessage<RoleClient>>, Invalid>;

fn parse(line: &[u8], calls: &Mutex<HashSet<RequestId>>) -> Parsed {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let pending = !calls.lock().unwrap_or_else(|e| e.into_inner()).is_empty();
    // A response (no method) to a call sent: kept as sent.
    if pending
        && let Ok(peek) = serde_json::from_slice::<Peek<'_>>(line)
        && let (Some(id), None) = (peek.id, peek.method)
        && calls.lock().unwrap_or_else(|e| e.into_inner()).remove(&id)
        && let Some(result) = peek.result
        && let Ok(value) = serde_json::from_str(result.get())
    {
        return Ok(Some(JsonRpcMessage::response(
            ServerResult::CustomResult(CustomResult(value)),
            id,
        )));
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleClient>>(line) {
        Ok(message) => Ok(Some(message)),
        Err(e) if e.is_syntax() || e.is_eof() => Ok(None),
        Err(_) => {
            // A message of a kind rmcp does not model: a notification is
            // let go; a request or response gets "Invalid Request".
            let notification = serde_json::from_slice::<Peek<'_>>(line)
                .is_ok_and(|p| p.method.is_some() && p.id.is_none());
            if notification { Ok(None) } else { Err(Invalid) }
        }
    }
}

impl<R, W> Transport<RoleClient> for Lines<R, W>
where
    R: AsyncRead + Send + Unpin,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(r) = &item
            && matches!(r.request, ClientRequest::CallToolRequest(_))
        {
            self.calls
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(r.id.clone());
        }
        self.write.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            if self.invalid {
                let answer = TxJsonRpcMessage::<RoleClient>::error(
                    ErrorData::invalid_request("Invalid request", None),
                    None,
                );
                self.write.send(answer).await.ok()?;
                self.invalid = false;
            }
            match self.read.read_until(b'\n', &mut self.line).await {
                Ok(0) | Err(_) => return None,
                Ok(_) if !self.line.ends_with(b"\n") => return None,
                Ok(_) => {}
            }
            let parsed = parse(&self.line, &self.calls);
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

    fn calls(ids: &[i64]) -> Mutex<HashSet<RequestId>> {
        Mutex::new(ids.iter().map(|i| RequestId::Number(*i)).collect())
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
        assert!(asked.lock().unwrap().is_empty(), "answered once");
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
        assert_eq!(asked.lock().unwrap().len(), 1, "the call still waits");
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
        assert!(asked.lock().unwrap().is_empty());
    }
}
