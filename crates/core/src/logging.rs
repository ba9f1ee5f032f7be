//! Logging set-up shared by the app and the CLI: `tracing` to stderr and,
//! when a folder is given, to a daily-rotating file in it.
//!
//! The level comes from `MCPWB_LOG` (an `EnvFilter` directive such as `debug`
//! or `workbench_core=trace`), defaulting to `info`.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::fmt::format::{DefaultFields, Writer};
use tracing_subscriber::fmt::{FormatFields, FormattedFields};
use tracing_subscriber::{EnvFilter, fmt, layer::SubscriberExt, util::SubscriberInitExt};

/// The file's field formatter: the default one under its own type, so the
/// file layer keeps its own formatted span fields instead of reusing the
/// stderr layer's (tracing-subscriber caches them per formatter type, and a
/// colourful stderr would leak its ANSI codes into the file).
#[derive(Default)]
struct PlainFields(DefaultFields);

impl<'writer> FormatFields<'writer> for PlainFields {
    fn format_fields<R: tracing_subscriber::field::RecordFields>(
        &self,
        writer: Writer<'writer>,
        fields: R,
    ) -> std::fmt::Result {
        self.0.format_fields(writer, fields)
    }

    fn add_fields(
        &self,
        current: &'writer mut FormattedFields<Self>,
        fields: &tracing::span::Record<'_>,
    ) -> std::fmt::Result {
        let mut inner = FormattedFields::<DefaultFields>::new(std::mem::take(&mut current.fields));
        let result = self.0.add_fields(&mut inner, fields);
        current.fields = inner.fields;
        result
    }
}

static MASKER: OnceLock<crate::traffic::TrafficLog> = OnceLock::new();

/// Mask every server's secrets (see [`crate::traffic::TrafficLog::mask_all`])
/// in the log lines written from now on. The first call wins.
pub fn mask_with(traffic: &crate::traffic::TrafficLog) {
    let _ = MASKER.set(traffic.clone());
}

/// `text` with every server's secrets masked, by the masker the log files
/// use (set by [`mask_with`]; the text as it is before): for what is
/// written out and tied to no one server (a trace's error text).
pub fn masked(text: &str) -> String {
    match MASKER.get() {
        Some(masker) => masker.mask_all(text),
        None => text.to_string(),
    }
}

/// A writer factory whose writers mask secrets (the fmt layers write one
/// whole event per call).
struct Masked<M>(M);

struct MaskedWriter<W>(W);

impl<'a, M: fmt::MakeWriter<'a>> fmt::MakeWriter<'a> for Masked<M> {
    type Writer = MaskedWriter<M::Writer>;
    fn make_writer(&'a self) -> Self::Writer {
        MaskedWriter(self.0.make_writer())
    }
}

impl<W: Write> Write for MaskedWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let Some(masker) = MASKER.get() else {
            return self.0.write(buf);
        };
        let masked = masker.mask_all(&String::from_utf8_lossy(buf));
        self.0.write_all(masked.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The environment variable that sets the log level.
pub const LOG_ENV: &str = "MCPWB_LOG";
/// File name prefix of the rotating log files.
pub const LOG_FILE_PREFIX: &str = "mcp-workbench.log";

/// Keeps the file writer alive; logs written before it drops are flushed.
pub struct LogGuard {
    _file: Option<WorkerGuard>,
    pub log_dir: Option<PathBuf>,
}

fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env(LOG_ENV).unwrap_or_else(|_| EnvFilter::new(default))
}

/// The log folder is the user's alone (0700) and so are the files already
/// in it (0600): server names, URLs and errors land there. A file the
/// appender creates later is behind the folder's mode.
fn private(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let _ = std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700));
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_file()) {
                let _ = std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(0o600));
            }
        }
    }
}

/// How many log lines wait for the log file's writer before new ones are
/// dropped (a burst the writer cannot keep up with loses lines, never
/// blocks the app).
const LOG_QUEUE_LINES: usize = 4096;

/// Install the global subscriber. Safe to call twice: the second call is a
/// no-op (returns a guard with no file).
pub fn init(log_dir: Option<&Path>, default_level: &str) -> LogGuard {
    // Colours only for a person at a terminal.
    let stderr_layer = fmt::layer()
        .with_writer(Masked(std::io::stderr))
        .with_target(true)
        .with_ansi(std::io::stderr().is_terminal());
    let mut guard = LogGuard {
        _file: None,
        log_dir: None,
    };
    let file_layer = log_dir.and_then(|dir| {
        std::fs::create_dir_all(dir).ok()?;
        private(dir);
        let appender = tracing_appender::rolling::Builder::new()
            .rotation(tracing_appender::rolling::Rotation::DAILY)
            .filename_prefix(LOG_FILE_PREFIX)
            .max_log_files(7)
            .build(dir)
            .ok()?;
        // The writer thread drains the lines as they come; a queue of
        // tracing-appender's default 128,000 held 4 MiB of the idle app's
        // heap from the start (its slots are made up front: heaptrack).
        let (writer, file_guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
            .buffered_lines_limit(LOG_QUEUE_LINES)
            .lossy(true)
            .finish(appender);
        guard._file = Some(file_guard);
        guard.log_dir = Some(dir.to_path_buf());
        Some(
            fmt::layer()
                .with_writer(Masked(writer))
                .with_ansi(false)
                .fmt_fields(PlainFields::default()),
        )
    });
    let _ = tracing_subscriber::registry()
        .with(filter(default_level))
        .with(stderr_layer)
        .with(file_layer)
        .try_init();
    guard
}
