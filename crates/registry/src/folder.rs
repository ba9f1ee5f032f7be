//! A registry that is a folder: every `*.json` in it (and its folders) is
//! a `server.json`, a registry answer for one version (`{server, _meta}`)
//! or a list of them (`{servers: [...]}`), as a team keeps them in a
//! repository or mirrors the official registry. Links are not followed: a
//! file someone planted as a link to elsewhere is not read.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;
use workbench_codes::{ErrorCode, ErrorInfo};

use crate::{Listed, Page, Query, Status, invalid, newer, not_found};

pub struct Folder {
    /// Every version found, by server name.
    by_name: BTreeMap<String, Vec<Listed>>,
}

/// How deep folders are read.
const DEPTH: usize = 4;

impl Folder {
    pub fn read(dir: &Path) -> Result<Folder, ErrorInfo> {
        let meta = std::fs::symlink_metadata(dir).map_err(|e| {
            ErrorInfo::new(
                ErrorCode::NotFound,
                format!("the registry folder {} cannot be read: {e}", dir.display()),
            )
        })?;
        if !meta.is_dir() {
            return Err(invalid(format!(
                "the registry {} is not a folder (a link is not followed)",
                dir.display()
            )));
        }
        let mut found = Vec::new();
        walk(dir, DEPTH, &mut found);
        let mut by_name: BTreeMap<String, Vec<Listed>> = BTreeMap::new();
        for l in found {
            let versions = by_name.entry(l.name.clone()).or_default();
            if !versions.iter().any(|v| v.version == l.version) {
                versions.push(l);
            }
        }
        for versions in by_name.values_mut() {
            versions.sort_by(|a, b| {
                if newer(&a.version, &b.version) {
                    std::cmp::Ordering::Less
                } else if newer(&b.version, &a.version) {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            });
            // The latest: the one marked so, else the newest not deleted.
            if !versions.iter().any(|v| v.is_latest)
                && let Some(v) = versions.iter_mut().find(|v| v.status != Status::Deleted)
            {
                v.is_latest = true;
            }
        }
        Ok(Folder { by_name })
    }

    pub fn search(&self, query: &Query) -> Result<Page, ErrorInfo> {
        let needle = query
            .search
            .as_deref()
            .map(str::to_lowercase)
            .filter(|s| !s.is_empty());
        let matches = |l: &Listed| {
            needle.as_deref().is_none_or(|n| {
                l.name.to_lowercase().contains(n)
                    || l.description.to_lowercase().contains(n)
                    || l.title
                        .as_deref()
                        .is_some_and(|t| t.to_lowercase().contains(n))
            })
        };
        let mut all: Vec<(String, &Listed)> = self
            .by_name
            .values()
            .flatten()
            .filter(|l| query.all_versions || l.is_latest)
            .filter(|l| l.status != Status::Deleted)
            .filter(|l| matches(l))
            .map(|l| (format!("{}:{}", l.name, l.version), l))
            .collect();
        all.sort_by(|a, b| a.0.cmp(&b.0));
        let start = query
            .cursor
            .as_deref()
            .map(|c| all.partition_point(|(k, _)| k.as_str() <= c))
            .unwrap_or(0);
        let limit = query.limit.unwrap_or(30).max(1) as usize;
        let page: Vec<&(String, &Listed)> = all[start..].iter().take(limit).collect();
        let next_cursor = (start + page.len() < all.len())
            .then(|| page.last().map(|(k, _)| k.clone()))
            .flatten();
        Ok(Page {
            servers: page.into_iter().map(|(_, l)| (*l).clone()).collect(),
            next_cursor,
            hidden: 0,
            cached: None,
        })
    }

    pub fn versions(&self, name: &str) -> Result<Vec<Listed>, ErrorInfo> {
        let versions: Vec<Listed> = self
            .by_name
            .get(name)
            .into_iter()
            .flatten()
            .filter(|l| l.status != Status::Deleted)
            .cloned()
            .collect();
        if versions.is_empty() {
            return Err(not_found(name, None));
        }
        Ok(versions)
    }

    pub fn version(&self, name: &str, version: Option<&str>) -> Result<Listed, ErrorInfo> {
        let versions = self
            .by_name
            .get(name)
            .ok_or_else(|| not_found(name, None))?;
        let found = match version {
            None | Some("latest") => versions.iter().find(|l| l.is_latest),
            Some(v) => versions.iter().find(|l| l.version == v),
        }
        .ok_or_else(|| not_found(name, version))?;
        if found.status == Status::Deleted {
            return Err(ErrorInfo::new(
                ErrorCode::NotFound,
                format!("{name} {} was deleted from the registry", found.version),
            ));
        }
        Ok(found.clone())
    }
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<Listed>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth > 0 {
            walk(&path, depth - 1, found);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "json") {
            let Some(doc) = std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
            else {
                continue;
            };
            match doc.get("servers").and_then(Value::as_array) {
                Some(list) => found.extend(list.iter().filter_map(Listed::from_response)),
                None => found.extend(Listed::from_response(&doc)),
            }
        }
    }
}
