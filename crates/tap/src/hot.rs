//! Waiting for a server's answer without falling asleep at once.
//!
//! Each direction of the stdio tap is a thread that blocks in `read`. A
//! blocked thread costs every message a wake-up: the kernel puts it back
//! on a CPU, and a CPU with nothing else to do had halted — on a virtual
//! machine the host must then run it again, tens of microseconds, once for
//! the request and once for the answer. Going straight, a call pays that
//! twice (server, client); through a relay that sleeps, four times.
//!
//! So while messages are passing (one went either way within [`WINDOW`]),
//! a thread about to read first asks the kernel whether bytes are there
//! (`poll` with no wait), yielding its CPU between asks so that any thread
//! with work goes first; once nothing has passed for the window it blocks
//! as before. A host's calls seconds apart cost the tap a window of CPU
//! each; calls one after another are passed on by a thread already
//! running. `MCPWB_TAP_SPIN_US` sets the window in microseconds (0: never
//! spin).

use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long after the last message the threads keep asking.
pub const WINDOW: Duration = Duration::from_micros(300);

/// When a message last passed either way, shared by both directions.
pub(crate) struct Hot {
    start: Instant,
    /// Microseconds from `start` to the last message.
    last: AtomicU64,
    window: u64,
}

impl Hot {
    /// The window from `MCPWB_TAP_SPIN_US`, else [`WINDOW`].
    pub(crate) fn from_env() -> Hot {
        let window = std::env::var("MCPWB_TAP_SPIN_US")
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(WINDOW.as_micros() as u64);
        Hot::new(Duration::from_micros(window))
    }

    pub(crate) fn new(window: Duration) -> Hot {
        Hot {
            start: Instant::now(),
            last: AtomicU64::new(0),
            window: window.as_micros() as u64,
        }
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// Bytes passed just now.
    pub(crate) fn passed(&self) {
        self.last.store(self.now(), Ordering::Relaxed);
    }

    /// Return once `fd` has bytes to read, or once nothing has passed
    /// either way for the window (the caller's read then blocks). Whether
    /// it returned with bytes there.
    pub(crate) fn wait(&self, fd: impl AsFd) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        loop {
            let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
            // An error (or a hang-up) is for the read to meet.
            if poll(&mut fds, PollTimeout::ZERO).unwrap_or(1) > 0 {
                return true;
            }
            if self.window == 0
                || self.now().saturating_sub(self.last.load(Ordering::Relaxed)) > self.window
            {
                return false;
            }
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn bytes_are_seen_at_once_and_an_idle_pipe_is_left_to_block() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let hot = Hot::new(Duration::from_millis(50));
        // Nothing passed yet (or long ago): no asking, the read would block.
        std::thread::sleep(Duration::from_millis(60));
        let t = Instant::now();
        assert!(!hot.wait(&reader));
        assert!(t.elapsed() < Duration::from_millis(20));
        // A message just passed: the thread asks until bytes come.
        hot.passed();
        let w = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(5));
            writer.write_all(b"{}\n").unwrap();
            writer
        });
        assert!(hot.wait(&reader));
        let _writer = w.join().unwrap();
        // Then nothing for the window: it stops asking.
        hot.passed();
        let mut buf = [0u8; 8];
        std::io::Read::read(&mut &reader, &mut buf).unwrap();
        let t = Instant::now();
        assert!(!hot.wait(&reader));
        let waited = t.elapsed();
        assert!(
            waited >= Duration::from_millis(40) && waited < Duration::from_millis(500),
            "{waited:?}"
        );
    }
}
