//! What passed between a host (Claude, Cursor, an SDK client) and a server
//! through `mcpwb tap`: one row a connection (the host's name and version,
//! the protocol they spoke, when it began and ended), its messages in order
//! with their time, direction and size. A message too long to keep is kept
//! cut (`cut`), its `size` the whole.

use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};

use crate::{NewCall, Result, Store};

/// One tapped connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapRow {
    pub id: i64,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    /// The server's name (its entry's, or the command's program).
    pub server: String,
    /// The command line the tap ran.
    pub command: String,
    /// The host's `clientInfo.name` and `version`, once it said them.
    pub host: Option<String>,
    pub host_version: Option<String>,
    /// The protocol revision the server answered with.
    pub protocol: Option<String>,
    pub messages: i64,
    /// Messages not kept because the recorder fell behind (they passed).
    pub dropped: i64,
    /// The file it was opened from (None: a tap kept it).
    pub imported_from: Option<String>,
}

/// One message as it passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TapMessage {
    pub seq: i64,
    pub at_ms: i64,
    /// `host` (host to server) or `server` (server to host).
    pub direction: String,
    /// Its size in bytes, whole.
    pub size: i64,
    /// Its text (lossy UTF-8), cut when it was too long to keep.
    pub text: String,
    pub cut: bool,
}

fn tap_row(row: &Row<'_>) -> rusqlite::Result<TapRow> {
    Ok(TapRow {
        id: row.get(0)?,
        started_at: row.get(1)?,
        ended_at: row.get(2)?,
        server: row.get(3)?,
        command: row.get(4)?,
        host: row.get(5)?,
        host_version: row.get(6)?,
        protocol: row.get(7)?,
        messages: row.get(8)?,
        dropped: row.get(9)?,
        imported_from: row.get(10)?,
    })
}

const TAP_COLUMNS: &str = "id, started_at, ended_at, server, command, host, host_version, protocol, messages, dropped, imported_from";

impl Store {
    /// A new tapped connection of `server` (run as `command`), begun now.
    pub fn create_tap(&self, server: &str, command: &str, started_at: i64) -> Result<i64> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO taps (started_at, server, command) VALUES (?1, ?2, ?3)",
            params![started_at, server, command],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// Keep `messages` of the connection `id` (in one transaction).
    pub fn append_tap_messages(&self, id: i64, messages: &[TapMessage]) -> Result<()> {
        self.append_tap_batch(id, messages, &[])
    }

    /// Keep `messages` of the connection `id` and the host's `calls` they
    /// answered (History rows), in one transaction: one commit a batch.
    pub fn append_tap_batch(
        &self,
        id: i64,
        messages: &[TapMessage],
        calls: &[NewCall],
    ) -> Result<()> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        if !calls.is_empty() {
            crate::calls::insert_calls_in(&tx, calls, None)?;
        }
        {
            // A new message is a plain insert. A replacing insert, even of a
            // row that is not there, costs SQLite two ephemeral tables and a
            // statement journal for the triggers it runs (the messages'
            // part of the tap's writer fell from 357M to 249M instructions
            // for 4,000 calls, callgrind): it is made only for a
            // message kept again (the same session and number), which fails
            // the plain one.
            let mut insert = tx.prepare_cached(
                "INSERT INTO tap_messages (tap_id, seq, at_ms, direction, size, text, cut) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for m in messages {
                let row = params![
                    id,
                    m.seq,
                    m.at_ms,
                    m.direction,
                    m.size,
                    m.text,
                    m.cut as i64
                ];
                match insert.execute(row) {
                    Ok(_) => {}
                    Err(e) if kept_again(&e) => {
                        // Replaces its row, counted off by a trigger first
                        // (the replacing delete fires none). Never an
                        // upsert: its update would be counted off twice.
                        tx.prepare_cached(
                            "INSERT OR REPLACE INTO tap_messages \
                             (tap_id, seq, at_ms, direction, size, text, cut) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                        )?
                        .execute(row)?;
                    }
                    Err(e) => return Err(e.into()),
                }
            }
        }
        tx.prepare_cached("UPDATE taps SET messages = messages + ?2 WHERE id = ?1")?
            .execute(params![id, messages.len() as i64])?;
        tx.commit()?;
        Ok(())
    }

