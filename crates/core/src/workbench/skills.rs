//! A server's skills (SEP-2640) through a connection: listed by the catalog
//! (`skills/list`, nothing else read), one loaded when a person or a model
//! asks (`skills/get` for its current entry, its SKILL.md read and checked
//! against the entry), its other files read one by one on request, each
//! checked against the digest and size the entry promised.

use serde::Serialize;
use serde_json::{Value, json};

use super::Workbench;
use crate::skills::{self, Promised};
use std::time::Duration;

use crate::{CallOptions, Error, Result};

/// A skill loaded: its entry, its SKILL.md, its files (not read), and what
/// is wrong with what the server sent (its fault, each said once).
#[derive(Debug, Clone, Serialize)]
pub struct LoadedSkill {
    pub server: String,
    pub name: String,
    pub uri: String,
    pub description: String,
    /// The entry as the server gave it (`skills/get`, else its listing).
    pub entry: Value,
    /// SKILL.md's text (untrusted: shown as text or sanitised markdown).
    pub text: String,
    /// Every file the entry lists, SKILL.md included.
    pub files: Vec<Promised>,
    pub problems: Vec<String>,
}

/// One file of a skill, read and checked.
#[derive(Debug, Clone, Serialize)]
pub struct SkillFile {
    pub uri: String,
    pub path: String,
    pub size: usize,
    /// Its text, when it is UTF-8.
    pub text: Option<String>,
    pub mime_type: Option<String>,
    /// What is wrong with it against the entry (None: as promised).
    pub problem: Option<String>,
}

fn options(timeout: Option<Duration>) -> CallOptions {
    CallOptions {
        timeout,
        ..CallOptions::default()
    }
}

impl Workbench {
    /// `server`'s skills as its `skills/list` gave them.
    pub fn skills_of(&self, server: &str) -> Vec<Value> {
        self.catalog()
            .server(server)
            .map(|c| c.skills)
            .unwrap_or_default()
    }

    fn listed_skill(&self, server: &str, name: &str) -> Result<Value> {
        self.skills_of(server)
            .into_iter()
            .find(|s| skills::name_of(s) == name || s["uri"] == name)
            .ok_or_else(|| Error::UnknownSkill {
                server: server.to_string(),
                skill: name.to_string(),
            })
    }

    async fn read_bytes(
        &self,
        server: &str,
        uri: &str,
        timeout: Option<Duration>,
    ) -> Result<(Vec<u8>, Option<String>)> {
        let read = self
            .request(
                server,
                "resources/read",
                json!({ "uri": uri }),
                options(timeout),
            )
            .await?;
        let mime = read.result["contents"][0]["mimeType"]
            .as_str()
            .map(str::to_string);
        let bytes = skills::bytes_of(&read.result).ok_or_else(|| Error::ServerError {
            server: server.to_string(),
            method: "resources/read".into(),
            code: -32603,
            message: format!("resources/read of {uri} gave no text or blob"),
            data: None,
        })?;
        Ok((bytes, mime))
    }

    /// Load skill `name` of `server`: its entry, its SKILL.md checked.
    pub async fn load_skill(
        &self,
        server: &str,
        name: &str,
        timeout: Option<Duration>,
    ) -> Result<LoadedSkill> {
        let listed = self.listed_skill(server, name)?;
        let uri = listed["uri"].as_str().unwrap_or_default().to_string();
        let mut problems = Vec::new();
        // The entry now (it may have changed since the list).
        let entry = match self
            .request(
                server,
                "skills/get",
                json!({ "uri": uri }),
                options(timeout),
            )
            .await
        {
            Ok(got) if got.result["skill"].is_object() => got.result["skill"].clone(),
            Ok(_) => {
                problems.push("the server's fault: skills/get gave no skill object; the listing's entry is used".into());
                listed.clone()
            }
            Err(Error::ServerError { code: -32601, .. }) => {
                problems.push(
                    "the server's fault: it declares skills but does not answer skills/get".into(),
                );
                listed.clone()
            }
            Err(e) => return Err(e),
        };
        let files = skills::promised(&entry);
        let (bytes, _) = self.read_bytes(server, &uri, timeout).await?;
        match files.iter().find(|f| f.uri == uri) {
            Some(promise) => problems.extend(skills::check_file(promise, &bytes)),
            None if entry["resources"] == "dynamic" => {}
            None => {
                problems.push("the server's fault: the entry does not list its own SKILL.md".into())
            }
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        match skills::frontmatter(&text) {
            Ok(fm) => problems.extend(
                skills::frontmatter_differences(&fm, &entry["frontmatter"])
                    .into_iter()
                    .map(|d| format!("the server's fault: SKILL.md's frontmatter differs from skills/list: {d}")),
            ),
            Err(e) => problems.push(format!("the server's fault: {e}")),
        }
        Ok(LoadedSkill {
            server: server.to_string(),
            name: skills::name_of(&entry),
            description: entry["frontmatter"]["description"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            uri,
            entry,
            text,
            files,
            problems,
        })
    }

    /// One file of skill `name` (its path in the skill, or its URI), read
    /// and checked against the entry.
    pub async fn skill_file(
        &self,
        server: &str,
        name: &str,
        path: &str,
        timeout: Option<Duration>,
    ) -> Result<SkillFile> {
        let listed = self.listed_skill(server, name)?;
        let files = skills::promised(&listed);
        let promise = files
            .iter()
            .find(|f| f.path == path || f.uri == path)
            .cloned();
        let uri = match &promise {
            Some(p) => p.uri.clone(),
            None if listed["resources"] == "dynamic" => {
                format!(
                    "{}/{}",
                    skills::folder_of(&listed),
                    path.trim_start_matches('/')
                )
            }
            None => {
                return Err(Error::Refused(format!(
                    "{name} lists no file {path}: a skill's files are the ones its entry lists"
                )));
            }
        };
        let (bytes, mime_type) = self.read_bytes(server, &uri, timeout).await?;
        let problem = promise.as_ref().and_then(|p| skills::check_file(p, &bytes));
        Ok(SkillFile {
            path: promise.map_or_else(|| path.to_string(), |p| p.path),
            uri,
            size: bytes.len(),
            text: String::from_utf8(bytes).ok(),
            mime_type,
            problem,
        })
    }
}
