#[allow(unused_imports)]
use super::*;
use serde::Serialize;
/// What a list's (or a read's) answers said about caching.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize, specta::Type)]
pub struct CacheHint {
    /// Milliseconds the answer may be reused (the smallest of its pages);
    /// None: no page said (a client assumes 0, immediately stale).
    #[specta(type = Option<f64>)]
    pub ttl_ms: Option<u64>,
    /// `public` or `private` (private when any page is); None: not said.
    pub scope: Option<String>,
    /// When it was read (milliseconds since the Unix epoch).
    pub read_at_ms: f64,
    /// Pages that said nothing of one or both (2026-07-28: they must).
    pub pages_without: u32,
    pub pages: u32,
    /// Values that cannot be right (a negative or non-integer ttlMs, an
    /// unknown scope), each once.
    pub problems: Vec<String>,
}
crate::wire::to_wire!(workbench_core::cache::CacheHint => CacheHint);
impl From<workbench_core::cache::CacheHint> for CacheHint {
    fn from(v: workbench_core::cache::CacheHint) -> Self {
        let workbench_core::cache::CacheHint {
            ttl_ms,
            scope,
            read_at_ms,
            pages_without,
            pages,
            problems,
        } = v;
        Self {
            ttl_ms,
            scope,
            read_at_ms,
            pages_without,
            pages,
            problems,
        }
    }
}
