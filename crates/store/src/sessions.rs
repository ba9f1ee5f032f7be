//! Chat sessions and their messages. A session keeps its provider, model,
//! system prompt and options (the servers and tools chosen for it, what was
//! allowed for this chat, ...) as JSON its owner defines; messages are kept
//! in order (`seq`), each with its parts as JSON, its plain text for search,
//! and the usage of the turn that produced it.

use rusqlite::{OptionalExtension, Row, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Error, Result, Store, now_ms};

/// Tokens counted by the provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input: i64,
    pub output: i64,
    /// Input tokens served from the provider's cache (part of `input`).
    pub cached: i64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cached += other.cached;
    }
}

/// A session as listed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRow {
    pub id: String,
    pub title: String,
    pub provider: String,
    pub model: String,
    pub system_prompt: String,
    /// The owner's options (servers/tools chosen, step limit, ...).
    pub options: Value,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds of the last activity.
    pub updated_at: i64,
    pub message_count: i64,
    pub usage: Usage,
}

/// What a new session starts with.
#[derive(Debug, Clone, Default)]
pub struct NewSession {
    /// An eval's run: kept for its transcript, not listed among the chats.
    pub hidden: bool,
    pub title: String,
    pub provider: String,
    pub model: String,
    pub system_prompt: String,
    pub options: Value,
}

/// One message of a session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageRow {
    pub id: i64,
    /// Position in the session, from 1.
    pub seq: i64,
    /// `user`, `assistant` or `tool` (tool results).
    pub role: String,
    /// The parts, as the owner wrote them.
    pub content: Value,
    pub usage: Option<Usage>,
    pub created_at: i64,
}

fn new_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    // Unique enough for one person's sessions: the time, and 32 random bits
    // from the process's hash seed and a counter.
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    format!("s{:011x}{:08x}", now_ms(), h.finish() as u32)
}

const SESSION_COLUMNS: &str = "s.id, s.title, s.provider, s.model, s.system_prompt, s.options, \
     s.created_at, s.updated_at, s.input_tokens, s.output_tokens, s.cached_tokens, \
     (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id)";

fn session_row(row: &Row<'_>) -> rusqlite::Result<SessionRow> {
    let options: String = row.get(5)?;
    Ok(SessionRow {
        id: row.get(0)?,
        title: row.get(1)?,
        provider: row.get(2)?,
        model: row.get(3)?,
        system_prompt: row.get(4)?,
        options: serde_json::from_str(&options).unwrap_or(Value::Null),
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
        usage: Usage {
            input: row.get(8)?,
            output: row.get(9)?,
            cached: row.get(10)?,
        },
        message_count: row.get(11)?,
    })
}

fn message_row(row: &Row<'_>) -> rusqlite::Result<MessageRow> {
    let content: String = row.get(3)?;
    let usage: Option<String> = row.get(4)?;
    Ok(MessageRow {
        id: row.get(0)?,
        seq: row.get(1)?,
        role: row.get(2)?,
        content: serde_json::from_str(&content).unwrap_or(Value::Null),
        usage: usage.and_then(|u| serde_json::from_str(&u).ok()),
        created_at: row.get(5)?,
    })
}

