//! The record of tool calls — every caller's: the window, the chat, the
//! bridge, `mcpwb call`, suites. One row a call, written when it ended:
//! server and tool, the arguments and the result as sent (already masked by
//! the writer), why it failed, how long it took, the protocol it spoke, the
//! traffic rows it produced, and whether it is kept from pruning (`saved`).

use rusqlite::types::Value as SqlValue;
use rusqlite::{OptionalExtension, Row, params, params_from_iter};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Result, Store};

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Asked for, not yet decided or finished.
    Pending,
    /// The tool answered with a result.
    Ok,
    /// The tool answered with an error result (`isError`).
    Error,
    /// The request failed (timeout, server gone, JSON-RPC error).
    Failed,
    /// The person (or the policy) refused it.
    Denied,
    /// Stopped before it finished.
    Cancelled,
}

impl CallStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CallStatus::Pending => "pending",
            CallStatus::Ok => "ok",
            CallStatus::Error => "error",
            CallStatus::Failed => "failed",
            CallStatus::Denied => "denied",
            CallStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<CallStatus> {
        Some(match s {
            "pending" => CallStatus::Pending,
            "ok" => CallStatus::Ok,
            "error" => CallStatus::Error,
            "failed" => CallStatus::Failed,
            "denied" => CallStatus::Denied,
            "cancelled" => CallStatus::Cancelled,
            _ => return None,
        })
    }
}

/// A finished call, as its writer hands it over: JSON already as text
/// (serialized and masked off the caller's path).
#[derive(Debug, Clone, Default)]
pub struct NewCall {
    /// The call's key, made before the call (None: the store makes one
    /// from the row's id).
    pub key: Option<String>,
    /// `window`, `chat`, `bridge`, `cli`, `suite`, ...
    pub origin: String,
    pub session: Option<String>,
    pub message: Option<i64>,
    /// The model's id for the call (chat), the bridge caller's, or empty.
    pub call_id: String,
    pub server: String,
    pub tool: String,
    /// JSON text.
    pub arguments: String,
    /// JSON text of the result object, when one came back.
    pub result: Option<String>,
    pub error: Option<String>,
    pub status: Option<CallStatus>,
    pub duration_ms: Option<f64>,
    /// Milliseconds since the Unix epoch.
    pub started_at: i64,
    pub protocol: Option<String>,
    /// The traffic log's sequence numbers before and after the call.
    pub traffic: Option<(u64, u64)>,
    pub schema_violations: Vec<String>,
    /// JSON text of the task the call ran as, if it became one.
    pub task: Option<String>,
    /// What happened on the way, one sentence each (a wait for the server
    /// to restart, the request sent again after it died under it).
    pub notes: Vec<String>,
    /// The call was kept while it ran ([`Store::keep_running`]): this, its
    /// end, replaces that row under the same id.
    pub replaces_running: bool,
}

impl NewCall {
    /// What the row counts against the history's size cap: every text it
    /// stores and a fixed allowance for the rest.
    pub fn size(&self) -> usize {
        self.arguments.len()
            + self.result.as_ref().map_or(0, String::len)
            + self.error.as_ref().map_or(0, String::len)
            + self
                .schema_violations
                .iter()
                .map(|v| v.len() + 3)
                .sum::<usize>()
            + self.task.as_ref().map_or(0, String::len)
            + self.notes.iter().map(|n| n.len() + 3).sum::<usize>()
            + self.call_id.len()
            + self.server.len()
            + self.tool.len()
            + self.protocol.as_ref().map_or(0, String::len)
            + self.session.as_ref().map_or(0, String::len)
            + 200
    }
}

/// What a pruning did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pruned {
    pub dropped: usize,
    /// The bytes the kept calls count, after it.
    pub kept_bytes: i64,
}

