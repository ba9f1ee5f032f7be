//! The tap: the workbench in the real path between a host (Claude, Cursor,
//! VS Code, an SDK client) and the server it runs, changing nothing.
//!
//! - [`http`]: the same for Streamable HTTP and legacy SSE: a reverse
//!   proxy on 127.0.0.1 with a token, each exchange's head kept beside its
//!   messages.
//! - [`stdio`]: what a host's config runs instead of the server. It starts
//!   the server and passes every byte both ways unchanged (framing, ids,
//!   unknown fields, bad bytes, long lines; the server's stderr goes to the
//!   host's stderr as before), and hands each line to a [`record::Recorder`].
//! - [`record`]: keeps each message with its time and direction in the
//!   shared store, off the path: a recorder that falls behind drops (and
//!   counts) what it cannot keep, never holds a byte back.
//! - [`session`]: a kept connection as a file to share (JSON Lines), and back.
//! - [`mock`]: a kept session served as a stand-in server.
//! - [`keep`]: the server restarted when its files change while the host
//!   stays connected.
//!
//! Depends on the store only: none of the workbench's own client is in the
//! path.
#![forbid(unsafe_code)]

pub mod fingerprint;
mod group;
pub mod har;
mod host_calls;
pub mod http;
pub mod keep;
pub mod mock;
pub mod record;
pub mod session;
pub mod stdio;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From the host to the server.
    Host,
    /// From the server to the host.
    Server,
    /// The tap's own mark: a restart, an HTTP exchange's head.
    Tap,
}

impl Direction {
    /// `host` or `server`, as kept.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Host => "host",
            Direction::Server => "server",
            Direction::Tap => "tap",
        }
    }
}
