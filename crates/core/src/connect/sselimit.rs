//! A cap on the size of one SSE event in a byte stream: past `max` bytes
//! without an event's end (a blank line) the stream fails instead of
//! buffering what the server keeps sending.

use bytes::Bytes;
use futures::{Stream, StreamExt};

/// Counts the bytes of the event being received.
#[derive(Default)]
struct Limiter {
    /// Bytes since the last event ended.
    event: usize,
    /// Bytes of the current line.
    line: usize,
    /// The last byte was `\r` (a `\n` after it ends nothing more).
    after_cr: bool,
}

impl Limiter {
    /// Feed a chunk; `false` once an event has grown past `max`.
    fn feed(&mut self, chunk: &[u8], max: usize) -> bool {
        for &b in chunk {
            self.event += 1;
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    if self.line == 0 {
                        self.event = 0; // a blank line ends the event
                    }
                    self.line = 0;
                    self.after_cr = b == b'\r';
                }
                _ => {
                    self.line += 1;
                    self.after_cr = false;
                }
            }
            if self.event > max {
                return false;
            }
        }
        true
    }
}

/// `stream` failing with `message()` once one event exceeds `max` bytes
/// (`on_trip` runs once, then).
pub fn bounded<S, E>(
    stream: S,
    max: usize,
    on_trip: impl FnOnce() -> String + Send + 'static,
) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static
where
    S: Stream<Item = Result<Bytes, E>> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut limiter = Limiter::default();
    let mut on_trip = Some(on_trip);
    stream
        .map(move |item| {
            let chunk = item.map_err(std::io::Error::other)?;
            if limiter.feed(&chunk, max) {
                return Ok(chunk);
            }
            let message = on_trip.take().map(|f| f()).unwrap_or_default();
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                message,
            ))
        })
        // Nothing after the failure is read.
        .scan(false, |failed, item| {
            if *failed {
                return futures::future::ready(None);
            }
            *failed = item.is_err();
            futures::future::ready(Some(item))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_measured_from_one_blank_line_to_the_next() {
        let mut l = Limiter::default();
        assert!(l.feed(b"data: 12345\n\n", 16));
        assert!(
            l.feed(b"data: 1234\r\n\r\ndata: 1234\r\r", 16),
            "each event on its own"
        );
        assert!(!l.feed(b"data: 12345678901234567890", 16));
        let mut l = Limiter::default();
        assert!(l.feed(b"data: a\ndata: b\n", 16));
        assert!(!l.feed(b"data: c\n", 16), "lines of one event add up");
    }
}
