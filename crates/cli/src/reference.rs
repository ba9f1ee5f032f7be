//! The user guide's command reference (`docs/src/cli/`), written from
//! `mcpwb`'s own definitions: one page per command, its subcommands in it.
//! A test keeps the pages in step (`UPDATE_DOCS=1` writes them).

/// Each page of the reference: its file name and its text.
pub fn pages() -> Vec<(String, String)> {
    let mut root = crate::examples::command();
    root.build();
    let mut out = vec![("mcpwb.md".to_string(), page(&root, "mcpwb"))];
    for sub in root.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        let name = sub.get_name();
        out.push((format!("{name}.md"), page(sub, &format!("mcpwb {name}"))));
    }
    out
}

fn help(cmd: &clap::Command) -> String {
    let text = cmd.clone().render_long_help().to_string();
    // `[env: NAME=value]` shows the value set where it runs: not the page's.
    text.lines()
        .map(|l| match (l.find("[env: "), l.rfind(']')) {
            (Some(at), Some(end)) if end > at => {
                let inner = &l[at + 6..end];
                let name = inner.split('=').next().unwrap_or(inner);
                format!("{}[env: {name}]{}", &l[..at], &l[end + 1..])
            }
            _ => l.to_string(),
        })
        .map(|l| l.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn page(cmd: &clap::Command, full: &str) -> String {
    let mut out = format!("# `{full}`\n\n");
    if let Some(about) = cmd.get_about() {
        out.push_str(&format!("{about}\n\n"));
    }
    out.push_str(&format!("```text\n{}\n```\n", help(cmd).trim_end()));
    for sub in cmd.get_subcommands() {
        if sub.is_hide_set() || sub.get_name() == "help" {
            continue;
        }
        out.push_str(&format!(
            "\n## `{full} {}`\n\n```text\n{}\n```\n",
            sub.get_name(),
            help(sub).trim_end()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn the_guides_command_reference_is_mcpwbs_own() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/src/cli");
        let pages = super::pages();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::create_dir_all(&dir).unwrap();
            for (name, text) in &pages {
                std::fs::write(dir.join(name), text).unwrap();
            }
        }
        let mut stale = Vec::new();
        for (name, text) in &pages {
            let on_disk = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
            if &on_disk != text {
                stale.push(name.clone());
            }
        }
        assert!(
            stale.is_empty(),
            "docs/src/cli/ differs from mcpwb's definitions in {stale:?}: run the cli tests with UPDATE_DOCS=1"
        );
        // Every page is in the book's contents, and no page is left over.
        let summary = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/src/SUMMARY.md"),
        )
        .unwrap();
        for (name, _) in &pages {
            assert!(
                summary.contains(&format!("(cli/{name})")),
                "SUMMARY.md does not list cli/{name}"
            );
        }
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().to_string();
            assert!(
                pages.iter().any(|(n, _)| *n == name),
                "docs/src/cli/{name} is no command's page"
            );
        }
    }
}
