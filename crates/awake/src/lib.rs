//! Waiting for the next message awake, while messages pass.
//!
//! A relay that blocks between messages (a thread in `read`, a runtime in
//! `epoll_wait`) costs every message a wake-up: the kernel puts it back on
//! a CPU, and a CPU with nothing else to do had halted — on a virtual
//! machine the host must then run it again, tens of microseconds, once for
//! the request and once for the answer. Going straight, a call pays that
//! twice (server, client); through a relay that sleeps, four times.
//!
//! So while messages are passing (one went either way within [`WINDOW`]),
//! the relay asks the kernel whether bytes are there without waiting,
//! offering its CPU to others between asks; once nothing has passed for
//! the window it sleeps as before. A host's calls seconds apart cost a
//! window of CPU each; calls one after another are passed on by a thread
//! already running. Two ways: [`Hot::wait`] for a thread about to read a
//! pipe (the stdio tap), [`keep_runtime_awake`] for a runtime of one thread
//! (the HTTP tap, the bridge), told of each message by [`passed`].
//!
//! Only while the machine has CPU to spare: a thread that asks never
//! sleeps, so on a busy machine it competes for the CPU like any busy
//! program, and the server and the host, which had the scheduler's favour
//! as sleepers, wait behind it (with two CPU-bound programs beside it,
//! sequential calls through the stdio tap went 1,750/s → 280/s). When the
//! thread finds it was off its CPU between two asks for longer than
//! [`BUSY`] (another program had it: a scheduler's slice is longer, a
//! server answering an echo shorter), it stops, and nothing asks for
//! [`QUIET`]. `MCPWB_SPIN_US` sets the window in microseconds (0: never
//! ask; `MCPWB_TAP_SPIN_US`, its first name, is read too).

#![forbid(unsafe_code)]

use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
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

/// When a message last passed either way.
pub struct Hot {
    start: Instant,
    /// Microseconds from `start` to the last message.
    last: AtomicU64,
    /// Microseconds from `start` until which no thread asks.
    quiet_until: AtomicU64,
    window: u64,
    /// The runtime's waking task ([`Hot::keep_awake`]) waits for a message.
    resting: AtomicBool,
    woken: tokio::sync::Notify,
    /// How many times that task left its rest.
    wakes: AtomicU64,
    /// Requests in flight through an HTTP relay ([`Flight`]).
    flying: AtomicUsize,
}

impl Hot {
    /// The window from `MCPWB_SPIN_US` (or `MCPWB_TAP_SPIN_US`), else
    /// [`WINDOW`].
    pub fn from_env() -> Hot {
        let default = WINDOW.as_micros() as u64;
        let set = ["MCPWB_SPIN_US", "MCPWB_TAP_SPIN_US"]
            .into_iter()
            .find_map(|name| std::env::var(name).ok().map(|v| (name, v)));
        let window = match set {
            None => default,
            Some((name, v)) => v.trim().parse::<u64>().unwrap_or_else(|_| {
                // A host's log shows a relay's stderr.
                eprintln!(
                    "mcpwb: {name}={v:?} is not a number of microseconds (0 turns waiting awake off); using {default}"
                );
                default
            }),
        };
        Hot::new(Duration::from_micros(window))
    }

