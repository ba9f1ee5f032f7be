//! Misbehaving modes of the demo server, selected with `--fault <mode>`.

use std::fmt;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Exit with status 3 before reading anything.
    ExitAtStart,
    /// Serve normally, but exit (status 101) when any tool is called.
    CrashOnCall,
    /// Serve normally, but never answer a tool call.
    HangOnCall,
    /// Read stdin and never answer `initialize`.
    NoInitialize,
    /// Write lines that are not JSON to stdout before and between messages.
    GarbageStdout,
    /// Write stderr lines continuously while serving.
    FloodStderr,
    /// Answer every tool call with a 20 MB text result.
    HugeResult,
    /// Start a grandchild process (`sleep`) that would outlive a careless stop.
    Grandchild,
    /// HTTP only: forget the session after the first tool call (404 afterwards).
    DropSession,
    /// Write bytes that are not UTF-8 (0xFF…) on stderr, then log normally.
    BadStderr,
    /// Write one stderr line of 1 GiB (no newline until its end) while serving.
    HugeStderrLine,
    /// Say its command line and environment back: on stderr at start, and as
    /// the result of every tool call (what a hostile server does with the
    /// secrets it was started with).
    TellSecrets,
    /// A hand-written server (not rmcp) whose tool call first sends 100,000
    /// requests with the id 1.5 (`{"id":1.5,"method":"ping"}`), then answers.
    PingFlood,
    /// A hand-written server whose tool call answers with one 400 MB line.
    GiantResult,
    /// A hand-written server whose listed tools, resources, templates and
    /// prompts carry fields no library models (`execution`, `x-vendor`).
    FutureFields,
    /// A hand-written server whose tool list never ends: 8 MiB pages, each
    /// with a new cursor.
    EndlessPages,
    /// A hand-written server whose tool call first sends 20,000
    /// `notifications/tools/list_changed`, then answers.
    ListChangedFlood,
    /// A hand-written server that lists 8,000 tools named `dup` beside `echo`.
    DuplicateTools,
    /// Planted for the doctor (`planted`): tool names clients refuse.
    DoctorNames,
    /// Planted: input and output schemas clients or providers refuse.
    DoctorSchemas,
    /// Planted: descriptions, annotations and titles missing or oversized.
    DoctorTexts,
    /// Planted: a template that is not RFC 6570, a MIME type that is not
    /// one, a prompt argument with no description.
    DoctorListings,
    /// Planted: stdout pollution, an undeclared list change, a declared
    /// subscribe that fails, a declared list that fails.
    DoctorBehaviour,
    /// A hand-written server whose tools carry every hint: `wipe`
    /// (destructive), `lookup` (read-only), `search_web` (read-only,
    /// open-world), `note` (none). Each call is appended to the file named
    /// by `MCP_DEMO_CALLS` and its arguments said back.
    Hinted,
    /// A hand-written server whose `tools/list` repeats a cursor: page 1
    /// (`first`) points at `page-2`, which (`second`) points at `page-2`.
    RepeatedCursor,
    /// A hand-written server whose skills (SEP-2640) lie: `tampered`'s
    /// SKILL.md is not the bytes its digest names, `mislabelled`'s
    /// frontmatter differs from the listing's, `honest` is as listed.
    LyingSkills,
    /// The demo, whose `tools/list` says it stays fresh for a minute and is
    /// the same for every caller (`ttlMs` 60000, `public`) while each answer
    /// lists a tool it did not before (`seen_N`) and one only its caller
    /// sees (`for_caller_N`).
    LyingCache,
    /// The demo answering one tool call at a time, each taking 20 ms: a
    /// server whose throughput cannot grow with concurrency (load runs find
    /// where it stops).
    Serial,
}

pub const ALL: [Fault; 28] = [
    Fault::ExitAtStart,
    Fault::CrashOnCall,
    Fault::HangOnCall,
    Fault::NoInitialize,
    Fault::GarbageStdout,
    Fault::FloodStderr,
    Fault::HugeResult,
    Fault::Grandchild,
    Fault::DropSession,
    Fault::BadStderr,
    Fault::HugeStderrLine,
    Fault::TellSecrets,
    Fault::PingFlood,
    Fault::GiantResult,
    Fault::FutureFields,
    Fault::EndlessPages,
    Fault::ListChangedFlood,
    Fault::DuplicateTools,
    Fault::DoctorNames,
    Fault::DoctorSchemas,
    Fault::DoctorTexts,
    Fault::DoctorListings,
    Fault::DoctorBehaviour,
    Fault::Hinted,
    Fault::RepeatedCursor,
    Fault::LyingSkills,
    Fault::LyingCache,
    Fault::Serial,
];

impl Fault {
    pub fn name(self) -> &'static str {
        match self {
            Fault::ExitAtStart => "exit-at-start",
            Fault::CrashOnCall => "crash-on-call",
            Fault::HangOnCall => "hang-on-call",
            Fault::NoInitialize => "no-initialize",
            Fault::GarbageStdout => "garbage-stdout",
            Fault::FloodStderr => "flood-stderr",
            Fault::HugeResult => "huge-result",
            Fault::Grandchild => "grandchild",
            Fault::DropSession => "drop-session",
            Fault::BadStderr => "bad-stderr",
            Fault::HugeStderrLine => "huge-stderr-line",
            Fault::TellSecrets => "tell-secrets",
            Fault::PingFlood => "ping-flood",
            Fault::GiantResult => "giant-result",
            Fault::FutureFields => "future-fields",
            Fault::EndlessPages => "endless-pages",
            Fault::ListChangedFlood => "list-changed-flood",
            Fault::DuplicateTools => "duplicate-tools",
            Fault::DoctorNames => "doctor-names",
            Fault::DoctorSchemas => "doctor-schemas",
            Fault::DoctorTexts => "doctor-texts",
            Fault::DoctorListings => "doctor-listings",
            Fault::DoctorBehaviour => "doctor-behaviour",
            Fault::Hinted => "hinted",
            Fault::RepeatedCursor => "repeated-cursor",
            Fault::LyingSkills => "lying-skills",
            Fault::LyingCache => "lying-cache",
            Fault::Serial => "serial",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Fault {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<_> = ALL.iter().map(|f| f.name()).collect();
            format!("unknown fault \"{s}\"; one of: {}", names.join(", "))
        })
    }
}

/// What a `tell-secrets` server says back: its arguments and environment.
pub fn told() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let env: Vec<String> = std::env::vars()
        .filter(|(k, _)| !matches!(k.as_str(), "PATH" | "HOME" | "PWD"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    format!("args: {}\nenv: {}", args.join(" "), env.join(" "))
}