/// A call as recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallRow {
    pub id: i64,
    /// The key its caller made before the call (`row-<id>` for rows kept
    /// before keys were).
    pub key: String,
    pub origin: String,
    pub session: Option<String>,
    pub call_id: String,
    pub server: String,
    pub tool: String,
    pub arguments: Value,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub status: CallStatus,
    pub duration_ms: Option<f64>,
    pub started_at: i64,
    pub protocol: Option<String>,
    pub traffic_from: Option<i64>,
    pub traffic_to: Option<i64>,
    pub schema_violations: Vec<String>,
    /// Kept whatever the history's size cap (saved to a suite, pinned).
    pub saved: bool,
    /// The task the call ran as (`taskId`, `status`, `form`, ...), if it became one.
    pub task: Option<Value>,
    /// What a suite's case made of the call, when a suite made it.
    pub verdict: Option<CaseVerdict>,
    /// What happened on the way, one sentence each (a wait for the server
    /// to restart, the request sent again after it died under it).
    pub notes: Vec<String>,
}

/// What a suite's case made of its call: the call may be `ok` while the
/// case failed (an assertion on its result).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseVerdict {
    pub suite: String,
    pub case: String,
    /// `passed`, `failed`, `skipped` or `not_ready`.
    pub outcome: String,
    /// Each failed assertion: `assertion: message`.
    pub failures: Vec<String>,
}

/// Which calls to list, newest first.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HistoryQuery {
    pub server: Option<String>,
    pub tool: Option<String>,
    pub origin: Option<String>,
    pub status: Option<CallStatus>,
    /// Text looked for in the arguments, the result and the error.
    pub search: Option<String>,
    /// Only calls older than this id (the next page).
    pub before: Option<i64>,
    /// At most this many (0: 100).
    pub limit: u32,
}

fn call_row(row: &Row<'_>) -> rusqlite::Result<CallRow> {
    let json = |i: usize| -> rusqlite::Result<Option<Value>> {
        let text: Option<String> = row.get(i)?;
        Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
    };
    let status: String = row.get(9)?;
    let violations: String = row.get(15)?;
    let id: i64 = row.get(0)?;
    Ok(CallRow {
        id,
        key: row
            .get::<_, Option<String>>(20)?
            .unwrap_or_else(|| format!("row-{id}")),
        origin: row.get(1)?,
        session: row.get(2)?,
        call_id: row.get(3)?,
        server: row.get(4)?,
        tool: row.get(5)?,
        arguments: json(6)?.unwrap_or(Value::Null),
        result: json(7)?,
        error: row.get(8)?,
        status: CallStatus::parse(&status).unwrap_or(CallStatus::Pending),
        duration_ms: row.get(10)?,
        started_at: row.get(11)?,
        protocol: row.get(12)?,
        traffic_from: row.get(13)?,
        traffic_to: row.get(14)?,
        schema_violations: serde_json::from_str(&violations).unwrap_or_default(),
        saved: row.get::<_, i64>(16)? != 0,
        task: json(17)?,
        verdict: json(18)?.and_then(|v| serde_json::from_value(v).ok()),
        notes: serde_json::from_str(&row.get::<_, String>(19)?).unwrap_or_default(),
    })
}

const CALL_COLUMNS: &str = "id, origin, session_id, call_id, server, tool, arguments, result, \
     error, status, duration_ms, started_at, protocol, traffic_from, traffic_to, \
     schema_violations, saved, task, verdict, notes, key";

/// `%`, `_` and `\` taken literally in a LIKE pattern.
fn like_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

