//! The schema, as an append-only list of migrations. `PRAGMA user_version`
//! records how many ran; each runs once, in its own transaction. Never edit
//! a migration that has shipped: add the next one.
//!
//! Suites live in the project as files (reviewable in a pull request), not
//! here; the calls they make land in `calls` like every other caller's.

use rusqlite::Connection;

const MIGRATIONS: &[&str] = &[
    // 1: chat sessions, their messages, and the record of tool calls.
    r#"
    CREATE TABLE sessions (
        id            TEXT PRIMARY KEY,
        title         TEXT NOT NULL,
        provider      TEXT NOT NULL,
        model         TEXT NOT NULL,
        system_prompt TEXT NOT NULL DEFAULT '',
        options       TEXT NOT NULL DEFAULT '{}',
        created_at    INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL,
        input_tokens  INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cached_tokens INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX sessions_updated ON sessions(updated_at DESC);
    CREATE TABLE messages (
        id         INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        role       TEXT NOT NULL,
        content    TEXT NOT NULL,
        text       TEXT NOT NULL DEFAULT '',
        usage      TEXT,
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, seq)
    );
    CREATE TABLE calls (
        id          INTEGER PRIMARY KEY,
        origin      TEXT NOT NULL,
        session_id  TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        message_id  INTEGER REFERENCES messages(id) ON DELETE CASCADE,
        call_id     TEXT NOT NULL DEFAULT '',
        server      TEXT NOT NULL,
        tool        TEXT NOT NULL,
        arguments   TEXT NOT NULL,
        result      TEXT,
        status      TEXT NOT NULL,
        duration_ms REAL,
        started_at  INTEGER NOT NULL
    );
    CREATE INDEX calls_session ON calls(session_id);
    CREATE INDEX calls_server_tool ON calls(server, tool, started_at DESC);
    "#,
    // 2: the call history of every caller (window, chat, bridge, mcpwb,
    // suites): why a call failed, the protocol it spoke, its traffic rows,
    // output-schema problems, whether it is kept from pruning, its size.
    r#"
    ALTER TABLE calls ADD COLUMN error TEXT;
    ALTER TABLE calls ADD COLUMN protocol TEXT;
    ALTER TABLE calls ADD COLUMN traffic_from INTEGER;
    ALTER TABLE calls ADD COLUMN traffic_to INTEGER;
    ALTER TABLE calls ADD COLUMN schema_violations TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE calls ADD COLUMN saved INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE calls ADD COLUMN size INTEGER NOT NULL DEFAULT 0;
    "#,
    // 3: the task a call ran as (its id, last status, form), as JSON.
    r#"
    ALTER TABLE calls ADD COLUMN task TEXT;
    "#,
    // 4: what a suite's case made of its call (the call may be ok while
    // its case failed an assertion), as JSON.
    r#"
    ALTER TABLE calls ADD COLUMN verdict TEXT;
    "#,
    // 5: connections a host made through `mcpwb tap` (its sessions with a
    // server), each message as it passed.
    r#"
    CREATE TABLE taps (
        id           INTEGER PRIMARY KEY,
        started_at   INTEGER NOT NULL,
        ended_at     INTEGER,
        server       TEXT NOT NULL,
        command      TEXT NOT NULL,
        host         TEXT,
        host_version TEXT,
        protocol     TEXT,
        messages     INTEGER NOT NULL DEFAULT 0,
        dropped      INTEGER NOT NULL DEFAULT 0
    );
    CREATE TABLE tap_messages (
        tap_id    INTEGER NOT NULL REFERENCES taps(id) ON DELETE CASCADE,
        seq       INTEGER NOT NULL,
        at_ms     INTEGER NOT NULL,
        direction TEXT NOT NULL,
        size      INTEGER NOT NULL,
        text      TEXT NOT NULL,
        cut       INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (tap_id, seq)
    );
    "#,
    // 6: a suite's prompt cases run (evals): each run's report, and the
    // hidden chats its model turns were (kind 'eval', not listed as chats).
    r#"
    ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'chat';
    CREATE TABLE eval_runs (
        id          INTEGER PRIMARY KEY,
        started_at  INTEGER NOT NULL,
        suite       TEXT NOT NULL,
        name        TEXT NOT NULL,
        report      TEXT NOT NULL,
        sessions    TEXT NOT NULL DEFAULT '[]'
    );
    CREATE INDEX eval_runs_suite ON eval_runs(suite, started_at DESC);
    "#,
    // A tapped session opened from a file (an export, someone's repro):
    // which file, so it is told apart from the one it was exported from.
    r#"
    ALTER TABLE taps ADD COLUMN imported_from TEXT;
    "#,
    // What happened to a call on the way (a wait for its server to restart,
    // the request sent again after the server died under it), as JSON.
    r#"
    ALTER TABLE calls ADD COLUMN notes TEXT NOT NULL DEFAULT '[]';
    "#,
    // A call's key, made by its caller before the call (so an answer names
    // its row without waiting for the write). Rows from before, and rows an
    // older build writes beside this one, get one from their id.
    r#"
    ALTER TABLE calls ADD COLUMN key TEXT;
    UPDATE calls SET key = 'row-' || id;
    CREATE UNIQUE INDEX calls_key ON calls(key);
    CREATE TRIGGER calls_keyed AFTER INSERT ON calls WHEN NEW.key IS NULL
    BEGIN
        UPDATE calls SET key = 'row-' || NEW.id WHERE id = NEW.id;
    END;
    "#,
    // What the calls take, kept as they change (by whichever process
    // writes, an older build's too): the history's size is one row to read,
    // where adding up every call's size read the whole table (the calls'
    // texts with it) — each batch once the history was at its cap. The
    // calls pruning may drop, oldest first, by an index that holds their
    // sizes (pruning reads it, never a call's text).
    r#"
    CREATE TABLE calls_kept (
        one   INTEGER PRIMARY KEY CHECK (one = 1),
        rows  INTEGER NOT NULL,
        bytes INTEGER NOT NULL
    );
    INSERT INTO calls_kept SELECT 1, COUNT(*), COALESCE(SUM(size), 0) FROM calls;
    CREATE TRIGGER calls_kept_added AFTER INSERT ON calls BEGIN
        UPDATE calls_kept SET rows = rows + 1, bytes = bytes + NEW.size;
    END;
    CREATE TRIGGER calls_kept_dropped AFTER DELETE ON calls BEGIN
        UPDATE calls_kept SET rows = rows - 1, bytes = bytes - OLD.size;
    END;
    CREATE TRIGGER calls_kept_resized AFTER UPDATE OF size ON calls BEGIN
        UPDATE calls_kept SET bytes = bytes - OLD.size + NEW.size;
    END;
    CREATE INDEX calls_prunable ON calls(id, size, saved, session_id)
        WHERE saved = 0 AND session_id IS NULL;
    "#,
    // What the tapped sessions' messages take, each session's and all of
    // them, kept as messages come and go: the sessions' size and the
    // oldest to drop are read from `taps`, never from the messages' texts.
    r#"
    ALTER TABLE taps ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
    UPDATE taps SET bytes = (SELECT COALESCE(SUM(length(CAST(text AS BLOB))), 0)
                             FROM tap_messages WHERE tap_id = taps.id);
    CREATE TABLE taps_kept (
        one   INTEGER PRIMARY KEY CHECK (one = 1),
        bytes INTEGER NOT NULL
    );
    INSERT INTO taps_kept
        SELECT 1, COALESCE(SUM(length(CAST(text AS BLOB))), 0) FROM tap_messages;
    CREATE TRIGGER tap_messages_added AFTER INSERT ON tap_messages BEGIN
        UPDATE taps SET bytes = bytes + length(CAST(NEW.text AS BLOB)) WHERE id = NEW.tap_id;
        UPDATE taps_kept SET bytes = bytes + length(CAST(NEW.text AS BLOB));
    END;
    CREATE TRIGGER tap_messages_dropped AFTER DELETE ON tap_messages BEGIN
        UPDATE taps SET bytes = bytes - length(CAST(OLD.text AS BLOB)) WHERE id = OLD.tap_id;
        UPDATE taps_kept SET bytes = bytes - length(CAST(OLD.text AS BLOB));
    END;
    CREATE TRIGGER tap_messages_rewritten AFTER UPDATE OF text ON tap_messages BEGIN
        UPDATE taps SET bytes = bytes - length(CAST(OLD.text AS BLOB))
            + length(CAST(NEW.text AS BLOB)) WHERE id = NEW.tap_id;
        UPDATE taps_kept SET bytes = bytes - length(CAST(OLD.text AS BLOB))
            + length(CAST(NEW.text AS BLOB));
    END;
    "#,
    // A message kept again (the same session and number) replaces its row,
    // and a replacing insert's delete fires no trigger: the row about to
    // be replaced is taken off first (every build keeps messages this way).
    r#"
    CREATE TRIGGER tap_messages_replacing BEFORE INSERT ON tap_messages
    WHEN EXISTS (SELECT 1 FROM tap_messages WHERE tap_id = NEW.tap_id AND seq = NEW.seq)
    BEGIN
        UPDATE taps SET bytes = bytes - (SELECT length(CAST(text AS BLOB)) FROM tap_messages
            WHERE tap_id = NEW.tap_id AND seq = NEW.seq) WHERE id = NEW.tap_id;
        UPDATE taps_kept SET bytes = bytes - (SELECT length(CAST(text AS BLOB))
            FROM tap_messages WHERE tap_id = NEW.tap_id AND seq = NEW.seq);
    END;
    "#,
    // The process making a call still running (a row kept as `pending`
    // once it ran a while, replaced when it ends): a row left `pending` by
    // a process that is gone was interrupted (found by the index).
    r#"
    ALTER TABLE calls ADD COLUMN pid INTEGER;
    CREATE INDEX calls_running ON calls(pid) WHERE status = 'pending' AND pid IS NOT NULL;
    "#,
    // When that process started: a number the system gave again to another
    // process is not taken for it (a row would otherwise run for ever).
    r#"
    ALTER TABLE calls ADD COLUMN pid_started INTEGER;
    "#,
];

/// Run the migrations this file has not had. Each in a transaction that
/// takes the write lock first and reads the version inside it: the app and
/// `mcpwb` opening an older store at once run each migration once (the
/// version read before the lock let both run it: "table already exists").
pub(crate) fn run(conn: &mut Connection) -> rusqlite::Result<()> {
    // Up to date (nearly always): no write lock taken.
    let done: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if done.max(0) as usize >= MIGRATIONS.len() {
        return Ok(());
    }
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
        let Some(sql) = MIGRATIONS.get(done.max(0) as usize) else {
            return Ok(());
        };
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", done.max(0) + 1)?;
        tx.commit()?;
    }
}

/// Run the first `n` migrations only: a store as an older build left it.
#[cfg(test)]
pub(crate) fn run_first(conn: &mut Connection, n: usize) -> rusqlite::Result<()> {
    for (i, sql) in MIGRATIONS.iter().enumerate().take(n) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        tx.commit()?;
    }
    Ok(())
}

/// How many migrations this build knows (the schema version it writes).
#[cfg(test)]
pub(crate) fn latest() -> i64 {
    MIGRATIONS.len() as i64
}
