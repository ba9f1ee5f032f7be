//! Giving memory back to the system after a large free.
//!
//! The binaries choose the allocator (mimalloc, per-thread heaps): it gives
//! freed memory back after a delay, on a later allocation — which an idle
//! window may not make for a long time (measured: the tokenizer's ~40 MB
//! stayed resident, freed, until the app was used again). What makes it do
//! so at once is the binary's to say; code that frees much asks for it.

use std::sync::OnceLock;

static GIVE_BACK: OnceLock<fn()> = OnceLock::new();

/// Set by a binary at start: how its allocator returns freed memory now.
pub fn on_give_back(f: fn()) {
    let _ = GIVE_BACK.set(f);
}

/// After a large free: freed memory back to the system, where the binary
/// said how (nothing otherwise).
pub fn give_back() {
    if let Some(f) = GIVE_BACK.get() {
        f();
    }
}
