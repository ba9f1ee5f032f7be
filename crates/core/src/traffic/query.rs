//! Pages of the traffic log for a view that shows a window of it: the log
//! stays here, and a list of 100,000 entries fetches the few dozen rows it
//! draws (filtered by server, direction and text) instead of holding them all.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Direction, TrafficEntry, TrafficLog};

/// Which entries, and which window of them.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct TrafficQuery {
    /// One server's entries, or all servers' merged in order.
    #[serde(default)]
    pub server: Option<String>,
    #[serde(default)]
    pub direction: Option<Direction>,
    /// Case-insensitive text in the method or the message.
    #[serde(default)]
    pub text: Option<String>,
    /// Exactly this method (e.g. `tools/call`).
    #[serde(default)]
    pub method: Option<String>,
    /// Exactly this JSON-RPC id, as JSON text (`7`, `"abc"`): a request and
    /// its response.
    #[serde(default)]
    pub id: Option<String>,
    /// Only entries with a sequence number in `[from, to]` (a call's rows).
    #[serde(default)]
    pub seq_from: Option<u64>,
    #[serde(default)]
    pub seq_to: Option<u64>,
    /// The first entry wanted, counted from the oldest match (from the
    /// newest when `from_end`).
    #[serde(default)]
    pub offset: u32,
    pub limit: u32,
    #[serde(default)]
    pub from_end: bool,
}

/// A window of the matching entries, oldest first.
#[derive(Debug, Clone, Serialize)]
pub struct TrafficPage {
    /// How many entries match in all.
    pub total: u32,
    /// The index (among the matches, oldest first) of `entries[0]`.
    pub offset: u32,
    pub entries: Vec<TrafficEntry>,
    /// The newest entry's sequence number in the whole log.
    pub last_seq: u64,
}

/// `haystack` contains `needle` (already lower case), ignoring ASCII case.
fn contains_folded(haystack: &str, needle: &str) -> bool {
    if needle.is_ascii() {
        let (h, n) = (haystack.as_bytes(), needle.as_bytes());
        n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
    } else {
        haystack.to_lowercase().contains(needle)
    }
}

impl TrafficQuery {
    fn matches(&self, e: &TrafficEntry, needle: Option<&str>) -> bool {
        self.server.as_deref().is_none_or(|s| s == &*e.server)
            && self.direction.is_none_or(|d| d == e.direction)
            && self
                .method
                .as_ref()
                .is_none_or(|m| e.method.as_deref() == Some(m.as_str()))
            && self
                .id
                .as_ref()
                .is_none_or(|id| e.id.as_deref() == Some(id.as_str()))
            && self.seq_from.is_none_or(|from| e.seq >= from)
            && self.seq_to.is_none_or(|to| e.seq <= to)
            && needle.is_none_or(|n| {
                e.method.as_deref().is_some_and(|m| contains_folded(m, n))
                    || contains_folded(&e.body, n)
            })
    }
}

impl TrafficLog {
    /// The entries matching `q`, the window of them it asks for, and how
    /// many match in all. The log is copied (shared pointers) under its lock
    /// and filtered outside it, so a search never holds up the servers.
    pub fn query(&self, q: &TrafficQuery) -> TrafficPage {
        let (snapshot, last_seq) = self.snapshot(q.server.as_deref());
        let needle = q
            .text
            .as_deref()
            .map(|t| t.trim().to_lowercase())
            .filter(|t| !t.is_empty());
        let matching: Vec<&Arc<TrafficEntry>> = snapshot
            .iter()
            .filter(|e| q.matches(e, needle.as_deref()))
            .collect();
        let total = matching.len();
        let (offset, limit) = (q.offset as usize, q.limit as usize);
        let (start, end) = if q.from_end {
            let end = total.saturating_sub(offset);
            (end.saturating_sub(limit), end)
        } else {
            let start = offset.min(total);
            (start, (start + limit).min(total))
        };
        TrafficPage {
            total: u32::try_from(total).unwrap_or(u32::MAX),
            offset: u32::try_from(start).unwrap_or(u32::MAX),
            entries: matching[start..end]
                .iter()
                .map(|e| (***e).clone())
                .collect(),
            last_seq,
        }
    }

    /// The newest sequence number (a call's traffic lies between the one
    /// before it and the one after).
    pub fn last_seq(&self) -> u64 {
        self.lock().seq
    }