impl Store {
    /// Write finished calls in one transaction; returns their ids in order.
    pub fn insert_calls(&self, calls: &[NewCall]) -> Result<Vec<i64>> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let ids = insert_calls_in(&tx, calls, None)?;
        tx.commit()?;
        Ok(ids)
    }

    /// Keep calls still running in `process` as `pending` rows (a call
    /// that has run a while): its end replaces each under the same id. A
    /// call that ended already keeps its row.
    pub fn keep_running(&self, calls: &[NewCall], process: Process) -> Result<Vec<i64>> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let ids = insert_calls_in(&tx, calls, Some(process))?;
        tx.commit()?;
        Ok(ids)
    }

    /// The calls left running by a process that is gone (`alive` says which
    /// are not): each becomes `failed`, interrupted. How many. Read first:
    /// the write lock is taken only when some process is gone (the window
    /// asks each time it looks at the History).
    pub fn interrupted(&self, alive: impl Fn(Process) -> bool) -> Result<usize> {
        const RUNNING: &str = "SELECT DISTINCT pid, pid_started FROM calls
             WHERE status = 'pending' AND pid IS NOT NULL";
        let gone = |conn: &rusqlite::Connection| -> Result<Vec<(i64, Option<i64>)>> {
            let mut stmt = conn.prepare_cached(RUNNING)?;
            let processes: Vec<(i64, Option<i64>)> = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?;
            Ok(processes
                .into_iter()
                .filter(|(pid, started)| {
                    !u32::try_from(*pid).is_ok_and(|pid| {
                        alive(Process {
                            pid,
                            started: *started,
                        })
                    })
                })
                .collect())
        };
        let mut conn = self.lock();
        if gone(&conn)?.is_empty() {
            return Ok(0);
        }
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let why = "interrupted: the process making the call ended before the call did";
        let mut n = 0;
        for (pid, started) in gone(&tx)? {
            n += tx.execute(
                // The pid stays: an end that comes after all (a process
                // this one could not see, as in another PID namespace)
                // still lands in the row.
                "UPDATE calls SET status = 'failed', error = ?1,
                   size = size + length(CAST(?1 AS BLOB))
                 WHERE status = 'pending' AND pid = ?2 AND pid_started IS ?3",
                params![why, pid, started],
            )?;
        }
        tx.commit()?;
        Ok(n)
    }

    /// What changes when any process keeps a call, ends a running one or
    /// marks one interrupted: the newest call's id and how many run. Two
    /// reads of indexes; the window asks it while the History is shown, to
    /// see what `mcpwb`, the bridge or a tap wrote.
    pub fn calls_version(&self) -> Result<(i64, i64)> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT (SELECT coalesce(max(id), 0) FROM calls),
                    (SELECT count(*) FROM calls WHERE status = 'pending' AND pid IS NOT NULL)",
        )?;
        Ok(stmt.query_row([], |r| Ok((r.get(0)?, r.get(1)?)))?)
    }

    /// One call by its id.
    pub fn call(&self, id: i64) -> Result<Option<CallRow>> {
        let conn = self.lock();
        let mut stmt =
            conn.prepare_cached(&format!("SELECT {CALL_COLUMNS} FROM calls WHERE id = ?1"))?;
        let mut rows = stmt.query_map([id], call_row)?;
        Ok(rows.next().transpose()?)
    }

    /// One call by the key its caller made.
    pub fn call_by_key(&self, key: &str) -> Result<Option<CallRow>> {
        let conn = self.lock();
        let mut stmt =
            conn.prepare_cached(&format!("SELECT {CALL_COLUMNS} FROM calls WHERE key = ?1"))?;
        let mut rows = stmt.query_map([key], call_row)?;
        Ok(rows.next().transpose()?)
    }

    /// The calls a query selects, newest first.
    pub fn history(&self, q: &HistoryQuery) -> Result<Vec<CallRow>> {
        let mut clauses: Vec<&str> = Vec::new();
        let mut values: Vec<SqlValue> = Vec::new();
        let mut text = |clause: &'static str, v: &Option<String>| {
            if let Some(v) = v.as_ref().filter(|v| !v.is_empty()) {
                clauses.push(clause);
                values.push(SqlValue::Text(v.clone()));
            }
        };
        text("server = ?", &q.server);
        text("tool = ?", &q.tool);
        text("origin = ?", &q.origin);
        if let Some(status) = q.status {
            clauses.push("status = ?");
            values.push(SqlValue::Text(status.as_str().into()));
        }
        if let Some(before) = q.before {
            clauses.push("id < ?");
            values.push(SqlValue::Integer(before));
        }
        if let Some(search) = q.search.as_ref().filter(|s| !s.is_empty()) {
            clauses.push(
                "(arguments LIKE ? ESCAPE '\\' OR result LIKE ? ESCAPE '\\' OR error LIKE ? ESCAPE '\\')",
            );
            let pattern = like_pattern(search);
            for _ in 0..3 {
                values.push(SqlValue::Text(pattern.clone()));
            }
        }
        let filter = if clauses.is_empty() {
            String::new()
        } else {
            format!("WHERE {}", clauses.join(" AND "))
        };
        let limit = if q.limit == 0 {
            100
        } else {
            q.limit.min(10_000)
        };
        values.push(SqlValue::Integer(limit as i64));
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {CALL_COLUMNS} FROM calls {filter} ORDER BY id DESC LIMIT ?"
        ))?;
        let rows = stmt
            .query_map(params_from_iter(values), call_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The calls of a session, in the order they were made (rows are
    /// written as calls end, so by their start).
    pub fn session_calls(&self, session: &str) -> Result<Vec<CallRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {CALL_COLUMNS} FROM calls WHERE session_id = ?1 ORDER BY started_at, id"
        ))?;
        let rows = stmt
            .query_map([session], call_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The latest calls of one tool, newest first (its history).
    pub fn tool_calls(&self, server: &str, tool: &str, limit: usize) -> Result<Vec<CallRow>> {
        self.history(&HistoryQuery {
            server: Some(server.into()),
            tool: Some(tool.into()),
            limit: limit as u32,
            ..Default::default()
        })
    }

    /// Keep the call with `key` whatever the size cap (true), or let it be
    /// pruned again.
    pub fn set_call_saved(&self, key: &str, saved: bool) -> Result<bool> {
        let n = self.lock().execute(
            "UPDATE calls SET saved = ?2 WHERE key = ?1",
            params![key, saved as i64],
        )?;
        Ok(n > 0)
    }

    /// Keep what a suite's case made of the call with `key`.
    pub fn set_call_verdict(&self, key: &str, verdict: &CaseVerdict) -> Result<bool> {
        let text = serde_json::to_string(verdict).unwrap_or_default();
        let n = self.lock().execute(
            "UPDATE calls SET verdict = ?2 WHERE key = ?1",
            params![key, text],
        )?;
        Ok(n > 0)
    }

    /// How many calls are kept and how many bytes they take (kept as the
    /// calls change: one row read).
    pub fn calls_size(&self) -> Result<(i64, i64)> {
        kept(&self.lock())
    }

    /// Drop the oldest calls (never saved ones, never a chat's) until the
    /// rest take at most `max_bytes`; says how many went and what is kept.
    /// It reads the prunable calls' sizes from their index, oldest first,
    /// only as far as the excess: its cost follows what it drops, not what
    /// is kept.
    pub fn prune_calls(&self, max_bytes: i64) -> Result<Pruned> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let (_, total) = kept(&tx)?;
        if total <= max_bytes {
            return Ok(Pruned {
                dropped: 0,
                kept_bytes: total,
            });
        }
        let excess = total - max_bytes;
        // The newest id among the oldest prunable calls whose sizes add up
        // to the excess: everything prunable up to it goes (all of them
        // when they do not reach it).
        let cut = {
            let mut stmt = tx.prepare_cached(PRUNABLE)?;
            let mut rows = stmt.query([])?;
            let (mut freed, mut cut) = (0i64, None);
            while freed < excess {
                let Some(row) = rows.next()? else { break };
                cut = Some(row.get::<_, i64>(0)?);
                freed += row.get::<_, i64>(1)?;
            }
            cut
        };
        let dropped = match cut {
            Some(cut) => tx.execute(
                "DELETE FROM calls WHERE saved = 0 AND session_id IS NULL AND id <= ?1",
                [cut],
            )?,
            None => 0,
        };
        let (_, kept_bytes) = kept(&tx)?;
        tx.commit()?;
        Ok(Pruned {
            dropped,
            kept_bytes,
        })
    }
}

