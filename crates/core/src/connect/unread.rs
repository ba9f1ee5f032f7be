//! What a stdio server never read. A request written into the child's stdin
//! pipe moments before the child died (a SIGKILL, a crash) was taken by the
//! pipe but may still sit in its buffer: the server never saw it, so it can be
//! sent again to the next process whatever the tool does. Once nothing reads
//! the pipe any more, the bytes still in it (`FIONREAD` on our end) say which
//! of the last requests written never left it; a request the server may have
//! read stays "sent" and is never sent again unless it cannot act twice.

use std::collections::VecDeque;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::{Arc, Mutex};

use crate::traffic::TrafficLog;

/// A pipe holds at most this much (Linux's `pipe-max-size` default): a
/// request that began further back than this was read whatever is left.
const PIPE_MAX: u64 = 1 << 20;

/// Shared by the tapped stdin (which writes) and stdout (whose end says the
/// server is gone); either may settle it, once.
#[derive(Clone)]
pub struct Unread(Arc<Mutex<Ledger>>);

struct Ledger {
    server: String,
    traffic: TrafficLog,
    /// A second handle on our end of the stdin pipe, to ask it; given up
    /// when the writer drops, so the server still sees its stdin close.
    pipe: Option<OwnedFd>,
    /// Bytes the pipe has accepted so far.
    accepted: u64,
    /// Requests written lately: where each began, and its id (JSON text).
    recent: VecDeque<(u64, String)>,
}

impl Unread {
    /// `None` when our end of the pipe cannot be duplicated (out of file
    /// descriptors): requests are then judged as before, written = sent.
    pub fn new(pipe: impl AsFd, server: &str, traffic: TrafficLog) -> Option<Self> {
        let pipe = pipe.as_fd().try_clone_to_owned().ok()?;
        Some(Unread(Arc::new(Mutex::new(Ledger {
            server: server.to_string(),
            traffic,
            pipe: Some(pipe),
            accepted: 0,
            recent: VecDeque::new(),
        }))))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The pipe took `n` more bytes; `began` are the requests (their first
    /// byte's place, their id) whose bytes are now all in it.
    pub fn accepted(&self, n: u64, began: impl IntoIterator<Item = (u64, String)>) {
        let mut ledger = self.lock();
        ledger.accepted += n;
        ledger.recent.extend(began);
        let horizon = ledger.accepted.saturating_sub(PIPE_MAX);
        while ledger.recent.front().is_some_and(|(at, _)| *at < horizon) {
            ledger.recent.pop_front();
        }
    }

    /// The server may be gone (its stdout ended, a write failed): when
    /// nothing reads the pipe any more, every recent request still wholly
    /// or partly in it is marked as never sent. `false` when a request may
    /// still be in the pipe while something still holds its other end (a
    /// process that is ending closes its stdout a moment before its stdin):
    /// ask again shortly.
    pub fn settle(&self) -> bool {
        let mut ledger = self.lock();
        let Some(pipe) = ledger.pipe.as_ref() else {
            return true;
        };
        let mut fds = [rustix::event::PollFd::new(
            pipe,
            rustix::event::PollFlags::OUT,
        )];
        let zero = rustix::event::Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let Ok(left) = rustix::io::ioctl_fionread(pipe) else {
            return true;
        };
        let read_up_to = ledger.accepted.saturating_sub(left);
        if left == 0 || ledger.recent.back().is_none_or(|(at, _)| *at < read_up_to) {
            // Every request written was read.
            return true;
        }
        if rustix::event::poll(&mut fds, Some(&zero)).is_err() {
            return true;
        }
        // POLLERR on a pipe's write end: no reader is left.
        if !fds[0].revents().contains(rustix::event::PollFlags::ERR) {
            return false;
        }
        let never_read: Vec<String> = ledger
            .recent
            .iter()
            .filter(|(at, _)| *at >= read_up_to)
            .map(|(_, id)| id.clone())
            .collect();
        for id in &never_read {
            ledger.traffic.not_written(&ledger.server, id);
        }
        ledger.recent.clear();
        ledger.pipe = None;
        true
    }

    /// The writer is gone: let the pipe close.
    pub fn release(&self) {
        self.settle();
        self.lock().pipe = None;
    }
}
