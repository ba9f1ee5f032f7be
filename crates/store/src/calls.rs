//! The record of tool calls: which server and tool, the arguments, the
//! result, how it ended and how long it took. The agent writes one per call
//! it makes (with its session and message); calls made by hand, through the
//! bridge or by a suite go here too, told apart by `origin`.

use rusqlite::{Row, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Result, Store, now_ms};

/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
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
    fn as_str(self) -> &'static str {
        match self {
            CallStatus::Pending => "pending",
            CallStatus::Ok => "ok",
            CallStatus::Error => "error",
            CallStatus::Failed => "failed",
            CallStatus::Denied => "denied",
            CallStatus::Cancelled => "cancelled",
        }
    }

    fn parse(s: &str) -> CallStatus {
        match s {
            "ok" => CallStatus::Ok,
            "error" => CallStatus::Error,
            "failed" => CallStatus::Failed,
            "denied" => CallStatus::Denied,
            "cancelled" => CallStatus::Cancelled,
            _ => CallStatus::Pending,
        }
    }
}

/// A call about to be made.
#[derive(Debug, Clone)]
pub struct CallRecord<'a> {
    /// `chat`, `manual`, `bridge`, `suite`.
    pub origin: &'a str,
    pub session: Option<&'a str>,
    pub message: Option<i64>,
    /// The model's id for the call (chat), or empty.
    pub call_id: &'a str,
    pub server: &'a str,
    pub tool: &'a str,
    pub arguments: &'a Value,
}

/// A call as recorded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct CallRow {
    pub id: i64,
    pub origin: String,
    pub session: Option<String>,
    pub call_id: String,
    pub server: String,
    pub tool: String,
    pub arguments: Value,
    pub result: Option<Value>,
    pub status: CallStatus,
    pub duration_ms: Option<f64>,
    pub started_at: i64,
}

fn call_row(row: &Row<'_>) -> rusqlite::Result<CallRow> {
    let arguments: String = row.get(6)?;
    let result: Option<String> = row.get(7)?;
    let status: String = row.get(8)?;
    Ok(CallRow {
        id: row.get(0)?,
        origin: row.get(1)?,
        session: row.get(2)?,
        call_id: row.get(3)?,
        server: row.get(4)?,
        tool: row.get(5)?,
        arguments: serde_json::from_str(&arguments).unwrap_or(Value::Null),
        result: result.and_then(|r| serde_json::from_str(&r).ok()),
        status: CallStatus::parse(&status),
        duration_ms: row.get(9)?,
        started_at: row.get(10)?,
    })
}

const CALL_COLUMNS: &str = "id, origin, session_id, call_id, server, tool, arguments, result, \
     status, duration_ms, started_at";

impl Store {
    /// Record a call as pending; returns its id for [`Store::finish_call`].
    pub fn record_call(&self, call: &CallRecord<'_>) -> Result<i64> {
        let conn = self.lock();
        conn.execute(
            "INSERT INTO calls (origin, session_id, message_id, call_id, server, tool, arguments, status, started_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'pending', ?8)",
            params![
                call.origin,
                call.session,
                call.message,
                call.call_id,
                call.server,
                call.tool,
                serde_json::to_string(call.arguments)?,
                now_ms()
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }

    /// How the call ended: its final arguments (the person may have edited
    /// them), its result and its duration.
    pub fn finish_call(
        &self,
        id: i64,
        arguments: &Value,
        status: CallStatus,
        result: Option<&Value>,
        duration_ms: Option<f64>,
    ) -> Result<()> {
        let result = result.map(serde_json::to_string).transpose()?;
        self.lock().execute(
            "UPDATE calls SET arguments = ?2, status = ?3, result = ?4, duration_ms = ?5 WHERE id = ?1",
            params![
                id,
                serde_json::to_string(arguments)?,
                status.as_str(),
                result,
                duration_ms
            ],
        )?;
        Ok(())
    }

    /// The calls of a session, in the order they were made.
    pub fn session_calls(&self, session: &str) -> Result<Vec<CallRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {CALL_COLUMNS} FROM calls WHERE session_id = ?1 ORDER BY id"
        ))?;
        let rows = stmt
            .query_map([session], call_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// The latest calls of one tool, newest first (its history).
    pub fn tool_calls(&self, server: &str, tool: &str, limit: usize) -> Result<Vec<CallRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(&format!(
            "SELECT {CALL_COLUMNS} FROM calls WHERE server = ?1 AND tool = ?2
             ORDER BY started_at DESC, id DESC LIMIT ?3"
        ))?;
        let rows = stmt
            .query_map(params![server, tool, limit as i64], call_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }
}
