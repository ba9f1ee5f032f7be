//! The user guide (`docs/`): mdBook ([`crate::tools::MDBOOK`]), the book built with
//! the e2e run's screenshots, every relative link and picture checked.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::stages::{Result, sh};

/// Build the guide into `target/guide/book`, its pictures taken from the
/// e2e run's screenshots (`target/e2e`); a link to a page or heading that
/// is not there, or a picture no test took, fails the build.
pub fn build(root: &Path, mdbook: &Path, target: &Path) -> Result {
    let staged = target.join("guide");
    let _ = std::fs::remove_dir_all(&staged);
    copy_dir(&root.join("docs"), &staged)?;
    let src = staged.join("src");
    let shots = root.join("target/e2e");
    let images = src.join("images");
    std::fs::create_dir_all(&images).map_err(|e| e.to_string())?;
    let mut problems = Vec::new();
    for page in pages(&src) {
        let text = std::fs::read_to_string(&page).map_err(|e| e.to_string())?;
        let name = page
            .strip_prefix(&src)
            .unwrap_or(&page)
            .display()
            .to_string();
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            if let Some(picture) = link.strip_prefix("images/") {
                if std::fs::copy(shots.join(picture), images.join(picture)).is_err() {
                    problems.push(format!("{name}: no e2e screenshot {picture} in target/e2e"));
                }
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target_page = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap_or(&src).join(file)
            };
            let Ok(target_text) = std::fs::read_to_string(&target_page) else {
                problems.push(format!("{name}: a link to {link}: no such page"));
                continue;
            };
            if !anchor.is_empty() && !anchors(&target_text).iter().any(|a| a == anchor) {
                problems.push(format!("{name}: a link to {link}: no such heading"));
            }
        }
    }
    // The README points into the guide: those pages must be there.
    let readme = std::fs::read_to_string(root.join("README.md")).map_err(|e| e.to_string())?;
    for link in links(&readme) {
        let file = link.split('#').next().unwrap_or_default();
        if !(link.starts_with("http") || file.is_empty() || root.join(file).exists()) {
            problems.push(format!("README.md: a link to {link}: no such file"));
        }
    }
    if !problems.is_empty() {
        return Err(format!(
            "the user guide's links:\n  {}",
            problems.join("\n  ")
        ));
    }
    sh(Command::new(mdbook).arg("build").arg(&staged))?;
    println!(
        "the user guide: {}",
        staged.join("book/index.html").display()
    );
    Ok(())
}

fn copy_dir(from: &Path, to: &Path) -> Result {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let kind = entry.file_type().map_err(|e| e.to_string())?;
        let dest = to.join(entry.file_name());
        if kind.is_dir() {
            copy_dir(&entry.path(), &dest)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        }
    }
    Ok(())
}

fn pages(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(pages(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out
}

/// The targets of `[text](target)` and `![alt](target)` outside code.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            out.push(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// The anchors mdBook gives a page's headings.
fn anchors(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix('#'))
        .map(|h| {
            h.trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}
