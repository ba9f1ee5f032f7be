//! `mcpwb skills [SERVER]` and `mcpwb skill SERVER NAME [--file PATH]
//! [--verify]`: a server's skills (SEP-2640) as listed, one loaded (its
//! SKILL.md, checked against the listing), a file of it, or every file read
//! and checked. Nothing of a skill is read before it is asked for.

use std::time::Duration;

use serde_json::{Value, json};
use workbench_app::Workbench;
use workbench_app::offers;
use workbench_app::offers::{name_of, promised};

use crate::print::{clean, line};
use crate::{Cli, Failure};

/// The skills of `names`, printed.
pub fn list(cli: &Cli, wb: &Workbench, names: &[String]) {
    let all = offers::skills_of(wb, names);
    if cli.json {
        let out: Vec<Value> = all
            .iter()
            .map(|(s, skills)| json!({ "server": s, "skills": skills }))
            .collect();
        line(&Value::Array(out).to_string());
        return;
    }
    let mut any = false;
    for (server, skills) in &all {
        for skill in skills {
            any = true;
            let files = promised(skill);
            let size: u64 = files.iter().filter_map(|f| f.size).sum();
            let files = if skill["resources"] == "dynamic" {
                "dynamic files".to_string()
            } else {
                format!("{} file(s), {size} B", files.len())
            };
            line(&format!(
                "{server}\t{}\t{}\t{}",
                clean(&name_of(skill)),
                files,
                clean(
                    skill["frontmatter"]["description"]
                        .as_str()
                        .unwrap_or_default()
                )
            ));
        }
    }
    if !any {
        line(
            "no skills: no server here declares io.modelcontextprotocol/skills, or they serve none",
        );
    }
}

/// `mcpwb skill SERVER NAME`: loaded and printed; `--file` one file;
/// `--verify` every file read and checked (exit 1 when one is not as listed).
pub async fn show(
    cli: &Cli,
    wb: &Workbench,
    server: &str,
    name: &str,
    file: Option<&str>,
    verify: bool,
) -> Result<(), Failure> {
    let timeout = Some(Duration::from_secs_f64(cli.timeout.max(0.1)));
    if let Some(path) = file {
        return show_file(cli, wb, (server, name, path), timeout).await;
    }
    let (skill, problems, checked) = if verify {
        let v = offers::verify_skill(wb, server, name, timeout).await?;
        (v.skill, v.problems, v.checked)
    } else {
        let skill = offers::load_skill(wb, server, name, timeout).await?;
        let problems = skill.problems.clone();
        (skill, problems, Vec::new())
    };
    // A SKILL.md that is not what the server listed is not used: its files
    // are not read, its text not shown.
    let rejected = !skill.problems.is_empty();
    let checked: Vec<Value> = checked
        .into_iter()
        .map(|(path, ok)| json!({ "path": path, "ok": ok }))
        .collect();
    if cli.json {
        let mut v = serde_json::to_value(&skill).unwrap_or_default();
        v["problems"] = json!(problems);
        if rejected {
            v["text"] = Value::Null;
        }
        if verify {
            v["verified"] = json!(checked);
        }
        line(&v.to_string());
    } else {
        print_skill(server, &skill, &problems, &checked);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::Exit(1))
    }
}

/// `--file`: one file of the skill. A server's text never reaches the
/// terminal raw (escape sequences set the clipboard, the title, hide
/// text), and a file whose check failed is not shown at all.
async fn show_file(
    cli: &Cli,
    wb: &Workbench,
    (server, name, path): (&str, &str, &str),
    timeout: Option<Duration>,
) -> Result<(), Failure> {
    let f = offers::skill_file(wb, server, name, path, timeout).await?;
    if cli.json {
        line(&serde_json::to_string(&f).unwrap_or_default());
    } else {
        match (&f.problem, &f.text) {
            (Some(p), _) => {
                eprintln!("mcpwb: {}", clean(p));
                eprintln!("mcpwb: the file is not shown: it is not what the server listed");
            }
            (None, Some(t)) => print!("{}", clean(t)),
            (None, None) => line(&format!("({} bytes, not text)", f.size)),
        }
    }
    if f.problem.is_some() {
        Err(Failure::Exit(1))
    } else {
        Ok(())
    }
}

/// The skill for a person: its name, files (each checked one marked),
/// problems, and its text unless it was rejected.
fn print_skill(server: &str, skill: &offers::LoadedSkill, problems: &[String], checked: &[Value]) {
    let rejected = !skill.problems.is_empty();
    line(&format!(
        "{} ({server}): {}",
        clean(&skill.name),
        clean(&skill.description)
    ));
    line(&format!("  {}", clean(&skill.uri)));
    for f in &skill.files {
        let ok = checked
            .iter()
            .find(|c| c["path"] == f.path)
            .map(|c| {
                if c["ok"] == true {
                    "  ✓ as listed"
                } else {
                    "  ✗ not as listed"
                }
            })
            .unwrap_or("");
        line(&format!(
            "  {:<40} {:>8} B{ok}",
            clean(&f.path),
            f.size.map_or("?".into(), |s| s.to_string())
        ));
    }
    for p in problems {
        line(&format!("  ! {}", clean(p)));
    }
    line("");
    if rejected {
        line(
            "(SKILL.md is not shown and its files are not read: it is not what the server listed)",
        );
    } else {
        // Server text: escape sequences removed (`--raw` keeps them).
        print!("{}", clean(&skill.text));
    }
}
