//! Keeping what passed, off the path: each direction's bytes are cut into
//! lines (messages) by a [`Splitter`]; a [`Recorder`] hands them to one
//! writer thread through a bounded queue. When the queue is full the message
//! is not kept (it passed all the same) and counted as dropped.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

use workbench_mask::Secrets;
use workbench_store::{Store, TapMessage, now_ms};

use crate::Direction;

mod writer;
use writer::{Session, write};

/// The longest message kept whole (the entries' default `maxMessageSize`,
/// 16 MiB): a kept session answers every call it saw as the server did
/// (`mcpwb mock`). A longer one is kept cut, with its whole size, and said
/// cut wherever it is shown.
pub const KEEP_BYTES: usize = 16 * 1024 * 1024;

/// Messages waiting for the writer before new ones are dropped.
const QUEUE: usize = 4096;

/// The most messages written in one transaction.
const BATCH: usize = 512;

/// How long the writer lets a batch gather once its first message came.
const GATHER: Duration = Duration::from_millis(10);

/// Bytes waiting for the writer before new messages are dropped: what a
/// flood of long messages can hold in memory, whatever their count (room
/// for a few of the longest kept whole).
const QUEUE_BYTES: usize = 96 * 1024 * 1024;

/// The sessions' cap when none is given (the person's settings say it:
/// `history.sessions_max_mib`).
pub const DEFAULT_SESSIONS_CAP: i64 = 256 * 1024 * 1024;

/// Hands messages to the writer. Cheap to clone.
#[derive(Clone)]
pub struct Recorder {
    tx: SyncSender<Queued>,
    seq: Arc<AtomicI64>,
    dropped: Arc<AtomicI64>,
    /// Bytes handed over and not yet written.
    queued: Arc<AtomicUsize>,
    /// What is masked in what is kept: the person's secrets, and the
    /// credentials seen passing since (a host's Authorization).
    secrets: Arc<Mutex<Secrets>>,
}

/// A message handed to the writer, and what it counts against the
/// queue's bytes. A mark whose text is made on the writer's thread (an
/// HTTP exchange's head, serialized and masked there) counts what its
/// maker said it holds until it is made.
pub(crate) struct Queued {
    message: TapMessage,
    counted: usize,
    make: Option<Box<dyn FnOnce() -> String + Send>>,
}

impl Queued {
    fn made(self) -> TapMessage {
        let mut message = self.message;
        if let Some(make) = self.make {
            message.text = make();
            message.size = message.text.len() as i64;
        }
        message
    }
}

/// The writer's end: wait for it with [`Writer::finish`] once the tap is done.
pub struct Writer {
    thread: Option<std::thread::JoinHandle<()>>,
    closed: Arc<AtomicBool>,
    dropped: Arc<AtomicI64>,
    store: Store,
    id: i64,
}

/// Start keeping a new connection of `server` (run as `command`) in
/// `store`; `secrets` (and the credentials `command` carries, a URL's
/// `?api_key=`) are masked in what is kept, the command among it.
/// The sessions kept take at most `cap` bytes: the oldest ended ones go
/// first; one session alone past it keeps nothing more (said in it, what
/// passes is counted as not kept).
pub fn start(
    store: Store,
    server: &str,
    command: &str,
    secrets: Secrets,
    cap: i64,
) -> workbench_store::Result<(Recorder, Writer)> {
    let mut secrets = secrets;
    for s in workbench_mask::url_secrets(command) {
        secrets.add(&s);
    }
    let command = secrets
        .text(&workbench_mask::mask_url(command))
        .into_owned();
    let started = now_ms();
    let id = store.create_tap(server, &command, started)?;
    let secrets = Arc::new(Mutex::new(secrets));
    let seq = Arc::new(AtomicI64::new(0));
    let (tx, rx) = sync_channel(QUEUE);
    let dropped = Arc::new(AtomicI64::new(0));
    let closed = Arc::new(AtomicBool::new(false));
    let writer_store = store.clone();
    let writer_closed = closed.clone();
    let queued = Arc::new(AtomicUsize::new(0));
    let writer_queued = queued.clone();
    let thread = std::thread::Builder::new()
        .name("tap-recorder".into())
        .spawn({
            let server = server.to_string();
            let secrets = secrets.clone();
            let writer_dropped = dropped.clone();
            let writer_seq = seq.clone();
            move || {
                write(
                    writer_store,
                    Session {
                        id,
                        started,
                        cap,
                        seq: writer_seq,
                    },
                    &server,
                    rx,
                    secrets,
                    (writer_closed, writer_queued, writer_dropped),
                )
            }
        })
        .ok();
    Ok((
        Recorder {
            tx,
            seq,
            dropped: dropped.clone(),
            queued,
            secrets,
        },
        Writer {
            thread,
            closed,
            dropped,
            store,
            id,
        },
    ))
}

