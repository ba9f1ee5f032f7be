//! The one file watcher: a server restarted when its files change — a
//! workbench entry's `"dev": {"watch": GLOB}` (VS Code's key) and `mcpwb tap
//! --watch GLOB` both stand on it, so a rule kept here holds for both:
//!
//! - rooted: only paths under the watch's folder count;
//! - no link is followed: the folders are walked without following links
//!   and watched one by one (never recursively by the OS, which would go
//!   through a link to `/usr`: 15,727 watches once);
//! - `node_modules`, `.git`, build output and the like are neither walked
//!   nor watched unless a pattern names them;
//! - capped: at most [`MAX_WATCHED_FOLDERS`] folders, said past it;
//! - a burst of saves is one change ([`SETTLE`]);
//! - what changes while the server starts (from the hand-over until
//!   [`GRACE`] after the caller says it is up, [`Watching::started`]) is
//!   looked at once the start is over: the same files changing at two
//!   starts in a row are the server's own writes — said once, and they
//!   restart it no more (until one of them changes outside a start, which
//!   is the person's save); anything else changed meanwhile restarts it
//!   again, so the last save always ends up running. A person's saves are
//!   never held back, however often they come;
//! - a file held open for writing by this process or one it started (a
//!   server's log or database, the workbench's own store) is not a
//!   person's save: its changes restart nothing, said once.
//!
//! The caller restarts its server on each [`Burst`] the watch hands over,
//! and says when it is up again.

#![forbid(unsafe_code)]

mod held;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;
use tokio_util::sync::{CancellationToken, DropGuard};

/// Saves closer together than this are one change.
pub const SETTLE: Duration = Duration::from_millis(250);

/// The most folders one watch takes (each is an inotify watch).
pub const MAX_WATCHED_FOLDERS: usize = 2_000;

/// How long after the server is up its writes still count as its start's.
pub const GRACE: Duration = Duration::from_millis(500);

/// The longest a start is waited for when the caller never says it is over.
pub const START_LIMIT: Duration = Duration::from_secs(10);

/// Folders no pattern reaches unless it names them.
const IGNORED: [&str; 9] = [
    "node_modules",
    ".git",
    "target",
    "dist",
    "build",
    "out",
    "__pycache__",
    ".venv",
    ".mypy_cache",
];

/// What is watched: files under `root` matching `patterns`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watch {
    pub root: PathBuf,
    pub patterns: Vec<String>,
}

/// Which changed paths count: matching a pattern, and not under an ignored
/// folder unless a pattern names that folder.
pub struct Matcher {
    set: GlobSet,
    named: Vec<&'static str>,
}

impl Matcher {
    /// Err: a pattern that is not a glob (which one, and why).
    pub(crate) fn new(patterns: &[String]) -> Result<Matcher, String> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            // As VS Code reads them: `*` stays within a folder, `**` crosses.
            b.add(
                GlobBuilder::new(p)
                    .literal_separator(true)
                    .build()
                    .map_err(|e| format!("{p}: {e}"))?,
            );
        }
        let named = IGNORED
            .into_iter()
            .filter(|dir| patterns.iter().any(|p| p.contains(dir)))
            .collect();
        Ok(Matcher {
            set: b.build().map_err(|e| e.to_string())?,
            named,
        })
    }

    /// `relative`: the path under the watched folder.
    pub fn matches(&self, relative: &Path) -> bool {
        !self.prunes(relative) && self.set.is_match(relative)
    }

    /// Whether `relative` lies in an ignored folder no pattern names (such
    /// a folder is neither walked nor watched).
    pub fn prunes(&self, relative: &Path) -> bool {
        relative.components().any(|c| {
            let part = c.as_os_str().to_string_lossy();
            IGNORED.contains(&part.as_ref()) && !self.named.contains(&part.as_ref())
        })
    }
}

/// The folders to watch under `root`: walked without following links,
/// ignored folders (unless a pattern names them) pruned, at most `room` of
/// them. The second value: whether some were left out.
pub fn folders_under(root: &Path, matcher: &Matcher, room: usize) -> (Vec<PathBuf>, bool) {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        if out.len() >= room {
            return (out, true);
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        out.push(dir.clone());
        let mut subs: Vec<PathBuf> = entries
            .filter_map(|e| e.ok())
            // `file_type` does not follow a link: a link is never walked.
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|p| p.strip_prefix(root).is_ok_and(|rel| !matcher.prunes(rel)))
            .collect();
        subs.sort();
        subs.reverse();
        todo.extend(subs);
    }
    (out, false)
}

