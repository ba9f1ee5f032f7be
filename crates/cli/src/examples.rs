//! One worked example per command, shown at the end of its `--help` and on
//! its page of the guide's reference (`reference.rs`). Each was run as
//! written against the demo server and server-everything.

use clap::CommandFactory;

use crate::Cli;

/// Each command's examples: the lines a person types, a `#` line saying why.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "servers",
        "mcpwb servers\nmcpwb --config ./mcp.json --json servers",
    ),
    ("tools", "mcpwb tools\nmcpwb tools everything"),
    (
        "call",
        "mcpwb call demo add '{\"a\": 2, \"b\": 3}'\n# one argument at a time, typed by the tool's schema (42 stays text for a text field)\nmcpwb call demo echo -a message=42\nmcpwb call demo add -a a=2 -a b=3.5\n# the arguments from a file, or from stdin\nmcpwb call demo create_order --args @order.json\n# a tool that may run as a task: ask for one, and come back for it\nmcpwb call demo task_report --task --no-wait",
    ),
    ("app", "mcpwb app demo counter_app --html counter.html"),
    (
        "task",
        "mcpwb task list demo\nmcpwb task get demo TASK_ID\nmcpwb task result demo TASK_ID",
    ),
    ("resources", "mcpwb resources demo"),
    ("read", "mcpwb read demo demo://readme"),
    ("prompts", "mcpwb prompts demo"),
    ("skills", "mcpwb skills\nmcpwb skills demo"),
    (
        "skill",
        "mcpwb skill demo release-notes\nmcpwb skill demo pdf-processing --verify",
    ),
    (
        "prompt",
        "mcpwb prompt demo review_code --args '{\"language\": \"rust\", \"code\": \"fn main() {}\"}'",
    ),
    ("ping", "mcpwb ping demo"),
    ("traffic", "mcpwb traffic demo"),
    (
        "bundle",
        "mcpb pack ./my-server my-server.mcpb\nmcpwb bundle show my-server.mcpb\nmcpwb bundle install my-server.mcpb --set workspace=$HOME/notes --set api_key=sk-test\nmcpwb bundle remove my-server",
    ),
    (
        "publish",
        "mcpwb publish check\n# start each package and the bundle's command as each host would\nmcpwb publish check ./my-server --run --input my-server-api-key=sk-test",
    ),
    (
        "registry",
        "mcpwb registry search github\nmcpwb registry show io.github.github/github-mcp-server\n# pinned, its values asked for; then see its tools\nmcpwb registry add io.github.github/github-mcp-server --remote 1\n# your organisation's registry, or a folder of server.json files\nmcpwb registry --registry file:./servers search",
    ),
    (
        "history",
        "mcpwb history --origin chat --limit 20\nmcpwb history show 42",
    ),
    (
        "test",
        "mcpwb test\nmcpwb test .mcp-workbench/suites/demo.json --case adds --junit report.xml\n# the prompt cases too (real model turns)\nmcpwb test --evals",
    ),
    (
        "chat",
        "mcpwb chat --provider openai --model gpt-5-mini \"What can the demo server do?\"\nmcpwb chat --session notes",
    ),
    (
        "serve",
        "# what a client's config runs: every server's tools as one\nmcpwb serve\nmcpwb serve --http 0 --tools 'github__*'\n# for a coding agent writing your server\nmcpwb serve --workbench",
    ),
    (
        "load",
        "mcpwb load demo echo --args '{\"message\": \"hi\"}' -c 8 -d 30s --out run.json\n# in CI: fail when p99 is 10% worse than the kept run\nmcpwb load demo echo -c 8 -d 30s --baseline run.json --max-regression 10",
    ),
    (
        "agent-help",
        "mcpwb agent-help > .claude/skills/mcp-workbench-loop/SKILL.md",
    ),
    ("auth", "mcpwb auth login docs\nmcpwb auth status docs"),
    (
        "doctor",
        "mcpwb doctor\nmcpwb doctor demo --eras --probe --fail-on warning",
    ),
    ("snapshot", "mcpwb snapshot demo -o surface.json"),
    (
        "diff",
        "# the surface kept against the server as it runs now\nmcpwb diff surface.json demo --fail-on breaking",
    ),
    (
        "dev",
        "mcpwb dev demo --call echo --args '{\"message\": \"hi\"}'",
    ),
    (
        "tap",
        "# in the host's config, instead of the server's command\nmcpwb tap -- npx -y @modelcontextprotocol/server-everything\nmcpwb tap --server demo\n# an HTTP server: the host is given the tap's URL instead\nmcpwb tap --to https://example.com/mcp",
    ),
    (
        "session",
        "mcpwb session list\nmcpwb session export 3 --har -o session.har\nmcpwb session to-suite 3 --server demo",
    ),
    ("mock", "mcpwb mock 3\nmcpwb mock session.jsonl --http"),
    (
        "config",
        "mcpwb config add demo -- mcp-demo-server\nmcpwb config add fs -- npx -y @modelcontextprotocol/server-filesystem ~/notes\nmcpwb config add docs --url https://example.com/mcp --secret-header 'Authorization=Bearer …'\nmcpwb config validate\nmcpwb config import ~/.cursor/mcp.json",
    ),
];

/// `mcpwb`'s command line with each command's examples.
pub fn command() -> clap::Command {
    let mut root = Cli::command();
    for (name, text) in EXAMPLES {
        let shown: String = text.lines().map(|l| format!("  {l}\n")).collect();
        root = root.mut_subcommand(*name, |c| {
            c.after_long_help(format!("Examples:\n{}", shown.trim_end()))
        });
    }
    root
}

#[cfg(test)]
mod tests {
    /// What a person reads in `--help` and the guide: every command shows
    /// an example, every argument says what it is.
    #[test]
    fn every_command_has_an_example_and_every_argument_its_help() {
        let mut root = super::command();
        root.build();
        let mut missing = Vec::new();
        let mut undocumented = Vec::new();
        for sub in root.get_subcommands() {
            if sub.is_hide_set() || sub.get_name() == "help" {
                continue;
            }
            if sub.get_after_long_help().is_none() {
                missing.push(sub.get_name().to_string());
            }
            let mut stack = vec![(sub.get_name().to_string(), sub)];
            while let Some((path, cmd)) = stack.pop() {
                for arg in cmd.get_arguments() {
                    let builtin = matches!(arg.get_id().as_str(), "help" | "version");
                    if !builtin
                        && !arg.is_global_set()
                        && arg.get_help().is_none()
                        && arg.get_long_help().is_none()
                    {
                        undocumented.push(format!("mcpwb {path} {}", arg.get_id()));
                    }
                }
                for s in cmd.get_subcommands() {
                    if s.get_name() != "help" {
                        stack.push((format!("{path} {}", s.get_name()), s));
                    }
                }
            }
        }
        for (name, _) in super::EXAMPLES {
            assert!(
                root.find_subcommand(name).is_some(),
                "an example for `{name}`, which is no command"
            );
        }
        assert!(
            missing.is_empty(),
            "commands without an example: {missing:?}"
        );
        assert!(
            undocumented.is_empty(),
            "arguments without a doc comment ({}):\n  {}",
            undocumented.len(),
            undocumented.join("\n  ")
        );
    }
}