    /// What the host and the server said of themselves in the handshake.
    pub fn set_tap_host(
        &self,
        id: i64,
        host: Option<&str>,
        host_version: Option<&str>,
        protocol: Option<&str>,
    ) -> Result<()> {
        self.lock().execute(
            "UPDATE taps SET host = COALESCE(?2, host), host_version = COALESCE(?3, host_version), \
             protocol = COALESCE(?4, protocol) WHERE id = ?1",
            params![id, host, host_version, protocol],
        )?;
        Ok(())
    }

    /// The connection `id` was opened from the file `from`.
    pub fn set_tap_imported_from(&self, id: i64, from: &str) -> Result<()> {
        self.lock().execute(
            "UPDATE taps SET imported_from = ?2 WHERE id = ?1",
            params![id, from],
        )?;
        Ok(())
    }

    /// The connection `id` ended at `ended_at`; `dropped` messages were not kept.
    pub fn end_tap(&self, id: i64, ended_at: i64, dropped: i64) -> Result<()> {
        self.lock().execute(
            "UPDATE taps SET ended_at = ?2, dropped = ?3 WHERE id = ?1",
            params![id, ended_at, dropped],
        )?;
        Ok(())
    }

    /// The tapped connections, newest first (at most `limit`).
    pub fn taps(&self, limit: u32) -> Result<Vec<TapRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {TAP_COLUMNS} FROM taps ORDER BY id DESC LIMIT ?1"
        ))?;
        let rows = stmt.query_map([limit.max(1)], tap_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    /// One tapped connection.
    pub fn tap(&self, id: i64) -> Result<Option<TapRow>> {
        let conn = self.lock();
        let mut stmt =
            conn.prepare_cached(&format!("SELECT {TAP_COLUMNS} FROM taps WHERE id = ?1"))?;
        Ok(stmt.query_row([id], tap_row).optional()?)
    }

    /// Forget the connection `id` and its messages; false when there was none.
    pub fn delete_tap(&self, id: i64) -> Result<bool> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute("DELETE FROM tap_messages WHERE tap_id = ?1", [id])?;
        let gone = tx.execute("DELETE FROM taps WHERE id = ?1", [id])?;
        tx.commit()?;
        Ok(gone > 0)
    }

    /// The bytes the kept messages take (their texts), all sessions and
    /// the one `id`'s: kept as messages come and go, two rows read.
    pub fn taps_size(&self, id: i64) -> Result<(i64, i64)> {
        let conn = self.lock();
        let all: i64 = conn.query_row("SELECT bytes FROM taps_kept", [], |r| r.get(0))?;
        let one: i64 = conn
            .query_row("SELECT bytes FROM taps WHERE id = ?1", [id], |r| r.get(0))
            .optional()?
            .unwrap_or(0);
        Ok((all, one))
    }

    /// Drop the oldest ended sessions (never `keep`, never one still
    /// going) until the messages kept take at most `max_bytes`; the ids
    /// dropped and the bytes kept after.
    pub fn prune_taps(&self, max_bytes: i64, keep: Option<i64>) -> Result<(Vec<i64>, i64)> {
        let (mut total, _) = self.taps_size(keep.unwrap_or(-1))?;
        let mut dropped = Vec::new();
        if total <= max_bytes {
            return Ok((dropped, total));
        }
        let oldest: Vec<(i64, i64)> = {
            let conn = self.lock();
            let mut stmt = conn.prepare(
                "SELECT id, bytes FROM taps WHERE ended_at IS NOT NULL AND id != ?1 ORDER BY id",
            )?;
            let rows = stmt.query_map([keep.unwrap_or(-1)], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        for (id, size) in oldest {
            if total <= max_bytes {
                break;
            }
            self.delete_tap(id)?;
            total -= size;
            dropped.push(id);
        }
        Ok((dropped, total))
    }

    /// Its messages in order.
    pub fn tap_messages(&self, id: i64) -> Result<Vec<TapMessage>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT seq, at_ms, direction, size, text, cut FROM tap_messages \
             WHERE tap_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([id], |r| {
            Ok(TapMessage {
                seq: r.get(0)?,
                at_ms: r.get(1)?,
                direction: r.get(2)?,
                size: r.get(3)?,
                text: r.get(4)?,
                cut: r.get::<_, i64>(5)? != 0,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }
}

/// A message's insert failed because its session and number are kept
/// already.
fn kept_again(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
    )
}