    pub fn new(window: Duration) -> Hot {
        Hot {
            start: Instant::now(),
            last: AtomicU64::new(0),
            quiet_until: AtomicU64::new(0),
            window: window.as_micros() as u64,
            resting: AtomicBool::new(false),
            woken: tokio::sync::Notify::new(),
            wakes: AtomicU64::new(0),
            flying: AtomicUsize::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// Bytes passed just now.
    pub fn passed(&self) {
        self.last.store(self.now(), Ordering::Relaxed);
        if self.resting.load(Ordering::Relaxed) && !self.crowded() {
            self.woken.notify_one();
        }
    }

    /// More than one request in flight: the runtime has work to turn to
    /// when one waits, and a task that kept it turning would only take CPU
    /// the host and the server need (HTTP with 64 in flight went 0.52 →
    /// 0.41 of straight through the tap so).
    fn crowded(&self) -> bool {
        self.flying.load(Ordering::Relaxed) > 1
    }

    /// A request begins through an HTTP relay; it ends when the
    /// [`Flight`] is dropped.
    pub fn flight(self: &Arc<Self>) -> Flight {
        self.flying.fetch_add(1, Ordering::Relaxed);
        self.passed();
        Flight(self.clone())
    }

    /// Whether a thread that last asked at `asked` stops asking at `now`
    /// (microseconds from `start`): nothing passed for the window, the
    /// machine was found busy a moment ago, or the thread was off its CPU
    /// for longer than [`BUSY`] since it last asked (then no thread asks
    /// for [`QUIET`]).
    fn stop(&self, now: u64, asked: u64) -> bool {
        if self.window == 0
            || self.crowded()
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
    pub fn wait(&self, fd: impl AsFd) -> bool {
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

    /// The same for a runtime of one thread: while
    /// messages pass, this task hands the thread back to the runtime at once
    /// again and again, so the runtime asks its driver for ready sockets
    /// without waiting (`epoll_wait` with no timeout) instead of sleeping in
    /// it; between two turns the CPU is offered to others. By the same rule
    /// as [`Hot::wait`]; otherwise it rests until a message passes.
    async fn keep_awake(self: Arc<Self>) {
        if self.window == 0 {
            return;
        }
        loop {
            self.resting.store(true, Ordering::Relaxed);
            // A message that passed before this rest left a permit.
            self.woken.notified().await;
            self.resting.store(false, Ordering::Relaxed);
            self.wakes.fetch_add(1, Ordering::Relaxed);
            let mut asked = self.now();
            loop {
                std::thread::yield_now();
                tokio::task::yield_now().await;
                let now = self.now();
                if self.stop(now, asked) {
                    break;
                }
                asked = now;
            }
        }
    }
}

/// A request in flight through an HTTP relay, from its head in to its
/// answer's last byte out (a standing GET stream is none: it would count for
/// its whole life).
pub struct Flight(Arc<Hot>);

impl Drop for Flight {
    fn drop(&mut self) {
        self.0.flying.fetch_sub(1, Ordering::Relaxed);
        self.0.passed();
    }
}

/// The process's one [`Hot`]: every relay in it passes its messages
/// under one rule.
pub fn process() -> &'static Arc<Hot> {
    static HOT: OnceLock<Arc<Hot>> = OnceLock::new();
    HOT.get_or_init(|| Arc::new(Hot::from_env()))
}

/// A message passed just now (nothing more where no runtime is kept awake:
/// a time kept).
pub fn passed() {
    process().passed();
}

/// A request begins through this process's HTTP relay (see [`Flight`]).
pub fn flight() -> Flight {
    process().flight()
}

/// How many requests are in flight through this process's HTTP relays.
pub fn in_flight() -> usize {
    process().flying.load(Ordering::Relaxed)
}

/// Keep the current runtime awake while messages pass, when it is a
/// runtime of one thread (`mcpwb tap`, `mcpwb serve`): the relay is all it
/// runs. A runtime of many threads (the app's) is shared by everything
/// and is left to sleep. Call it once, within the runtime.
pub fn keep_runtime_awake() {
    static KEPT: AtomicBool = AtomicBool::new(false);
    let handle = tokio::runtime::Handle::current();
    if handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread
        && !KEPT.swap(true, Ordering::Relaxed)
    {
        handle.spawn(process().clone().keep_awake());
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

    #[test]
    fn with_more_than_one_request_in_flight_nothing_asks() {
        let hot = Arc::new(Hot::new(Duration::from_millis(300)));
        let at = hot.now();
        hot.last.store(at, Ordering::Relaxed);
        let one = hot.flight();
        assert!(!hot.stop(hot.now(), hot.now()), "one in flight: asks");
        let two = hot.flight();
        assert!(hot.stop(hot.now(), hot.now()), "two in flight: stops");
        drop(two);
        assert!(!hot.stop(hot.now(), hot.now()), "one again: asks");
        drop(one);
        assert_eq!(hot.flying.load(Ordering::Relaxed), 0);
    }

    /// The CPU time this thread has used.
    fn cpu() -> Duration {
        use nix::time::{ClockId, clock_gettime};
        Duration::from(clock_gettime(ClockId::CLOCK_THREAD_CPUTIME_ID).unwrap())
    }

    #[test]
    fn a_runtime_kept_awake_wakes_for_a_message_and_rests_after_the_window() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let hot = Arc::new(Hot::new(Duration::from_millis(20)));
        rt.block_on(async {
            tokio::spawn(hot.clone().keep_awake());
            tokio::task::yield_now().await;
            assert!(hot.resting.load(Ordering::Relaxed), "rests at first");
            // Nothing passes: the runtime sleeps (no CPU to speak of).
            let before = cpu();
            tokio::time::sleep(Duration::from_millis(200)).await;
            let idle = cpu() - before;
            assert!(idle < Duration::from_millis(20), "idle: {idle:?}");
            // A message: the task wakes and keeps the runtime turning (on a
            // busy machine it may rest again at once, by the busy rule)...
            assert_eq!(hot.wakes.load(Ordering::Relaxed), 0);
            hot.passed();
            let woke = Instant::now();
            while hot.wakes.load(Ordering::Relaxed) == 0 {
                assert!(woke.elapsed() < Duration::from_secs(5), "never woke");
                tokio::task::yield_now().await;
            }
            // ...for the window at most, then rests again.
            let before = cpu();
            tokio::time::sleep(Duration::from_millis(200)).await;
            let awake = cpu() - before;
            assert!(hot.resting.load(Ordering::Relaxed), "rests again");
            assert!(awake < Duration::from_millis(100), "awake: {awake:?}");
            assert_eq!(hot.wakes.load(Ordering::Relaxed), 1, "woke once");
        });
    }
}
