//! workbench-store: the workbench's one embedded database, a SQLite file in
//! the app's data folder that the window and `mcpwb` share (WAL mode, so one
//! can read while the other writes).
//!
//! What it keeps, one module each: chat [`sessions`] and their messages, and
//! the record of tool [`calls`] — every caller's (window, chat, bridge,
//! `mcpwb`, suites), told apart by `origin`: the call history; and the
//! connections hosts made through `mcpwb tap` ([`taps`]); the runs of
//! suites' prompt cases ([`evals`]).
//! Content is stored as the JSON its owner defines (the agent's message
//! parts); this crate knows tables, not chat semantics.
//!
//! Depends on nothing of ours: the agent, the CLI and the app open it.
#![forbid(unsafe_code)]

pub mod calls;
pub mod evals;
mod migrations;
pub mod sessions;
pub mod taps;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rusqlite::Connection;

pub use calls::{CallRow, CallStatus, CaseVerdict, HistoryQuery, NewCall, Process, Pruned};
pub use evals::EvalRunRow;
pub use sessions::{MessageRow, NewSession, SessionRow, Usage};
pub use taps::{TapMessage, TapRow};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("the workbench database {path}: {message}")]
    Open { path: PathBuf, message: String },
    #[error("the workbench database: {0}")]
    Sql(#[from] rusqlite::Error),
    #[error("no chat session \"{0}\"")]
    NoSession(String),
    #[error("the workbench database: {0}")]
    Json(#[from] serde_json::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The database. Cheap to clone; every method is a short synchronous
/// transaction (no lock is ever held across an `.await` by its callers,
/// since none of these methods is async).
#[derive(Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    path: Option<PathBuf>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// Milliseconds since the Unix epoch.
/// `ms` since the Unix epoch as a UTC date and time: (year, month, day,
/// seconds into the day). Howard Hinnant's civil-from-days.
pub fn civil(ms: i64) -> (i64, i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    let days = secs.div_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        yoe + era * 400 + i64::from(m <= 2),
        m,
        d,
        secs.rem_euclid(86_400),
    )
}

pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or_default()
}

/// The database holds every call's arguments and results and every chat:
/// its folder is made 0700 and the file (with SQLite's `-wal` and `-shm`,
/// which take the file's mode) 0600 — an install that made them readable by
/// others is mended here.
fn private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(path)?;
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let file = PathBuf::from(name);
        if std::fs::symlink_metadata(&file).is_ok_and(|m| m.is_file()) {
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(())
}

/// Turn the file to WAL (a no-op once it is). A new file may be opened by
/// two processes at once (the app and `mcpwb serve` started together): the
/// switch needs the file to itself, and SQLite answers "locked" to the one
/// that asks second without waiting (its busy handler is not called when
/// waiting could deadlock), so that one asks again.
fn to_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            done => return done,
        }
    }
}

impl Store {
    /// The database file in `data_dir` (created with its folder if missing).
    pub fn open_in(data_dir: &Path) -> Result<Store> {
        Store::open(&data_dir.join(FILE_NAME))
    }

    /// Open (or create) the database at `path` and bring its schema up to date.
    pub fn open(path: &Path) -> Result<Store> {
        let failed = |message: String| Error::Open {
            path: path.to_path_buf(),
            message,
        };
        private(path).map_err(|e| failed(e.to_string()))?;
        let conn = Connection::open(path).map_err(|e| failed(e.to_string()))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(|e| failed(e.to_string()))?;
        to_wal(&conn).map_err(|e| failed(e.to_string()))?;
        Store::init(conn, Some(path.to_path_buf())).map_err(|e| match e {
            Error::Sql(e) => failed(e.to_string()),
            other => other,
        })
    }

    /// A private database in memory (tests, and a CLI run that keeps nothing).
    pub fn in_memory() -> Result<Store> {
        Store::init(Connection::open_in_memory()?, None)
    }

    fn init(conn: Connection, path: Option<PathBuf>) -> Result<Store> {
        // The app and the CLI may write at once: wait for the other's
        // transaction instead of failing at once.
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let mut conn = conn;
        migrations::run(&mut conn)?;
        Ok(Store {
            conn: Arc::new(Mutex::new(conn)),
            path,
        })
    }

    /// Where the file is (None: in memory).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// What SQLite's own check finds wrong in the file (none: whole).
    pub fn check(&self) -> Result<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare("PRAGMA integrity_check")?;
        let found = stmt
            .query_map([], |r| r.get::<_, String>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(found.into_iter().filter(|f| f != "ok").collect())
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The database's file name inside the app's data folder.
pub const FILE_NAME: &str = "workbench.sqlite3";

#[cfg(test)]
mod tests;