impl Recorder {
    /// Mask `value` too from now on, in its forms (a credential seen
    /// passing: a host's Authorization, a cookie): wherever it reappears —
    /// a body that echoes it — it is kept masked.
    pub fn learn(&self, value: &str) {
        self.secrets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .add(value);
    }

    /// Keep one whole message (cut past [`KEEP_BYTES`]); its number in the
    /// session.
    pub fn keep_message(&self, direction: Direction, bytes: &[u8]) -> i64 {
        self.keep(
            direction,
            &bytes[..bytes.len().min(KEEP_BYTES)],
            bytes.len(),
        )
    }

    /// Keep the first part of a message of `size` bytes.
    pub fn keep_cut(&self, direction: Direction, part: &[u8], size: usize) -> i64 {
        self.keep(
            direction,
            &part[..part.len().min(KEEP_BYTES)],
            size.max(part.len()),
        )
    }

    /// Keep the tap's own mark (a restart, an HTTP exchange's head).
    pub fn mark(&self, mark: &Value) -> i64 {
        self.keep_message(Direction::Tap, mark.to_string().as_bytes())
    }

    /// Keep the tap's own mark, its text made by `make` on the writer's
    /// thread (off the path of what passes); its number now. `holds`: the
    /// bytes `make` holds until then, counted against the queue's.
    pub fn mark_later(&self, holds: usize, make: impl FnOnce() -> String + Send + 'static) -> i64 {
        self.hand(Direction::Tap, String::new(), holds, Some(Box::new(make)))
    }

    fn keep(&self, direction: Direction, line: &[u8], size: usize) -> i64 {
        let text = String::from_utf8_lossy(line).into_owned();
        self.hand(direction, text, size, None)
    }

