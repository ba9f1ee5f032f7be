//! How long each streamed (SSE) answer took from its first bytes to its
//! last, per server: for a quick request (`ping`, `server/discover`) it is
//! the server's own writing, nothing more — unless the server writes the
//! answer in two parts with Nagle's algorithm on, when the second part
//! waits for the client's delayed ACK (about 40 ms on Linux, on every call
//! over a kept connection). The doctor reads it (`http.nagle-stall`).

use std::collections::VecDeque;

use super::TrafficLog;

/// The answers kept per server.
const KEPT: usize = 32;

/// A server's last streamed answers: (method, milliseconds), oldest first.
pub(super) type Ring = VecDeque<(String, f64)>;

impl TrafficLog {
    /// `server`'s answer to `method` took `ms` from its first bytes to its end.
    pub fn note_answer_gap(&self, server: &str, method: &str, ms: f64) {
        let mut all = self.gaps.lock().unwrap_or_else(|e| e.into_inner());
        let ring = all.entry(server.to_string()).or_default();
        if ring.len() == KEPT {
            ring.pop_front();
        }
        ring.push_back((method.to_string(), ms));
    }

    /// The last streamed answers of `server` (method, milliseconds from the
    /// first bytes to the end), oldest first.
    pub fn answer_gaps(&self, server: &str) -> Vec<(String, f64)> {
        self.gaps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(server)
            .map(|r| r.iter().cloned().collect())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_answers_are_kept_per_server() {
        let log = TrafficLog::new(16);
        for i in 0..40 {
            log.note_answer_gap("a", "ping", f64::from(i));
        }
        log.note_answer_gap("b", "tools/list", 41.0);
        let a = log.answer_gaps("a");
        assert_eq!(a.len(), KEPT);
        assert_eq!(a.first().map(|g| g.1), Some(8.0));
        assert_eq!(log.answer_gaps("b"), vec![("tools/list".to_string(), 41.0)]);
        assert!(log.answer_gaps("c").is_empty());
    }
}
