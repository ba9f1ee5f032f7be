//! The binaries' allocator: what it holds at rest, and giving memory back
//! to the system after a large free.
//!
//! The binaries (the app, `mcpwb`) choose mimalloc as their global
//! allocator (per-thread heaps: ~20% less CPU per bridged call than glibc's
//! malloc) and say so with [`use_mimalloc`]. Two of its defaults cost an
//! idle window memory, both measured on the release app (one server, 15 s
//! after launch):
//! - it asks for transparent huge pages on the 1 GiB region it reserves, so
//!   a heap that touches a few bytes of a 2 MiB stretch holds all of it:
//!   16–18 MiB of the app's 59 MiB of anonymous memory were such pages. The
//!   workspace builds it without (`libmimalloc-sys`'s `no_thp`; checked by
//!   the test below); the system's setting is left alone (the MCP servers
//!   and WebKit processes the app starts keep it).
//! - it gives freed memory back after a delay, on a later allocation — which
//!   an idle window may not make for a long time (the tokenizer's ~40 MB
//!   stayed resident, freed, until the app was used again). Code that frees
//!   much calls [`give_back`].

use std::sync::atomic::{AtomicBool, Ordering};

static MIMALLOC: AtomicBool = AtomicBool::new(false);

/// Said first thing by a binary whose global allocator is mimalloc:
/// [`give_back`] then returns freed memory at once.
pub fn use_mimalloc() {
    MIMALLOC.store(true, Ordering::Relaxed);
}

/// After a large free: freed memory back to the system now, where the
/// binary runs on mimalloc (nothing otherwise).
#[allow(unsafe_code)]
pub fn give_back() {
    if MIMALLOC.load(Ordering::Relaxed) {
        // SAFETY: a call into the allocator's C library with no arguments to
        // uphold; it may run on any thread at any time.
        unsafe { libmimalloc_sys::mi_collect(true) }
    }
}

#[cfg(test)]
mod tests {
    /// mimalloc's heap does not ask for transparent huge pages: where the
    /// system gives them only to memory that asks (`madvise`, Debian's
    /// default), no mapping of mimalloc's is eligible for them.
    #[test]
    #[allow(unsafe_code)]
    fn the_heap_does_not_ask_for_huge_pages() {
        let mode = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if !mode.contains("[madvise]") {
            eprintln!("skipped: transparent huge pages are not in madvise mode here ({mode:?})");
            return;
        }
        // A smaller size set to `always` (multi-size THP, Linux 6.8+; seen:
        // 16 KiB on a 6.18 kernel) makes every anonymous mapping eligible,
        // asked or not: nothing here can tell what mimalloc asked for.
        let always: Vec<String> = std::fs::read_dir("/sys/kernel/mm/transparent_hugepage")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|d| {
                std::fs::read_to_string(d.path().join("enabled"))
                    .is_ok_and(|m| m.contains("[always]"))
            })
            .map(|d| d.file_name().to_string_lossy().into_owned())
            .collect();
        if !always.is_empty() {
            eprintln!("skipped: {always:?} always back anonymous memory here, asked or not");
            return;
        }
        // SAFETY: an allocation and its free through the library's own
        // functions; the pointer is not used otherwise.
        unsafe {
            let p = libmimalloc_sys::mi_malloc(1 << 20);
            assert!(!p.is_null());
            std::ptr::write_bytes(p.cast::<u8>(), 1, 1 << 20);
            libmimalloc_sys::mi_free(p);
        }
        // Each mapping of 64 MiB or more (mimalloc's arena: it reserves 1 GiB)
        // and whether huge pages may back it.
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut large = Vec::new();
        let mut size_kb = 0u64;
        for line in smaps.lines() {
            if let Some(v) = line.strip_prefix("Size:") {
                size_kb = v.trim().trim_end_matches("kB").trim().parse().unwrap_or(0);
            } else if let Some(v) = line.strip_prefix("THPeligible:")
                && size_kb >= 64 * 1024
            {
                large.push((size_kb, v.trim() == "1"));
            }
        }
        assert!(!large.is_empty(), "no arena found in /proc/self/smaps");
        assert!(
            large.iter().all(|(_, eligible)| !eligible),
            "a large mapping may be backed by huge pages: {large:?}"
        );
    }
}