/// The calls pruning may drop, oldest first, with their sizes: read from
/// the `calls_prunable` index alone (named: without statistics SQLite
/// would take `calls_session` and read every chat-less call's row).
pub(crate) const PRUNABLE: &str = "SELECT id, size FROM calls INDEXED BY calls_prunable
     WHERE saved = 0 AND session_id IS NULL ORDER BY id";

/// How many calls are kept and their bytes, as `calls_kept` has them.
fn kept(conn: &rusqlite::Connection) -> Result<(i64, i64)> {
    Ok(
        conn.query_row("SELECT rows, bytes FROM calls_kept", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?,
    )
}

/// The process making a call: its id, and when it started (ticks since
/// the machine's boot, as `/proc/PID/stat` says; None where that cannot be
/// read). The two together tell it from a later process given the same id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    pub started: Option<i64>,
}

/// Write calls within `tx`; their ids in order. Finished (`running`:
/// None), each replaces its running row; still running (`running`: the
/// process making them), each is kept as it is unless a row has its key.
pub(crate) fn insert_calls_in(
    tx: &rusqlite::Transaction<'_>,
    calls: &[NewCall],
    running: Option<Process>,
) -> Result<Vec<i64>> {
    let mut ids = Vec::with_capacity(calls.len());
    const COLUMNS: &str = "origin, session_id, message_id, call_id, server, tool, arguments,
        result, error, status, duration_ms, started_at, protocol, traffic_from, traffic_to,
        schema_violations, size, task, notes, key, pid, pid_started";
    const VALUES: &str = "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22";
    // Most calls: a row of their own.
    let mut plain =
        tx.prepare_cached(&format!("INSERT INTO calls ({COLUMNS}) VALUES ({VALUES})"))?;
    // A call kept while it ran: its end replaces that row, under the same
    // id, also when it was found interrupted meanwhile (its process out of
    // sight, not gone); a row ended already is not replaced by a running
    // one, nor by a second end (an end clears the pid).
    let mut ending = tx.prepare_cached(&format!(
        "INSERT INTO calls ({COLUMNS}) VALUES ({VALUES})
         ON CONFLICT(key) DO UPDATE SET
           result = excluded.result, error = excluded.error, status = excluded.status,
           duration_ms = excluded.duration_ms, protocol = excluded.protocol,
           traffic_from = excluded.traffic_from, traffic_to = excluded.traffic_to,
           schema_violations = excluded.schema_violations, size = excluded.size,
           task = excluded.task, notes = excluded.notes, pid = NULL, pid_started = NULL
         WHERE calls.pid IS NOT NULL AND calls.status IN ('pending', 'failed')
         RETURNING id"
    ))?;
    // A call still running: kept unless a row has its key.
    let mut still = tx.prepare_cached(&format!(
        "INSERT INTO calls ({COLUMNS}) VALUES ({VALUES})
         ON CONFLICT(key) DO NOTHING RETURNING id"
    ))?;
    for c in calls {
        let size = c.size();
        let row = params![
            c.origin,
            c.session,
            c.message,
            c.call_id,
            c.server,
            c.tool,
            c.arguments,
            c.result,
            c.error,
            c.status.unwrap_or(CallStatus::Pending).as_str(),
            c.duration_ms,
            c.started_at,
            c.protocol,
            c.traffic.map(|t| t.0 as i64),
            c.traffic.map(|t| t.1 as i64),
            serde_json::to_string(&c.schema_violations)?,
            size as i64,
            c.task,
            serde_json::to_string(&c.notes)?,
            c.key,
            running.map(|p| p.pid),
            running.and_then(|p| p.started),
        ];
        let replaced = match (running, c.replaces_running) {
            (None, false) => {
                plain.execute(row)?;
                ids.push(tx.last_insert_rowid());
                continue;
            }
            (None, true) => ending.query_row(row, |r| r.get::<_, i64>(0)).optional()?,
            (Some(_), _) => still.query_row(row, |r| r.get::<_, i64>(0)).optional()?,
        };
        let id = match replaced {
            Some(id) => id,
            // A running row behind its end, or an end whose row ended
            // already: the row there is the call's.
            None => tx.query_row("SELECT id FROM calls WHERE key = ?1", [&c.key], |r| {
                r.get(0)
            })?,
        };
        ids.push(id);
    }
    Ok(ids)
}