/// `%text%` for LIKE, with the pattern characters taken literally.
fn like_pattern(text: &str) -> String {
    let escaped = text
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

impl Store {
    pub fn create_session(&self, new: NewSession) -> Result<SessionRow> {
        let id = new_id();
        let now = now_ms();
        self.lock().execute(
            "INSERT INTO sessions (id, title, provider, model, system_prompt, options, created_at, updated_at, kind)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)",
            params![
                id,
                new.title,
                new.provider,
                new.model,
                new.system_prompt,
                serde_json::to_string(&new.options)?,
                now,
                if new.hidden { "eval" } else { "chat" }
            ],
        )?;
        self.session(&id)
    }

    pub fn session(&self, id: &str) -> Result<SessionRow> {
        self.lock()
            .query_row(
                &format!("SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.id = ?1"),
                [id],
                session_row,
            )
            .optional()?
            .ok_or_else(|| Error::NoSession(id.to_string()))
    }

    /// The most recently active session with this exact title.
    pub fn session_by_title(&self, title: &str) -> Result<Option<SessionRow>> {
        Ok(self
            .lock()
            .query_row(
                &format!(
                    "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.title = ?1 AND s.kind = 'chat'
                     ORDER BY s.updated_at DESC LIMIT 1"
                ),
                [title],
                session_row,
            )
            .optional()?)
    }

    /// Sessions, most recently active first; with `search`, those whose
    /// title or any message contains it (case-insensitive for ASCII).
    pub fn sessions(&self, search: Option<&str>) -> Result<Vec<SessionRow>> {
        let conn = self.lock();
        let rows = match search.filter(|s| !s.trim().is_empty()) {
            None => {
                let mut stmt = conn.prepare(&format!(
                    "SELECT {SESSION_COLUMNS} FROM sessions s WHERE s.kind = 'chat' ORDER BY s.updated_at DESC"
                ))?;
                stmt.query_map([], session_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            }
            Some(text) => {
                let mut stmt = conn.prepare(&format!(
                    "SELECT {SESSION_COLUMNS} FROM sessions s
                     WHERE s.kind = 'chat' AND (s.title LIKE ?1 ESCAPE '\\'
                        OR EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id
                                   AND m.text LIKE ?1 ESCAPE '\\'))
                     ORDER BY s.updated_at DESC"
                ))?;
                stmt.query_map([like_pattern(text.trim())], session_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            }
        };
        Ok(rows)
    }

    pub fn rename_session(&self, id: &str, title: &str) -> Result<()> {
        let n = self.lock().execute(
            "UPDATE sessions SET title = ?2 WHERE id = ?1",
            params![id, title],
        )?;
        if n == 0 {
            return Err(Error::NoSession(id.to_string()));
        }
        Ok(())
    }

    /// Change what the session runs with (each `Some` replaces that field).
    pub fn update_session(
        &self,
        id: &str,
        provider: Option<&str>,
        model: Option<&str>,
        system_prompt: Option<&str>,
        options: Option<&Value>,
    ) -> Result<SessionRow> {
        let options = options.map(serde_json::to_string).transpose()?;
        let n = self.lock().execute(
            "UPDATE sessions SET
                provider = COALESCE(?2, provider),
                model = COALESCE(?3, model),
                system_prompt = COALESCE(?4, system_prompt),
                options = COALESCE(?5, options)
             WHERE id = ?1",
            params![id, provider, model, system_prompt, options],
        )?;
        if n == 0 {
            return Err(Error::NoSession(id.to_string()));
        }
        self.session(id)
    }

    pub fn delete_session(&self, id: &str) -> Result<()> {
        let n = self
            .lock()
            .execute("DELETE FROM sessions WHERE id = ?1", [id])?;
        if n == 0 {
            return Err(Error::NoSession(id.to_string()));
        }
        Ok(())
    }

    /// Delete sessions with no activity for `max_idle_ms`; returns how many.
    pub fn delete_idle_sessions(&self, max_idle_ms: i64) -> Result<usize> {
        Ok(self.lock().execute(
            "DELETE FROM sessions WHERE updated_at < ?1 AND kind = 'chat'",
            [now_ms() - max_idle_ms],
        )?)
    }

    /// Append a message at the end of the session; `text` is what search
    /// finds. The session's activity time moves and its usage grows.
    pub fn append_message(
        &self,
        session: &str,
        role: &str,
        content: &Value,
        text: &str,
        usage: Option<Usage>,
    ) -> Result<MessageRow> {
        let content = serde_json::to_string(content)?;
        let usage_json = usage.as_ref().map(serde_json::to_string).transpose()?;
        let now = now_ms();
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let exists: Option<i64> = tx
            .query_row("SELECT 1 FROM sessions WHERE id = ?1", [session], |r| {
                r.get(0)
            })
            .optional()?;
        if exists.is_none() {
            return Err(Error::NoSession(session.to_string()));
        }
        let seq: i64 = tx.query_row(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?1",
            [session],
            |r| r.get(0),
        )?;
        tx.execute(
            "INSERT INTO messages (session_id, seq, role, content, text, usage, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![session, seq, role, content, text, usage_json, now],
        )?;
        let id = tx.last_insert_rowid();
        let u = usage.unwrap_or_default();
        tx.execute(
            "UPDATE sessions SET updated_at = ?2,
                input_tokens = input_tokens + ?3,
                output_tokens = output_tokens + ?4,
                cached_tokens = cached_tokens + ?5
             WHERE id = ?1",
            params![session, now, u.input, u.output, u.cached],
        )?;
        let row = tx.query_row(
            "SELECT id, seq, role, content, usage, created_at FROM messages WHERE id = ?1",
            [id],
            message_row,
        )?;
        tx.commit()?;
        Ok(row)
    }

    /// Replace a message's parts (a tool call's result filled in later).
    pub fn update_message(&self, id: i64, content: &Value, text: &str) -> Result<()> {
        self.lock().execute(
            "UPDATE messages SET content = ?2, text = ?3 WHERE id = ?1",
            params![id, serde_json::to_string(content)?, text],
        )?;
        Ok(())
    }

    /// Every message of the session, in order.
    pub fn messages(&self, session: &str) -> Result<Vec<MessageRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT id, seq, role, content, usage, created_at FROM messages
             WHERE session_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt
            .query_map([session], message_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(rows)
    }

    /// Drop the messages from `seq` on (an earlier message edited and sent
    /// again replaces the rest of the branch); their calls go with them.
    pub fn truncate_messages(&self, session: &str, seq: i64) -> Result<usize> {
        Ok(self.lock().execute(
            "DELETE FROM messages WHERE session_id = ?1 AND seq >= ?2",
            params![session, seq],
        )?)
    }
}
