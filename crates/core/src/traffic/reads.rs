//! What the traffic log holds, read whole: a server's entries (or all of
//! them merged in order), its last stderr lines and the workbench's notes
//! about it, and the entries as JSON Lines.

use std::sync::Arc;

use super::{Direction, TrafficEntry, TrafficLog};

impl TrafficLog {
    /// Entries of one server (or all, merged in order), oldest first.
    pub fn entries(&self, server: Option<&str>) -> Vec<Arc<TrafficEntry>> {
        self.snapshot(server).0
    }

    /// The entries (shared pointers, copied under the lock; merged in order
    /// outside it) and the newest sequence number of the whole log.
    pub(super) fn snapshot(&self, server: Option<&str>) -> (Vec<Arc<TrafficEntry>>, u64) {
        let (mut out, seq, rings): (Vec<_>, u64, usize) = {
            let inner = self.lock();
            let out = match server {
                Some(s) => inner
                    .rings
                    .get(s)
                    .map(|r| r.entries.iter().cloned().collect())
                    .unwrap_or_default(),
                None => inner
                    .rings
                    .values()
                    .flat_map(|r| r.entries.iter().cloned())
                    .collect(),
            };
            (out, inner.seq, inner.rings.len())
        };
        if server.is_none() && rings > 1 {
            out.sort_unstable_by_key(|e| e.seq);
        }
        (out, seq)
    }

    /// The last `n` stderr lines of a server (for a Failed state's detail).
    pub fn last_stderr(&self, server: &str, n: usize) -> Vec<String> {
        self.last_of(server, Direction::Stderr, n)
    }

    /// The last `n` of the workbench's own notes about `server`, oldest first.
    pub fn last_notes(&self, server: &str, n: usize) -> Vec<String> {
        self.last_of(server, Direction::Note, n)
    }

    fn last_of(&self, server: &str, direction: Direction, n: usize) -> Vec<String> {
        let inner = self.lock();
        let Some(ring) = inner.rings.get(server) else {
            return Vec::new();
        };
        let mut lines: Vec<String> = ring
            .entries
            .iter()
            .rev()
            .filter(|e| e.direction == direction)
            .take(n)
            .map(|e| e.body.clone())
            .collect();
        lines.reverse();
        lines
    }

    /// Write entries as JSON Lines.
    pub fn export_jsonl(
        &self,
        server: Option<&str>,
        out: &mut impl std::io::Write,
    ) -> std::io::Result<usize> {
        let entries = self.entries(server);
        for e in &entries {
            serde_json::to_writer(&mut *out, &**e)?;
            out.write_all(b"\n")?;
        }
        Ok(entries.len())
    }
}
