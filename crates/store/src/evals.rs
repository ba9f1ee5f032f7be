//! The runs of a suite's prompt cases (evals): each run's report as its
//! owner (the agent) wrote it, and the hidden chats its model turns were.
//! The newest [`KEEP`] runs of a suite are kept; an older one goes with its
//! chats.

use rusqlite::{OptionalExtension, Row, params};
use serde::Serialize;
use serde_json::Value;

use crate::{Result, Store};

/// How many runs of one suite are kept.
pub const KEEP: usize = 20;

/// One eval run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalRunRow {
    pub id: i64,
    pub started_at: i64,
    /// The suite file's path.
    pub suite: String,
    pub name: String,
    /// The report, as the agent wrote it.
    pub report: Value,
}

fn eval_row(row: &Row<'_>) -> rusqlite::Result<EvalRunRow> {
    let report: String = row.get(4)?;
    Ok(EvalRunRow {
        id: row.get(0)?,
        started_at: row.get(1)?,
        suite: row.get(2)?,
        name: row.get(3)?,
        report: serde_json::from_str(&report).unwrap_or(Value::Null),
    })
}

impl Store {
    /// Keep a run; older runs of the suite past [`KEEP`] are deleted with
    /// their chats. Returns the run's id.
    pub fn add_eval_run(
        &self,
        suite: &str,
        name: &str,
        started_at: i64,
        report: &Value,
        sessions: &[String],
    ) -> Result<i64> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO eval_runs (started_at, suite, name, report, sessions) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                started_at,
                suite,
                name,
                serde_json::to_string(report)?,
                serde_json::to_string(sessions)?
            ],
        )?;
        let id = tx.last_insert_rowid();
        let old: Vec<(i64, String)> = {
            let mut stmt = tx.prepare(
                "SELECT id, sessions FROM eval_runs WHERE suite = ?1 ORDER BY started_at DESC, id DESC LIMIT -1 OFFSET ?2",
            )?;
            stmt.query_map(params![suite, KEEP as i64], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        for (run, sessions) in old {
            let ids: Vec<String> = serde_json::from_str(&sessions).unwrap_or_default();
            for s in ids {
                tx.execute("DELETE FROM sessions WHERE id = ?1 AND kind = 'eval'", [s])?;
            }
            tx.execute("DELETE FROM eval_runs WHERE id = ?1", [run])?;
        }
        tx.commit()?;
        Ok(id)
    }

    /// The runs of a suite (by its path), newest first.
    pub fn eval_runs(&self, suite: &str) -> Result<Vec<EvalRunRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT id, started_at, suite, name, report FROM eval_runs WHERE suite = ?1 ORDER BY started_at DESC, id DESC",
        )?;
        Ok(stmt
            .query_map([suite], eval_row)?
            .collect::<rusqlite::Result<_>>()?)
    }

    pub fn eval_run(&self, id: i64) -> Result<Option<EvalRunRow>> {
        Ok(self
            .lock()
            .query_row(
                "SELECT id, started_at, suite, name, report FROM eval_runs WHERE id = ?1",
                [id],
                eval_row,
            )
            .optional()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::NewSession;
    use serde_json::json;

    #[test]
    fn runs_are_kept_newest_first_and_old_ones_go_with_their_chats() {
        let store = Store::in_memory().unwrap();
        let hidden = store
            .create_session(NewSession {
                hidden: true,
                title: "eval".into(),
                ..Default::default()
            })
            .unwrap();
        let chat = store
            .create_session(NewSession {
                title: "mine".into(),
                ..Default::default()
            })
            .unwrap();
        // An eval's chat is not listed among the chats, nor found by title.
        let listed: Vec<String> = store
            .sessions(None)
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(listed, vec![chat.id.clone()]);
        assert!(store.session_by_title("eval").unwrap().is_none());
        store
            .add_eval_run(
                "/s.json",
                "s",
                1,
                &json!({"n": 0}),
                &[hidden.id.clone(), chat.id.clone()],
            )
            .unwrap();
        for n in 1..=KEEP as i64 {
            store
                .add_eval_run("/s.json", "s", 1 + n, &json!({ "n": n }), &[])
                .unwrap();
        }
        let runs = store.eval_runs("/s.json").unwrap();
        assert_eq!(runs.len(), KEEP);
        assert_eq!(runs[0].report, json!({"n": KEEP}));
        // The first run went, with its hidden chat; a person's chat named
        // in it (it cannot be, but) stays.
        assert!(store.session(&hidden.id).is_err());
        assert!(store.session(&chat.id).is_ok());
        assert!(store.eval_run(runs[0].id).unwrap().is_some());
        assert!(store.eval_runs("/other.json").unwrap().is_empty());
    }
}