    /// How many entries the log holds and the newest sequence number.
    pub fn stats(&self) -> (usize, u64) {
        let inner = self.lock();
        (
            inner.rings.values().map(|r| r.entries.len()).sum(),
            inner.seq,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> TrafficLog {
        let t = TrafficLog::new(1000);
        for i in 0..10 {
            let server = if i % 2 == 0 { "even" } else { "odd" };
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"Echo{i}"}}}}"#
            );
            t.record_message(server, Direction::Outgoing, line.as_bytes());
            t.record_stderr(server, &format!("log line {i}"));
        }
        t
    }

    fn q(limit: u32) -> TrafficQuery {
        TrafficQuery {
            limit,
            ..Default::default()
        }
    }

    #[test]
    fn pages_of_all_servers_are_in_order_and_count_every_match() {
        let t = log();
        let page = t.query(&TrafficQuery { offset: 4, ..q(3) });
        assert_eq!(page.total, 20);
        assert_eq!(page.offset, 4);
        let seqs: Vec<u64> = page.entries.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [5, 6, 7]);
        assert_eq!(page.last_seq, 20);
        // Past the end: nothing, but the count is right.
        let page = t.query(&TrafficQuery { offset: 50, ..q(3) });
        assert_eq!((page.total, page.entries.len()), (20, 0));
    }

    #[test]
    fn the_newest_page_and_filters_by_server_direction_method_and_text() {
        let t = log();
        let last = t.query(&TrafficQuery {
            from_end: true,
            ..q(2)
        });
        assert_eq!(last.offset, 18);
        assert_eq!(
            last.entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [19, 20]
        );

        let odd_stderr = t.query(&TrafficQuery {
            server: Some("odd".into()),
            direction: Some(Direction::Stderr),
            ..q(100)
        });
        assert_eq!(odd_stderr.total, 5);
        assert!(
            odd_stderr
                .entries
                .iter()
                .all(|e| &*e.server == "odd" && e.direction == Direction::Stderr)
        );

        // Text is found in the message, whatever its case.
        let found = t.query(&TrafficQuery {
            text: Some(" echo7 ".into()),
            ..q(100)
        });
        assert_eq!(found.total, 1);
        assert_eq!(found.entries[0].id.as_deref(), Some("7"));
        let calls = t.query(&TrafficQuery {
            method: Some("tools/call".into()),
            ..q(100)
        });
        assert_eq!(calls.total, 10);
        let none = t.query(&TrafficQuery {
            server: Some("nobody".into()),
            ..q(100)
        });
        assert_eq!(none.total, 0);
    }

    #[test]
    fn a_request_and_its_response_are_found_by_id_and_a_calls_rows_by_sequence() {
        let t = log();
        t.record_message(
            "even",
            Direction::Incoming,
            br#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
        );
        let pair = t.query(&TrafficQuery {
            server: Some("even".into()),
            id: Some("4".into()),
            ..q(10)
        });
        let dirs: Vec<Direction> = pair.entries.iter().map(|e| e.direction).collect();
        assert_eq!(dirs, [Direction::Outgoing, Direction::Incoming]);
        assert!(pair.entries[1].latency_ms.is_some());
        // "4" the number, not the string "4".
        let string_id = t.query(&TrafficQuery {
            id: Some("\"4\"".into()),
            ..q(10)
        });
        assert_eq!(string_id.total, 0);
        let rows = t.query(&TrafficQuery {
            seq_from: Some(3),
            seq_to: Some(5),
            ..q(10)
        });
        assert_eq!(
            rows.entries.iter().map(|e| e.seq).collect::<Vec<_>>(),
            [3, 4, 5]
        );
    }

    #[test]
    fn a_server_sending_large_messages_keeps_fewer_of_them() {
        let t = TrafficLog::new(1000);
        t.set_max_bytes(10_000);
        let big = format!(
            r#"{{"jsonrpc":"2.0","method":"x","params":"{}"}}"#,
            "a".repeat(3000)
        );
        for _ in 0..10 {
            t.record_message("s", Direction::Incoming, big.as_bytes());
        }
        let page = t.query(&q(100));
        assert_eq!(page.total, 3, "three bodies of ~3 kB fit in 10 kB");
        assert_eq!(page.entries.last().unwrap().seq, 10, "the newest are kept");
        // One message over the budget on its own is still kept.
        t.set_max_bytes(100);
        t.record_message("s", Direction::Incoming, big.as_bytes());
        assert_eq!(t.query(&q(100)).total, 1);
    }
}