    fn hand(
        &self,
        direction: Direction,
        text: String,
        size: usize,
        make: Option<Box<dyn FnOnce() -> String + Send>>,
    ) -> i64 {
        let seq = self.seq.fetch_add(1, Ordering::Relaxed);
        let (n, size) = if make.is_some() {
            (size, 0)
        } else {
            (text.len(), size)
        };
        let message = TapMessage {
            seq,
            at_ms: now_ms(),
            direction: direction.as_str().into(),
            size: size as i64,
            cut: size > text.len(),
            text,
        };
        if self.queued.fetch_add(n, Ordering::Relaxed) + n > QUEUE_BYTES {
            self.queued.fetch_sub(n, Ordering::Relaxed);
            self.dropped.fetch_add(1, Ordering::Relaxed);
            return seq;
        }
        let queued = Queued {
            message,
            counted: n,
            make,
        };
        match self.tx.try_send(queued) {
            Ok(()) => {}
            Err(TrySendError::Full(q) | TrySendError::Disconnected(q)) => {
                self.queued.fetch_sub(q.counted, Ordering::Relaxed);
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
        seq
    }
}

impl Writer {
    /// The connection's id in the store.
    pub fn id(&self) -> i64 {
        self.id
    }

    /// Wait until everything handed over is kept, then mark the connection
    /// ended. What a [`Recorder`] still alive hands over later is not kept.
    pub fn finish(mut self) {
        self.closed.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        let dropped = self.dropped.load(Ordering::Relaxed);
        if let Err(e) = self.store.end_tap(self.id, now_ms(), dropped) {
            tracing::warn!("the tapped session's end was not kept: {e}");
        }
    }
}

/// One direction's bytes cut into lines as they pass. A line longer than
/// [`KEEP_BYTES`] is kept cut, with its whole size.
pub struct Splitter {
    direction: Direction,
    recorder: Recorder,
    line: Vec<u8>,
    size: usize,
}

impl Splitter {
    /// Lines of `direction` to `recorder`.
    pub fn new(direction: Direction, recorder: Recorder) -> Splitter {
        Splitter {
            direction,
            recorder,
            line: Vec::new(),
            size: 0,
        }
    }

    /// Bytes as they passed.
    pub fn feed(&mut self, mut bytes: &[u8]) {
        while let Some(at) = memchr(bytes) {
            self.take(&bytes[..at]);
            self.end();
            bytes = &bytes[at + 1..];
        }
        self.take(bytes);
    }

    fn take(&mut self, part: &[u8]) {
        self.size += part.len();
        let room = KEEP_BYTES.saturating_sub(self.line.len());
        self.line.extend_from_slice(&part[..part.len().min(room)]);
    }

    fn end(&mut self) {
        let mut line = std::mem::take(&mut self.line);
        let mut size = std::mem::take(&mut self.size);
        if line.last() == Some(&b'\r') && size == line.len() {
            line.pop();
            size -= 1;
        }
        if size > 0 {
            self.recorder.keep(self.direction, &line, size);
        }
    }

    /// The stream ended: what is left is a last message without a newline.
    pub fn close(mut self) {
        if self.size > 0 {
            self.end();
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A session of the server `s` recorded into `store`.
    fn tap(store: &Store, secrets: Secrets) -> (Recorder, Writer) {
        start(store.clone(), "s", "s", secrets, DEFAULT_SESSIONS_CAP).unwrap()
    }

    #[test]
    fn lines_are_kept_whole_or_cut_with_their_size_and_secrets_masked() {
        let store = Store::in_memory().unwrap();
        let (recorder, writer) = tap(&store, Secrets::new(["hunter22"]));
        let mut host = Splitter::new(Direction::Host, recorder.clone());
        // A message in three pieces, a long one, a token in a third.
        host.feed(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"h","version":"9"}}}"#);
        host.feed(b"\n{\"a\":");
        host.feed(b"1}\n");
        let long = vec![b'x'; KEEP_BYTES + 10];
        host.feed(&long);
        host.feed(b"\n{\"token\":\"hunter22\"}\n");
        host.close();
        let mut server = Splitter::new(Direction::Server, recorder);
        server.feed(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\"}}\n",
        );
        server.close();
        let id = writer.id();
        writer.finish();
        let kept = store.tap_messages(id).unwrap();
        assert_eq!(kept.len(), 5);
        assert_eq!(kept[1].text, "{\"a\":1}");
        assert!(kept[2].cut && kept[2].size == (KEEP_BYTES + 10) as i64);
        assert_eq!(kept[2].text.len(), KEEP_BYTES);
        assert_eq!(kept[3].text, "{\"token\":\"••••••\"}");
        let row = store.tap(id).unwrap().unwrap();
        assert_eq!(
            (
                row.host.as_deref(),
                row.host_version.as_deref(),
                row.protocol.as_deref()
            ),
            (Some("h"), Some("9"), Some("2025-11-25"))
        );
        assert_eq!((row.messages, row.dropped), (5, 0));
        assert!(row.ended_at.is_some());
    }

    #[test]
    fn the_hosts_calls_go_in_with_their_messages_each_keyed_once() {
        let store = Store::in_memory().unwrap();
        let (recorder, writer) = tap(&store, Secrets::default());
        let mut host = Splitter::new(Direction::Host, recorder.clone());
        let mut server = Splitter::new(Direction::Server, recorder);
        // One call alone, then two in one JSON-RPC batch answered as one.
        host.feed(br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"m":"a"}}}"#);
        host.feed(b"\n");
        server.feed(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n");
        host.feed(br#"[{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"m":"b"}}},{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{}}}]"#);
        host.feed(b"\n");
        server.feed(br#"[{"jsonrpc":"2.0","id":2,"result":{"content":[]}},{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"no"}}]"#);
        server.feed(b"\n");
        host.close();
        server.close();
        let id = writer.id();
        writer.finish();
        assert_eq!(store.tap_messages(id).unwrap().len(), 4);
        let calls = store
            .history(&workbench_store::HistoryQuery {
                origin: Some("host".into()),
                ..Default::default()
            })
            .unwrap();
        let mut keys: Vec<&str> = calls.iter().map(|c| c.key.as_str()).collect();
        keys.sort();
        assert_eq!(keys.len(), 3, "{keys:?}");
        let prefix = format!("tap-{id}-");
        assert!(keys.iter().all(|k| k.starts_with(&prefix)), "{keys:?}");
        // The answer alone is keyed by its number; the batch's two apart.
        assert!(keys[0].ends_with("-1"), "{keys:?}");
        assert!(
            keys[1].ends_with("-3.0") && keys[2].ends_with("-3.1"),
            "{keys:?}"
        );
    }

    #[test]
    fn a_flood_of_long_messages_is_held_to_the_queues_bytes() {
        // A writer that never catches up: nothing is taken off the queue.
        let (tx, _rx) = sync_channel(QUEUE);
        let recorder = Recorder {
            tx,
            seq: Arc::new(AtomicI64::new(0)),
            dropped: Arc::new(AtomicI64::new(0)),
            queued: Arc::new(AtomicUsize::new(0)),
            secrets: Arc::default(),
        };
        let big = vec![b'x'; KEEP_BYTES];
        for _ in 0..200 {
            recorder.keep_message(Direction::Server, &big);
        }
        let queued = recorder.queued.load(Ordering::Relaxed);
        assert!(queued <= QUEUE_BYTES, "{queued} bytes queued");
        assert_eq!(
            recorder.dropped.load(Ordering::Relaxed) as usize,
            200 - QUEUE_BYTES / KEEP_BYTES
        );
        // A mark made later counts what it holds (an exchange's long
        // headers) as a message does.
        recorder.mark_later(KEEP_BYTES, String::new);
        assert_eq!(
            recorder.dropped.load(Ordering::Relaxed) as usize,
            201 - QUEUE_BYTES / KEEP_BYTES
        );
        assert!(recorder.queued.load(Ordering::Relaxed) <= QUEUE_BYTES);
    }
}
