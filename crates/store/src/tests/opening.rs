//! Opening the store: the schema brought up to date once, the file kept
//! private, and two processes (the app and `mcpwb`) opening it at once.

use super::*;

#[test]
fn the_schema_version_is_recorded_and_migrations_run_once() {
    let dir = tempfile::tempdir().unwrap();
    Store::open_in(dir.path()).unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let version: i64 = store
        .lock()
        .pragma_query_value(None, "user_version", |r| r.get(0))
        .unwrap();
    assert_eq!(version, migrations::latest());
}

/// A store as the build before the kept sizes left it (WAL, as every
/// store is), and a connection to fill it.
pub(super) fn older_store(dir: &std::path::Path) -> (std::path::PathBuf, rusqlite::Connection) {
    let path = dir.join("old.sqlite3");
    let mut conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "journal_mode", "WAL").unwrap();
    crate::migrations::run_first(&mut conn, 9).unwrap();
    (path, conn)
}

/// `path` opened by two openers at the same moment (as the app and
/// `mcpwb serve` started together): what each then says of the History.
fn open_twice_at_once(path: &std::path::Path) -> Vec<Result<(i64, i64), crate::Error>> {
    let start = std::sync::Arc::new(std::sync::Barrier::new(2));
    let opened: Vec<_> = (0..2)
        .map(|_| {
            let (path, start) = (path.to_path_buf(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                Store::open(&path).map(|s| s.calls_size().unwrap())
            })
        })
        .collect();
    opened.into_iter().map(|o| o.join().unwrap()).collect()
}

#[test]
fn two_processes_opening_an_older_store_at_once_both_get_it_migrated_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = {
        let (path, mut conn) = older_store(dir.path());
        let tx = conn.transaction().unwrap();
        for i in 0..20_000 {
            tx.execute(
                "INSERT INTO calls (origin, server, tool, arguments, status, started_at, size)
                 VALUES ('window', 'demo', 'echo', '{}', 'ok', ?1, 10)",
                [i],
            )
            .unwrap();
        }
        tx.commit().unwrap();
        path
    };
    // The app and `mcpwb serve` started together after an update.
    for _ in 0..3 {
        let copy = dir.path().join("copy.sqlite3");
        std::fs::copy(&path, &copy).unwrap();
        for opened in open_twice_at_once(&copy) {
            assert_eq!(opened.unwrap(), (20_000, 200_000));
        }
        for f in ["copy.sqlite3", "copy.sqlite3-wal", "copy.sqlite3-shm"] {
            let _ = std::fs::remove_file(dir.path().join(f));
        }
    }
}

#[test]
fn two_processes_making_the_store_at_once_both_open_it() {
    for _ in 0..10 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.sqlite3");
        for opened in open_twice_at_once(&path) {
            assert_eq!(opened.unwrap(), (0, 0));
        }
        let journal: String = Store::open(&path)
            .unwrap()
            .lock()
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .unwrap();
        assert_eq!(journal, "wal");
    }
}

#[test]
fn the_database_is_private_and_an_old_install_readable_by_others_is_mended() {
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    let store = Store::open_in(&data).unwrap();
    drop(store);
    assert_eq!(mode(&data), 0o700);
    assert_eq!(mode(&data.join(FILE_NAME)), 0o600);
    // As an earlier version left it: 0755 folder, 0644 files.
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    for f in std::fs::read_dir(&data).unwrap() {
        let p = f.unwrap().path();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let store = Store::open_in(&data).unwrap();
    assert_eq!(mode(&data), 0o700);
    for f in std::fs::read_dir(&data).unwrap() {
        let p = f.unwrap().path();
        assert_eq!(mode(&p), 0o600, "{}", p.display());
    }
    drop(store);
}
