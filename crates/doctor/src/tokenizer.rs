//! o200k token counts, without keeping the tokenizer in memory.
//!
//! The tokenizer's tables cost ~50 MB (its 200,000 tokens held three ways).
//! A window that counted once at start kept them for its whole life; now
//! they are loaded when a count is asked for and dropped once nothing has
//! counted for ten seconds (measured: the app's anonymous memory falls by
//! ~39 MB when they go). Loading takes a fraction of a second, which a
//! doctor run or a changed surface pays again only after such a pause.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tiktoken_rs::CoreBPE;

/// How long the tables are kept after the last count.
const IDLE: Duration = Duration::from_secs(10);

static O200K: Shelf<CoreBPE> = Shelf::new(IDLE, || tiktoken_rs::o200k_base().ok());

/// The tokenizer for as long as this value lives.
pub struct Tokenizer(Option<Arc<CoreBPE>>);

impl Tokenizer {
    /// The o200k tokenizer, loaded if it is not held; an estimate (four
    /// bytes a token) if it cannot load.
    pub fn get() -> Tokenizer {
        Tokenizer(O200K.take())
    }

    pub fn count(&self, text: &str) -> u32 {
        match &self.0 {
            Some(b) => b.encode_ordinary(text).len() as u32,
            None => text.len().div_ceil(4) as u32,
        }
    }

    pub fn name(&self) -> &'static str {
        if self.0.is_some() {
            "o200k"
        } else {
            "estimate"
        }
    }
}

/// A value loaded on demand and dropped `idle` after it was last taken
/// (by a thread that lives only while the value is held).
pub(crate) struct Shelf<T: Send + Sync + 'static> {
    idle: Duration,
    load: fn() -> Option<T>,
    state: Mutex<State<T>>,
}

struct State<T> {
    value: Option<Arc<T>>,
    used: Option<Instant>,
    /// The load failed: not tried again (it would fail the same way).
    failed: bool,
    watching: bool,
    loads: u32,
}

impl<T: Send + Sync + 'static> Shelf<T> {
    pub(crate) const fn new(idle: Duration, load: fn() -> Option<T>) -> Self {
        Shelf {
            idle,
            load,
            state: Mutex::new(State {
                value: None,
                used: None,
                failed: false,
                watching: false,
                loads: 0,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The value, loaded if need be (callers wait for one load, not each their own).
    pub(crate) fn take(&'static self) -> Option<Arc<T>> {
        let mut s = self.lock();
        s.used = Some(Instant::now());
        if s.value.is_none() && !s.failed {
            s.loads += 1;
            match (self.load)() {
                Some(v) => s.value = Some(Arc::new(v)),
                None => s.failed = true,
            }
        }
        if s.value.is_some() && !s.watching {
            s.watching = true;
            let spawned = std::thread::Builder::new()
                .name("tokenizer-idle".into())
                .spawn(move || self.drop_when_idle());
            if spawned.is_err() {
                s.watching = false;
            }
        }
        s.value.clone()
    }

    fn drop_when_idle(&self) {
        loop {
            let wait = {
                let mut s = self.lock();
                let since = s.used.map(|u| u.elapsed()).unwrap_or(self.idle);
                if since >= self.idle {
                    s.value = None;
                    s.watching = false;
                    return;
                }
                self.idle - since
            };
            std::thread::sleep(wait);
        }
    }

    #[cfg(test)]
    fn held(&self) -> bool {
        self.lock().value.is_some()
    }

    #[cfg(test)]
    fn loads(&self) -> u32 {
        self.lock().loads
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SHELF: Shelf<Vec<u8>> = Shelf::new(Duration::from_millis(150), || Some(vec![7; 1024]));
    static BROKEN: Shelf<Vec<u8>> = Shelf::new(Duration::from_millis(150), || None);

    #[test]
    fn loaded_when_taken_kept_while_used_and_dropped_when_idle() {
        assert!(!SHELF.held());
        let v = SHELF.take().expect("loads");
        assert_eq!(v[0], 7);
        assert!(SHELF.held());
        // Taken again within the idle time: the same value, not loaded again.
        std::thread::sleep(Duration::from_millis(80));
        let again = SHELF.take().expect("held");
        assert!(Arc::ptr_eq(&v, &again));
        assert_eq!(SHELF.loads(), 1);
        std::thread::sleep(Duration::from_millis(100));
        assert!(SHELF.held(), "used 100 ms ago: still held");
        // Idle past its time: dropped by the shelf (what callers hold stays theirs).
        std::thread::sleep(Duration::from_millis(300));
        assert!(!SHELF.held());
        assert_eq!(v.len(), 1024);
        // And loaded again when next taken.
        assert!(SHELF.take().is_some());
        assert_eq!(SHELF.loads(), 2);
    }

    #[test]
    fn a_load_that_fails_is_not_tried_again() {
        assert!(BROKEN.take().is_none());
        assert!(BROKEN.take().is_none());
        assert_eq!(BROKEN.loads(), 1);
    }

    #[test]
    fn counts_as_o200k_does() {
        let t = Tokenizer::get();
        assert_eq!(t.name(), "o200k");
        // Pinned against OpenAI's tokenizer: "hello world" is two tokens.
        assert_eq!(t.count("hello world"), 2);
    }
}