/// One settled burst of changes: restart on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Burst {
    /// The files that changed (relative to the root, sorted, at most 20).
    pub files: Vec<String>,
}

/// What the watch says to the person (a note in the server's Events, the
/// tap's log): folders left out, a restart held back.
pub type Say = Arc<dyn Fn(&str) + Send + Sync>;

/// A watch running; dropping it stops it.
pub struct Watching {
    _stop: DropGuard,
    /// Folders watched when it started.
    pub folders: usize,
    up: mpsc::UnboundedSender<()>,
}

impl Watching {
    /// The start of the server restarted on the last burst is over (it
    /// answers, or it failed): what changes from now until [`GRACE`] later
    /// is still its start's doing.
    pub fn started(&self) {
        let _ = self.up.send(());
    }
}

/// What changed while the server started, and what that makes of it.
#[derive(Default)]
struct Starts {
    /// Files changed during the last start.
    last: std::collections::BTreeSet<PathBuf>,
    /// Files the server writes as it starts (changed at two starts in a row).
    own: std::collections::BTreeSet<PathBuf>,
}

impl Starts {
    /// A start is over, `changed` during it: the files that restart the
    /// server again (the rest are its own writes; newly seen ones are said).
    fn ended(&mut self, changed: Vec<PathBuf>, say: &Say) -> Vec<PathBuf> {
        let changed: std::collections::BTreeSet<PathBuf> = changed.into_iter().collect();
        let new_own: Vec<&PathBuf> = changed
            .intersection(&self.last)
            .filter(|f| !self.own.contains(*f))
            .collect();
        if !new_own.is_empty() {
            say(&format!(
                "{} changed as the server started, twice in a row: taken as its own writes, they restart it no more (a save of one outside a start does)",
                list(&new_own)
            ));
        }
        self.own.extend(new_own.into_iter().cloned());
        let again: Vec<PathBuf> = changed
            .iter()
            .filter(|f| !self.own.contains(*f))
            .cloned()
            .collect();
        self.last = changed;
        again
    }

    /// A settled burst outside a start: the files that restart the server.
    /// One of its own files changing here was the person's save: it counts
    /// again from now on.
    fn outside(&mut self, files: &[PathBuf]) {
        for f in files {
            self.own.remove(f);
        }
        self.last.clear();
    }
}

fn list(files: &[&PathBuf]) -> String {
    let mut names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    names.sort();
    names.truncate(5);
    names.join(", ")
}

/// Watch `watch`: each settled burst of matching changes is handed over
/// (one at a time: the next is looked at once the caller took this one).
/// Why a watch did not start: a pattern that is not a glob, a root that
/// cannot be read, the system's watcher refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchError(pub String);

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WatchError {}

/// Err: a pattern is not a glob, or the root cannot be read. Must be called
/// inside a tokio runtime.
pub fn start(watch: &Watch, say: Say) -> Result<(Watching, mpsc::Receiver<Burst>), WatchError> {
    let matcher = Arc::new(Matcher::new(&watch.patterns).map_err(WatchError)?);
    let root = watch
        .root
        .canonicalize()
        .unwrap_or_else(|_| watch.root.clone());
    let (mut watcher, changes, new_dirs) = os_watcher(&root, &matcher)?;
    let (folders, cut) = folders_under(&root, &matcher, MAX_WATCHED_FOLDERS);
    if folders.is_empty() {
        return Err(WatchError(format!(
            "{} cannot be read; nothing is watched",
            root.display()
        )));
    }
    let mut watched = 0usize;
    for f in &folders {
        if watcher.watch(f, RecursiveMode::NonRecursive).is_ok() {
            watched += 1;
        }
    }
    if cut {
        say(&format!(
            "more than {MAX_WATCHED_FOLDERS} folders under {}; only the first {MAX_WATCHED_FOLDERS} are watched (narrow the watch, or give the entry a cwd)",
            root.display()
        ));
    }
    let (bursts, out) = mpsc::channel(1);
    let (up, ups) = mpsc::unbounded_channel::<()>();
    let ct = CancellationToken::new();
    let running = Running {
        root,
        say,
        watcher,
        watched,
        changes,
        new_dirs,
        ups,
        stop: ct.clone(),
        starts: Starts::default(),
        said_held: Default::default(),
    };
    tokio::spawn(running.run(bursts));
    Ok((
        Watching {
            _stop: ct.drop_guard(),
            folders: watched,
            up,
        },
        out,
    ))
}

