//! The demo server's skills (SEP-2640): each folder holding a `SKILL.md`
//! under `crates/testkit/skills` (or `--skills DIR`) served by rmcp's skill
//! catalog: `skills/list`, `skills/get`, the files through `resources/read`
//! and `resources/directory/read`.

use std::path::PathBuf;

use rmcp::handler::server::skill_catalog::SkillCatalog;

/// The demo's own skills folder (in the source tree).
pub fn default_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/skills"))
}

/// The catalog of `dir` (the demo's own when None); None, said on stderr,
/// when it cannot be read.
pub fn catalog(dir: Option<PathBuf>) -> Option<SkillCatalog> {
    let dir = dir.unwrap_or_else(default_dir);
    if !dir.is_dir() {
        return None;
    }
    match SkillCatalog::from_dir(&dir) {
        Ok(c) => Some(c),
        Err(e) => {
            eprintln!(
                "demo server: the skills in {} are not served: {e}",
                dir.display()
            );
            None
        }
    }
}
