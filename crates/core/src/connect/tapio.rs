//! The stdio tap as I/O wrappers that rmcp reads and writes directly: each
//! complete line is recorded in the traffic log as it passes, with no extra
//! task or copy in between. Lines that are not JSON (a server's stray log
//! output on stdout) are recorded and withheld from rmcp.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

use super::unread::Unread;
use crate::traffic::{Direction, MessageKind, TrafficLog};

const CHUNK: usize = 64 * 1024;

pub struct TapReader<R> {
    inner: R,
    server: String,
    traffic: TrafficLog,
    max_line: usize,
    /// The line being assembled.
    line: Vec<u8>,
    /// Complete JSON lines not yet handed to rmcp.
    out: Vec<u8>,
    out_pos: usize,
    chunk: Box<[u8]>,
    eof: bool,
    /// Over a pipe: settled when the server's stdout ends, before rmcp
    /// learns that the connection did ([`Unread`]), waiting a little for
    /// the process's stdin to close too.
    unread: Option<Unread>,
    settling: Option<(Pin<Box<tokio::time::Sleep>>, u8)>,
}

impl<R> TapReader<R> {
    pub fn new(inner: R, server: &str, traffic: TrafficLog, max_line: usize) -> Self {
        TapReader {
            inner,
            server: server.to_string(),
            traffic,
            max_line,
            line: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            chunk: vec![0; CHUNK].into_boxed_slice(),
            eof: false,
            unread: None,
            settling: None,
        }
    }

    /// Settle the ledger of what the server never read when it ends.
    pub fn with_unread(mut self, unread: Option<Unread>) -> Self {
        self.unread = unread;
        self
    }
}

fn accept(traffic: &TrafficLog, server: &str, out: &mut Vec<u8>, line: &[u8]) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    if traffic
        .record_message(server, Direction::Incoming, line)
        .kind
        == MessageKind::Invalid
    {
        return;
    }
    out.extend_from_slice(line);
    if !line.ends_with(b"\n") {
        out.push(b'\n');
    }
}

impl<R> TapReader<R> {
    /// The server's stdout ended: settle what it never read before rmcp
    /// hears of the end, asking again every millisecond for up to 20 while
    /// a request may still be in the pipe and its other end is open.
    fn settle(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let Some(unread) = &self.unread else {
            return Poll::Ready(Ok(()));
        };
        loop {
            if let Some((sleep, _)) = self.settling.as_mut()
                && sleep.as_mut().poll(cx).is_pending()
            {
                return Poll::Pending;
            }
            let tries = self.settling.as_ref().map_or(0, |(_, n)| *n);
            if unread.settle() || tries >= 20 {
                self.unread = None;
                self.settling = None;
                return Poll::Ready(Ok(()));
            }
            let sleep = Box::pin(tokio::time::sleep(std::time::Duration::from_millis(1)));
            self.settling = Some((sleep, tries + 1));
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for TapReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.out_pos < this.out.len() {
                let n = buf.remaining().min(this.out.len() - this.out_pos);
                buf.put_slice(&this.out[this.out_pos..this.out_pos + n]);
                this.out_pos += n;
                if this.out_pos == this.out.len() {
                    this.out.clear();
                    this.out_pos = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return this.settle(cx);
            }
            let mut read = ReadBuf::new(&mut this.chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => {
                    if let Some(unread) = &this.unread {
                        unread.settle();
                    }
                    return Poll::Ready(Err(e));
                }
                Poll::Ready(Ok(())) => {}
            }
            let n = read.filled().len();
            if n == 0 {
                this.eof = true;
                if this.settle(cx).is_pending() {
                    return Poll::Pending;
                }
                let rest = std::mem::take(&mut this.line);
                accept(&this.traffic, &this.server, &mut this.out, &rest);
                continue;
            }
            let mut start = 0;
            while let Some(pos) = memchr::memchr(b'\n', &this.chunk[start..n]) {
                let end = start + pos + 1;
                if this.line.is_empty() {
                    accept(
                        &this.traffic,
                        &this.server,
                        &mut this.out,
                        &this.chunk[start..end],
                    );
                } else {
                    this.line.extend_from_slice(&this.chunk[start..end]);
                    let line = std::mem::take(&mut this.line);
                    accept(&this.traffic, &this.server, &mut this.out, &line);
                }
                start = end;
            }
            this.line.extend_from_slice(&this.chunk[start..n]);
            if this.line.len() > this.max_line {
                let message = format!(
                    "the server sent a message of more than {} bytes on stdout (the entry's maxMessageSize); closing. To accept it, raise \"maxMessageSize\" (bytes) in the entry",
                    this.max_line
                );
                this.traffic.record_note(&this.server, &message);
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, message)));
            }
        }
    }
}