/// The system's watcher: the matching paths that change under `root`
/// (relative to it), and the folders made under it (to be watched too).
fn os_watcher(
    root: &Path,
    matcher: &Arc<Matcher>,
) -> Result<
    (
        notify::RecommendedWatcher,
        mpsc::UnboundedReceiver<PathBuf>,
        mpsc::UnboundedReceiver<PathBuf>,
    ),
    WatchError,
> {
    let (tx, changes) = mpsc::unbounded_channel::<PathBuf>();
    let (new_dirs_tx, new_dirs) = mpsc::unbounded_channel::<PathBuf>();
    let under = root.to_path_buf();
    let seen_by = matcher.clone();
    let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if matches!(event.kind, notify::EventKind::Access(_)) {
            return;
        }
        let created = matches!(event.kind, notify::EventKind::Create(_));
        for path in event.paths {
            let Ok(relative) = path.strip_prefix(&under) else {
                continue;
            };
            if created
                && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir())
                && !seen_by.prunes(relative)
            {
                let _ = new_dirs_tx.send(path.clone());
            }
            if seen_by.matches(relative) {
                let _ = tx.send(relative.to_path_buf());
            }
        }
    })
    .map_err(|e| WatchError(e.to_string()))?;
    Ok((watcher, changes, new_dirs))
}

/// A watch's task: it waits for a burst, hands it over, and watches the
/// start that follows.
struct Running {
    root: PathBuf,
    say: Say,
    watcher: notify::RecommendedWatcher,
    /// Folders watched (new ones are added up to the cap).
    watched: usize,
    changes: mpsc::UnboundedReceiver<PathBuf>,
    new_dirs: mpsc::UnboundedReceiver<PathBuf>,
    /// The caller's word that a start is over ([`Watching::started`]).
    ups: mpsc::UnboundedReceiver<()>,
    stop: CancellationToken,
    starts: Starts,
    /// Files already said to be held open by us.
    said_held: std::collections::BTreeSet<PathBuf>,
}

impl Running {
    async fn run(mut self, bursts: mpsc::Sender<Burst>) {
        // Changed during the last start and not the server's own: the next
        // burst begins with them.
        let mut carried: Vec<PathBuf> = Vec::new();
        loop {
            let files = if carried.is_empty() {
                let Some(files) = self.settled().await else {
                    return;
                };
                let files = self.not_held(files);
                if files.is_empty() {
                    continue;
                }
                self.starts.outside(&files);
                files
            } else {
                (self.say)(&format!(
                    "{} changed while the server started: restarting it again for them",
                    list(&carried.iter().collect::<Vec<_>>())
                ));
                std::mem::take(&mut carried)
            };
            let mut names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
            names.sort();
            names.dedup();
            names.truncate(20);
            tokio::select! {
                _ = self.stop.cancelled() => return,
                sent = bursts.send(Burst { files: names }) => if sent.is_err() { return },
            }
            let Some(during) = self.the_start().await else {
                return;
            };
            carried = self.starts.ended(during, &self.say);
        }
    }

    /// The next burst, once it settles (every save within [`SETTLE`] of the
    /// last one); new folders are watched meanwhile. None: the watch ends.
    async fn settled(&mut self) -> Option<Vec<PathBuf>> {
        let first = loop {
            tokio::select! {
                _ = self.stop.cancelled() => return None,
                d = self.new_dirs.recv() => {
                    let d = d?;
                    if self.watched < MAX_WATCHED_FOLDERS
                        && self.watcher.watch(&d, RecursiveMode::NonRecursive).is_ok()
                    {
                        self.watched += 1;
                    }
                }
                // A start the watch did not hand over (a restart by hand).
                _ = self.ups.recv() => {}
                p = self.changes.recv() => break p?,
            }
        };
        let mut files = vec![first];
        loop {
            match tokio::time::timeout(SETTLE, self.changes.recv()).await {
                Ok(Some(p)) => files.push(p),
                Ok(None) => return None,
                Err(_) => return Some(files),
            }
        }
    }

