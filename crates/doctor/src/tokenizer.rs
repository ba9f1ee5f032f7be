//! o200k token counts, without keeping the tokenizer in memory.
//!
//! The tokenizer's tables cost ~50 MB (its 200,000 tokens held three ways).
//! A window that counted once at start kept them for its whole life; now
//! they are loaded when a count is asked for and dropped once nothing has
//! counted for ten seconds (measured: the app's anonymous memory falls by
//! ~45 MB when they go). Loading takes a fraction of a second, which a
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

/// A value loaded on demand and dropped `idle` after it was last taken.
///
/// Loaded, held and freed by a thread of its own, which then asks the
/// allocator to give the memory back (`workbench_core::memory`) and ends.
/// With per-thread heaps (mimalloc, in the app and `mcpwb`) a block freed
/// from another thread waits for its owner — a runtime worker, had the
/// caller loaded it — to allocate again, and the allocator returns freed
/// pages only on a later allocation; in an idle window, neither comes:
/// measured, 6 of ~45 MB came back, and all of it once both were done here.
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
            let (tx, rx) = std::sync::mpsc::sync_channel(1);
            let keeper = std::thread::Builder::new()
                .name("shelf-keeper".into())
                .spawn(move || self.keep(tx));
            let loaded = match keeper {
                Ok(_) => rx.recv().ok().flatten(),
                // No thread to be had: loaded here and kept for good.
                Err(_) => (self.load)().map(Arc::new),
            };
            match loaded {
                Some(v) => s.value = Some(v),
                None => s.failed = true,
            }
        }
        s.value.clone()
    }

    /// The keeper: loads, hands the value over, and once it is idle takes
    /// it off the shelf and frees it here when the last caller lets go.
    fn keep(&self, loaded: std::sync::mpsc::SyncSender<Option<Arc<T>>>) {
        let Some(mut value) = (self.load)().map(Arc::new) else {
            let _ = loaded.send(None);
            return;
        };
        let _ = loaded.send(Some(value.clone()));
        loop {
            let wait = {
                let mut s = self.lock();
                let since = s.used.map(|u| u.elapsed()).unwrap_or(self.idle);
                if since >= self.idle {
                    s.value = None;
                    break;
                }
                self.idle - since
            };
            std::thread::sleep(wait);
        }
        // Callers count for a moment; the last of them lets go soon.
        loop {
            match Arc::try_unwrap(value) {
                Ok(v) => {
                    drop(v);
                    return workbench_core::memory::give_back();
                }
                Err(still) => value = still,
            }
            std::thread::sleep(Duration::from_millis(10));
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