pub struct TapWriter<W> {
    inner: W,
    server: String,
    traffic: TrafficLog,
    line: Vec<u8>,
    /// Bytes at the start of the caller's buffer already recorded but not
    /// yet accepted by the pipe (a partial or pending write).
    ahead: usize,
    /// Bytes the pipe accepted so far, and the lines recorded whose last
    /// byte it has not (where each ends, and the request's id): a failed
    /// write takes them back, as they never reached the server.
    accepted: u64,
    /// Where each such line begins and ends, and its id.
    unaccepted: Vec<(u64, u64, String)>,
    /// Over a pipe: the requests it took, to tell which the server never
    /// read should it die ([`Unread`]).
    unread: Option<Unread>,
}

impl<W> TapWriter<W> {
    pub fn new(inner: W, server: &str, traffic: TrafficLog) -> Self {
        TapWriter {
            inner,
            server: server.to_string(),
            traffic,
            line: Vec::new(),
            ahead: 0,
            accepted: 0,
            unaccepted: Vec::new(),
            unread: None,
        }
    }

    /// Keep the ledger of what the pipe took (see [`Unread`]).
    pub fn with_unread(mut self, unread: Option<Unread>) -> Self {
        self.unread = unread;
        self
    }
}

impl<W> Drop for TapWriter<W> {
    fn drop(&mut self) {
        if let Some(unread) = &self.unread {
            unread.release();
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for TapWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        // Record each complete line *before* its last byte reaches the
        // server: a fast answer is then never logged ahead of its request.
        let skip = this.ahead.min(buf.len());
        let fresh = &buf[skip..];
        let mut start = 0;
        while let Some(pos) = memchr::memchr(b'\n', &fresh[start..]) {
            let end = start + pos + 1;
            let begins =
                (this.accepted + (skip + start) as u64).saturating_sub(this.line.len() as u64);
            let entry = if this.line.is_empty() {
                this.traffic
                    .record_message(&this.server, Direction::Outgoing, &fresh[start..end])
            } else {
                this.line.extend_from_slice(&fresh[start..end]);
                let line = std::mem::take(&mut this.line);
                this.traffic
                    .record_message(&this.server, Direction::Outgoing, &line)
            };
            if entry.kind == crate::traffic::MessageKind::Request
                && let Some(id) = &entry.id
            {
                let ends_at = this.accepted + (skip + end) as u64;
                this.unaccepted.push((begins, ends_at, id.clone()));
            }
            start = end;
        }
        this.line.extend_from_slice(&fresh[start..]);
        this.ahead = buf.len();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Ready(Ok(n)) => {
                // The caller passes what was not taken first, next time.
                this.ahead -= n.min(this.ahead);
                this.accepted += n as u64;
                let accepted = this.accepted;
                let taken = this
                    .unaccepted
                    .iter()
                    .take_while(|(_, end, _)| *end <= accepted)
                    .count();
                let taken = this.unaccepted.drain(..taken);
                match &this.unread {
                    Some(unread) => unread.accepted(n as u64, taken.map(|(at, _, id)| (at, id))),
                    None => drop(taken),
                }
                Poll::Ready(Ok(n))
            }
            Poll::Ready(Err(e)) => {
                for (_, _, id) in this.unaccepted.drain(..) {
                    this.traffic.not_written(&this.server, &id);
                }
                if let Some(unread) = &this.unread {
                    unread.settle();
                }
                Poll::Ready(Err(e))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    #[tokio::test]
    async fn reader_passes_json_lines_and_records_everything_across_chunk_borders() {
        let traffic = TrafficLog::new(100);
        let input: &[u8] = b"Starting...\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}";
        // A reader that yields one byte at a time exercises every border.
        let slow = tokio_test_reader(input);
        let mut tap = TapReader::new(slow, "s", traffic.clone(), 1024);
        let mut got = String::new();
        tap.read_to_string(&mut got).await.unwrap();
        assert_eq!(
            got,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n"
        );
        let kinds: Vec<_> = traffic.entries(Some("s")).iter().map(|e| e.kind).collect();
        assert_eq!(
            kinds,
            [
                MessageKind::Invalid,
                MessageKind::Response,
                MessageKind::Notification
            ]
        );
    }

    #[tokio::test]
    async fn reader_refuses_a_line_over_the_limit() {
        let traffic = TrafficLog::new(10);
        let long = vec![b'x'; 5000];
        let mut tap = TapReader::new(&long[..], "s", traffic.clone(), 1000);
        let mut sink = Vec::new();
        assert!(tap.read_to_end(&mut sink).await.is_err());
        assert!(traffic.last_notes("s", 1)[0].contains("maxMessageSize"));
        assert!(
            traffic.last_stderr("s", 5).is_empty(),
            "the workbench's note is not the server's stderr"
        );
    }

    #[tokio::test]
    async fn a_request_the_pipe_refused_never_counts_as_sent() {
        let traffic = TrafficLog::new(10);
        // A server that died: its end of the pipe is closed.
        let (ours, theirs) = tokio::io::duplex(64);
        let mut tap = TapWriter::new(ours, "s", traffic.clone());
        tap.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"}\n")
            .await
            .unwrap();
        assert!(traffic.was_sent("s", "1"), "written before it died");
        drop(theirs);
        assert!(
            tap.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\"}\n")
                .await
                .is_err()
        );
        assert!(
            !traffic.was_sent("s", "2"),
            "refused by the pipe: never sent"
        );
        assert!(traffic.was_sent("s", "1"));
    }

    /// A real child that ends after `script`, with a request written into
    /// its stdin first: was the request sent once its stdout has ended?
    async fn sent_to_a_child_that(script: &str) -> bool {
        let traffic = TrafficLog::new(10);
        let mut child = tokio::process::Command::new("sh")
            .args(["-c", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let unread = Unread::new(&stdin, "s", traffic.clone());
        assert!(unread.is_some());
        let mut tap = TapWriter::new(stdin, "s", traffic.clone()).with_unread(unread.clone());
        let mut out = TapReader::new(child.stdout.take().unwrap(), "s", traffic.clone(), 1024)
            .with_unread(unread);
        tap.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}\n")
            .await
            .unwrap();
        assert!(traffic.was_sent("s", "7"), "in the pipe, the server alive");
        let mut rest = Vec::new();
        out.read_to_end(&mut rest).await.unwrap();
        child.wait().await.unwrap();
        let sent = traffic.was_sent("s", "7");
        drop(tap);
        sent
    }

    #[tokio::test]
    async fn a_request_left_in_the_pipe_of_a_server_that_died_was_never_sent() {
        assert!(
            !sent_to_a_child_that("sleep 0.2").await,
            "the child never read its stdin: the request can go to the next one"
        );
        assert!(
            sent_to_a_child_that("read -r line; sleep 0.2").await,
            "the child read the request before it ended: it may have acted"
        );
    }

    #[tokio::test]
    async fn writer_records_each_line_written() {
        let traffic = TrafficLog::new(10);
        let mut tap = TapWriter::new(Vec::new(), "s", traffic.clone());
        tap.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,")
            .await
            .unwrap();
        tap.write_all(b"\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n")
            .await
            .unwrap();
        let methods: Vec<_> = traffic
            .entries(Some("s"))
            .iter()
            .map(|e| e.method.as_deref().unwrap().to_string())
            .collect();
        assert_eq!(methods, ["ping", "n"]);
        assert!(
            traffic
                .entries(Some("s"))
                .iter()
                .all(|e| e.direction == Direction::Outgoing)
        );
    }

    #[tokio::test]
    async fn a_line_is_recorded_once_before_its_last_byte_is_written_even_in_pieces() {
        /// Takes at most 3 bytes per call and is Pending every other call;
        /// notes how many entries the log held when each byte went out.
        struct Choppy {
            out: Vec<u8>,
            seen_when_written: Vec<usize>,
            traffic: TrafficLog,
            flip: bool,
        }
        impl AsyncWrite for Choppy {
            fn poll_write(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &[u8],
            ) -> Poll<io::Result<usize>> {
                self.flip = !self.flip;
                if self.flip {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                let n = buf.len().min(3);
                let logged = self.traffic.entries(Some("s")).len();
                for b in &buf[..n] {
                    self.out.push(*b);
                    self.seen_when_written.push(logged);
                }
                Poll::Ready(Ok(n))
            }
            fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }
            fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
                Poll::Ready(Ok(()))
            }
        }
        let traffic = TrafficLog::new(10);
        let inner = Choppy {
            out: Vec::new(),
            seen_when_written: Vec::new(),
            traffic: traffic.clone(),
            flip: false,
        };
        let mut tap = TapWriter::new(inner, "s", traffic.clone());
        let first = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n";
        let second = b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"b\"}\n";
        tap.write_all(first).await.unwrap();
        tap.write_all(second).await.unwrap();
        let methods: Vec<_> = traffic
            .entries(Some("s"))
            .iter()
            .map(|e| e.method.as_deref().unwrap().to_string())
            .collect();
        assert_eq!(methods, ["a", "b"], "each line once");
        let inner = &tap.inner;
        assert_eq!(inner.out.len(), first.len() + second.len());
        // The newline ending each line left when that line was already logged.
        assert!(inner.seen_when_written[first.len() - 1] >= 1);
        assert!(inner.seen_when_written[first.len() + second.len() - 1] >= 2);
    }

    /// An AsyncRead over `data` that returns one byte per read.
    fn tokio_test_reader(data: &'static [u8]) -> impl AsyncRead + Unpin {
        struct OneByte(&'static [u8]);
        impl AsyncRead for OneByte {
            fn poll_read(
                mut self: Pin<&mut Self>,
                _: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                if let Some((first, rest)) = self.0.split_first() {
                    buf.put_slice(&[*first]);
                    self.0 = rest;
                }
                Poll::Ready(Ok(()))
            }
        }
        OneByte(data)
    }
}
