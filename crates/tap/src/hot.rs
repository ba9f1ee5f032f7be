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
//! (`poll` with no wait), yielding its CPU between asks; once nothing has
//! passed for the window it blocks as before. A host's calls seconds apart
//! cost the tap a window of CPU each; calls one after another are passed
//! on by a thread already running.
//!
//! Only while the machine has CPU to spare: a thread that asks never
//! sleeps, so on a busy machine it competes for the CPU like any busy
//! program, and the server and the host, which had the scheduler's favour
//! as sleepers, wait behind it (with two CPU-bound programs beside it,
//! sequential calls went 1,750/s → 280/s). When the thread finds it was
//! off its CPU between two asks for longer than [`BUSY`] (another program
//! had it: a scheduler's slice is longer, a server answering an echo
//! shorter), it blocks, and no thread asks for [`QUIET`]. `MCPWB_TAP_SPIN_US`
//! sets the window in microseconds (0: never ask).

use std::os::fd::AsFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How long after the last message the threads keep asking.
pub const WINDOW: Duration = Duration::from_micros(300);

/// Off the CPU this long between two asks: another program had it. (A
/// busy program keeps the CPU for the scheduler's slice, 1.5 ms and more on
/// two CPUs; the host and the server a call's work, less. At 250 µs the
/// tap mostly stopped asking on an idle machine too.)
const BUSY: Duration = Duration::from_millis(1);
/// How long no thread asks once the machine was found busy.
const QUIET: Duration = Duration::from_secs(1);

/// When a message last passed either way, shared by both directions.
pub(crate) struct Hot {
    start: Instant,
    /// Microseconds from `start` to the last message.
    last: AtomicU64,
    /// Microseconds from `start` until which no thread asks.
    quiet_until: AtomicU64,
    window: u64,
}

impl Hot {
    /// The window from `MCPWB_TAP_SPIN_US`, else [`WINDOW`].
    pub(crate) fn from_env() -> Hot {
        let default = WINDOW.as_micros() as u64;
        let window = match std::env::var("MCPWB_TAP_SPIN_US") {
            Err(_) => default,
            Ok(v) => v.trim().parse::<u64>().unwrap_or_else(|_| {
                // The host's log shows the tap's stderr.
                eprintln!(
                    "mcpwb tap: MCPWB_TAP_SPIN_US={v:?} is not a number of microseconds (0 turns waiting awake off); using {default}"
                );
                default
            }),
        };
        Hot::new(Duration::from_micros(window))
    }

    pub(crate) fn new(window: Duration) -> Hot {
        Hot {
            start: Instant::now(),
            last: AtomicU64::new(0),
            quiet_until: AtomicU64::new(0),
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

    /// Whether a thread that last asked at `asked` stops asking at `now`
    /// (microseconds from `start`): nothing passed for the window, the
    /// machine was found busy a moment ago, or the thread was off its CPU
    /// for longer than [`BUSY`] since it last asked (then no thread asks
    /// for [`QUIET`]).
    fn stop(&self, now: u64, asked: u64) -> bool {
        if self.window == 0
            || now.saturating_sub(self.last.load(Ordering::Relaxed)) > self.window
            || now < self.quiet_until.load(Ordering::Relaxed)
        {
            return true;
        }
        if now.saturating_sub(asked) > BUSY.as_micros() as u64 {
            self.quiet_until
                .store(now + QUIET.as_micros() as u64, Ordering::Relaxed);
            return true;
        }
        false
    }

    /// Return once `fd` has bytes to read, or once nothing has passed
    /// either way for the window or the machine is busy (the caller's read
    /// then blocks). Whether it returned with bytes there.
    pub(crate) fn wait(&self, fd: impl AsFd) -> bool {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        let mut asked = self.now();
        loop {
            let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
            // An error (or a hang-up) is for the read to meet.
            if poll(&mut fds, PollTimeout::ZERO).unwrap_or(1) > 0 {
                return true;
            }
            let now = self.now();
            if self.stop(now, asked) {
                return false;
            }
            asked = now;
            std::thread::yield_now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn bytes_there_are_seen_and_no_wait_outlasts_the_window() {
        let (reader, mut writer) = std::io::pipe().unwrap();
        let hot = Hot::new(Duration::from_millis(30));
        // Nothing passed yet (or long ago): no asking, the read would block.
        std::thread::sleep(Duration::from_millis(40));
        let t = Instant::now();
        assert!(!hot.wait(&reader));
        assert!(t.elapsed() < Duration::from_millis(20));
        // Bytes there: seen, whatever the window.
        writer.write_all(b"{}\n").unwrap();
        assert!(hot.wait(&reader));
        let mut buf = [0u8; 8];
        std::io::Read::read(&mut &reader, &mut buf).unwrap();
        // A message just passed and nothing comes: asked for the window at
        // most (less on a busy machine), then left to block.
        hot.passed();
        let t = Instant::now();
        assert!(!hot.wait(&reader));
        assert!(
            t.elapsed() < Duration::from_millis(500),
            "{:?}",
            t.elapsed()
        );
        // Window 0: never asks.
        let off = Hot::new(Duration::ZERO);
        off.passed();
        let t = Instant::now();
        assert!(!off.wait(&reader));
        assert!(t.elapsed() < Duration::from_millis(20));
    }

    #[test]
    fn asking_stops_after_the_window_and_for_a_second_once_the_machine_is_busy() {
        let hot = Hot::new(Duration::from_micros(300));
        let quiet = QUIET.as_micros() as u64;
        let at = 10_000_000;
        hot.last.store(at, Ordering::Relaxed);
        // Within the window, on its CPU all along: asks on.
        assert!(!hot.stop(at + 100, at + 99));
        // The window over: stops.
        assert!(hot.stop(at + 400, at + 399));
        // Off its CPU for 2 ms between two asks: stops, and for a second no
        // thread asks, though messages keep passing.
        hot.last.store(at + 2_500, Ordering::Relaxed);
        assert!(hot.stop(at + 2_600, at + 600));
        hot.last.store(at + 3_000, Ordering::Relaxed);
        assert!(hot.stop(at + 3_010, at + 3_005));
        // A second later, asking again.
        let later = at + 2_600 + quiet + 1;
        hot.last.store(later, Ordering::Relaxed);
        assert!(!hot.stop(later + 10, later + 5));
    }
}
