//! Cache hints (MCP 2026-07-28, SEP-2549): a complete answer to
//! `tools/list`, `prompts/list`, `resources/list`, `resources/templates/list`
//! (and `skills/list`), `resources/read` and `server/discover` says how long
//! it stays fresh (`ttlMs`) and whether it is the same for every caller
//! (`cacheScope`: `public` or `private`). A list read over several pages is
//! as fresh as its least fresh page and private when any page is. Pure:
//! what a result says, and what is wrong with it.

use serde::Serialize;
use serde_json::Value;

/// What a list's (or a read's) answers said about caching.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct CacheHint {
    /// Milliseconds the answer may be reused (the smallest of its pages);
    /// None: no page said (a client assumes 0, immediately stale).
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

impl CacheHint {
    /// Add one page's (or one answer's) `ttlMs` and `cacheScope`.
    pub fn add(&mut self, result: &Value) {
        self.pages += 1;
        let ttl = result.get("ttlMs");
        let scope = result.get("cacheScope");
        if ttl.is_none() || scope.is_none() {
            self.pages_without += 1;
        }
        if let Some(ttl) = ttl {
            match ttl.as_u64() {
                Some(ms) => self.ttl_ms = Some(self.ttl_ms.map_or(ms, |t| t.min(ms))),
                None => {
                    self.note(format!(
                        "ttlMs is {ttl}: it must be a non-negative integer of milliseconds (read as 0)"
                    ));
                    self.ttl_ms = Some(0);
                }
            }
        }
        if let Some(scope) = scope {
            match scope.as_str() {
                Some(s @ ("public" | "private")) => {
                    if self.scope.as_deref() != Some("private") {
                        self.scope = Some(s.to_string());
                    }
                }
                _ => {
                    self.note(format!(
                        "cacheScope is {scope}: it must be \"public\" or \"private\" (read as private)"
                    ));
                    self.scope = Some("private".into());
                }
            }
        }
    }

    fn note(&mut self, problem: String) {
        if !self.problems.contains(&problem) {
            self.problems.push(problem);
        }
    }

    /// The hint of one answer read at `now_ms`.
    pub fn of(result: &Value, now_ms: f64) -> CacheHint {
        let mut h = CacheHint {
            read_at_ms: now_ms,
            ..CacheHint::default()
        };
        h.add(result);
        h
    }

    /// Whether the server said anything of caching.
    pub fn given(&self) -> bool {
        self.ttl_ms.is_some() || self.scope.is_some()
    }

    /// Milliseconds it stays fresh from `now_ms` (0: stale; a missing ttlMs
    /// counts as 0).
    pub fn fresh_for(&self, now_ms: f64) -> u64 {
        let until = self.read_at_ms + self.ttl_ms.unwrap_or(0) as f64;
        (until - now_ms).max(0.0) as u64
    }

    /// In words: "fresh for 52 s, public", "not to be reused (ttlMs 0),
    /// private", "stale (ttlMs 60000), public", "no cache hints".
    pub fn describe(&self, now_ms: f64) -> String {
        if !self.given() {
            return "no cache hints".into();
        }
        let fresh = self.fresh_for(now_ms);
        let state = match self.ttl_ms {
            Some(0) => "not to be reused (ttlMs 0)".to_string(),
            None => "no ttlMs (stale)".to_string(),
            Some(_) if fresh == 0 => format!("stale (ttlMs {})", self.ttl_ms.unwrap_or(0)),
            Some(_) => format!("fresh for {} s", fresh.div_ceil(1000)),
        };
        match &self.scope {
            Some(s) => format!("{state}, {s}"),
            None => format!("{state}, no cacheScope"),
        }
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_combine_to_the_least_fresh_and_private_wins() {
        let mut h = CacheHint::default();
        h.add(&json!({"tools": [], "ttlMs": 60000, "cacheScope": "public"}));
        h.add(&json!({"tools": [], "ttlMs": 5000, "cacheScope": "private"}));
        h.add(&json!({"tools": [], "ttlMs": 90000, "cacheScope": "public"}));
        assert_eq!(h.ttl_ms, Some(5000));
        assert_eq!(h.scope.as_deref(), Some("private"));
        assert_eq!((h.pages, h.pages_without), (3, 0));
        assert!(h.problems.is_empty());
    }

    #[test]
    fn missing_and_impossible_hints_are_said() {
        let none = CacheHint::of(&json!({"tools": []}), 0.0);
        assert!(!none.given());
        assert_eq!(none.pages_without, 1);
        assert_eq!(none.describe(0.0), "no cache hints");
        let bad = CacheHint::of(&json!({"ttlMs": -5, "cacheScope": "everyone"}), 0.0);
        assert_eq!(bad.ttl_ms, Some(0));
        assert_eq!(bad.scope.as_deref(), Some("private"));
        assert_eq!(bad.problems.len(), 2, "{:?}", bad.problems);
    }

    #[test]
    fn freshness_runs_out() {
        let h = CacheHint::of(&json!({"ttlMs": 60000, "cacheScope": "public"}), 1000.0);
        assert_eq!(h.fresh_for(1000.0), 60000);
        assert_eq!(h.describe(11_000.0), "fresh for 50 s, public");
        assert_eq!(h.fresh_for(61_001.0), 0);
        assert_eq!(h.describe(61_001.0), "stale (ttlMs 60000), public");
        assert_eq!(
            CacheHint::of(&json!({"ttlMs": 0, "cacheScope": "private"}), 0.0).describe(0.0),
            "not to be reused (ttlMs 0), private"
        );
    }
}