    /// What we (or a server we started) hold open to write is not a
    /// person's save: the files left, each held one said once.
    fn not_held(&mut self, mut files: Vec<PathBuf>) -> Vec<PathBuf> {
        let absolute: Vec<PathBuf> = files.iter().map(|f| self.root.join(f)).collect();
        let held = held::held_by_us(&absolute);
        if held.is_empty() {
            return files;
        }
        let newly: Vec<&PathBuf> = held
            .iter()
            .filter(|h| self.said_held.insert((*h).clone()))
            .collect();
        if !newly.is_empty() {
            (self.say)(&format!(
                "{} is held open for writing by the server (or the workbench): its changes restart nothing",
                list(&newly)
            ));
        }
        files.retain(|f| !held.contains(&self.root.join(f)));
        files
    }

    /// The start the burst set off: until [`GRACE`] after the caller says
    /// the server is up (or [`START_LIMIT`]); what changed meanwhile. None:
    /// the watch ends.
    async fn the_start(&mut self) -> Option<Vec<PathBuf>> {
        while self.ups.try_recv().is_ok() {}
        let mut during = Vec::new();
        let limit = tokio::time::sleep(START_LIMIT);
        tokio::pin!(limit);
        let mut grace: Option<std::pin::Pin<Box<tokio::time::Sleep>>> = None;
        loop {
            tokio::select! {
                _ = self.stop.cancelled() => return None,
                p = self.changes.recv() => during.push(p?),
                _ = self.ups.recv(), if grace.is_none() => {
                    grace = Some(Box::pin(tokio::time::sleep(GRACE)));
                }
                _ = async { match grace.as_mut() { Some(g) => g.await, None => std::future::pending().await } } => return Some(during),
                _ = &mut limit => return Some(during),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_and_ignored_folders() {
        let m = Matcher::new(&["src/**/*.ts".into(), "*.py".into()]).unwrap();
        assert!(m.matches(Path::new("src/a/b.ts")));
        assert!(m.matches(Path::new("server.py")));
        assert!(!m.matches(Path::new("src/a/b.js")));
        // `*` stays in its folder, as in VS Code.
        assert!(!m.matches(Path::new("lib/server.py")));
        let everywhere = Matcher::new(&["**/*.py".into()]).unwrap();
        assert!(everywhere.matches(Path::new("lib/server.py")));
        // An ignored folder is not watched unless named.
        assert!(!everywhere.matches(Path::new("node_modules/x/y.py")));
        assert!(!everywhere.matches(Path::new(".venv/lib/site.py")));
        let named = Matcher::new(&["node_modules/my-lib/**/*.js".into()]).unwrap();
        assert!(named.matches(Path::new("node_modules/my-lib/index.js")));
        assert!(Matcher::new(&["a[".into()]).is_err());
    }

    #[test]
    fn the_same_files_at_two_starts_in_a_row_are_the_servers_own_until_the_person_saves_one() {
        let said = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let into = said.clone();
        let say: Say = Arc::new(move |s: &str| into.lock().unwrap().push(s.to_string()));
        let p = |s: &str| PathBuf::from(s);
        let mut starts = Starts::default();
        // First start: a change then may be the person's: it restarts again.
        assert_eq!(starts.ended(vec![p("stamp.json")], &say), [p("stamp.json")]);
        // Second start, the same file: the server's own, said once.
        assert!(starts.ended(vec![p("stamp.json")], &say).is_empty());
        assert!(starts.ended(vec![p("stamp.json")], &say).is_empty());
        assert_eq!(said.lock().unwrap().len(), 1, "{said:?}");
        // Another file changed during a start still restarts it.
        assert_eq!(
            starts.ended(vec![p("stamp.json"), p("tools.json")], &say),
            [p("tools.json")]
        );
        // The person saves stamp.json outside a start: it counts again.
        starts.outside(&[p("stamp.json")]);
        assert_eq!(starts.ended(vec![p("stamp.json")], &say), [p("stamp.json")]);
    }

    #[test]
    fn a_link_out_of_the_root_is_never_walked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src/deep")).unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/pkg")).unwrap();
        std::os::unix::fs::symlink("/usr", dir.path().join("usrlink")).unwrap();
        let m = Matcher::new(&["**".into()]).unwrap();
        let (folders, cut) = folders_under(dir.path(), &m, MAX_WATCHED_FOLDERS);
        assert!(!cut);
        let names: Vec<String> = folders
            .iter()
            .map(|f| f.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(names, ["", "src", "src/deep"], "{names:?}");
    }
}
