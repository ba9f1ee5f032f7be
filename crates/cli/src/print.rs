//! Output for people (aligned text) and for scripts (`--json`).

use serde_json::{Value, json};
use workbench_core::CallOutcome;
use workbench_core::catalog::{QualifiedTool, ServerCatalog};
use workbench_core::connect::{ServerState, ServerStatus};
use workbench_core::traffic::TrafficLog;

use crate::Failure;

/// Print a line, cleaned of terminal control sequences (servers' text goes
/// through here; JSON output has its control characters escaped already);
/// a closed stdout (`mcpwb tools | head`) ends the program quietly.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let text = clean(&format!($($arg)*));
        if writeln!(std::io::stdout().lock(), "{text}").is_err() {
            std::process::exit(0);
        }
    }};
}

fn first_line(v: &Value) -> String {
    v.as_str()
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

fn state_text(name: &str, s: &ServerState) -> String {
    match s {
        ServerState::Ready => "ready".into(),
        ServerState::Disabled => "disabled".into(),
        ServerState::Untrusted => {
            let (read, trust) = trust_commands(name);
            format!(
                "not trusted yet: read what it runs with `{read}`, then trust it with `{trust}`"
            )
        }
        ServerState::Stopped => "stopped".into(),
        ServerState::Starting { slow } => {
            if *slow {
                "starting (slow)".into()
            } else {
                "starting".into()
            }
        }
        ServerState::Failed { reason, .. } => format!("failed: {reason}"),
        ServerState::Restarting { reason, .. } => format!("failed: {reason}"),
    }
}

pub fn servers(as_json: bool, statuses: &[ServerStatus], catalogs: &[(String, ServerCatalog)]) {
    let of = |name: &str| {
        catalogs
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    };
    if as_json {
        let list: Vec<Value> = statuses
            .iter()
            .map(|s| {
                let c = of(&s.name);
                json!({ "status": s, "tools": c.tools.len(), "resources": c.resources.len(), "prompts": c.prompts.len(), "skills": c.skills.len() })
            })
            .collect();
        out!("{}", json!({ "servers": list }));
        return;
    }
    for s in statuses {
        let c = of(&s.name);
        match &s.info {
            Some(i) => out!(
                "{}\t{}\t{} {}\tprotocol {}\t{} tools, {} resources, {} prompts{}",
                s.name,
                state_text(&s.name, &s.state),
                i.name,
                i.version,
                i.protocol_version,
                c.tools.len(),
                c.resources.len(),
                c.prompts.len(),
                if c.skills.is_empty() {
                    String::new()
                } else {
                    format!(", {} skills", c.skills.len())
                }
            ),
            None => out!("{}\t{}", s.name, state_text(&s.name, &s.state)),
        }
        if let ServerState::Failed { stderr, .. } | ServerState::Restarting { stderr, .. } =
            &s.state
        {
            for line in stderr_tail(stderr) {
                out!("    stderr│ {line}");
            }
        }
    }
}

/// For the log of a host running `mcpwb serve`: each server not ready once
/// the start has settled, why, and (failed) its stderr's end. A host shows
/// its servers' stderr; without this an untrusted or failing server's tools
/// were simply missing.
pub fn not_served(statuses: &[ServerStatus]) {
    for s in statuses {
        // Disabled by the person: not news.
        if matches!(s.state, ServerState::Ready | ServerState::Disabled) {
            continue;
        }
        eprintln!(
            "[mcpwb] {}: {}; its tools are not served until it is ready",
            clean(&s.name),
            clean(&state_text(&s.name, &s.state))
        );
        if let ServerState::Failed { stderr, .. } | ServerState::Restarting { stderr, .. } =
            &s.state
        {
            for line in stderr_tail(stderr) {
                eprintln!("[mcpwb]     stderr│ {}", clean(&line));
            }
        }
    }
}

/// A duration as a person reads it: "9.0 ms", "1.2 s", "2 min 05 s".
pub fn took_ms(ms: f64) -> String {
    if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else if ms < 60_000.0 {
        format!("{:.1} s", ms / 1000.0)
    } else {
        let s = (ms / 1000.0).round() as u64;
        format!("{} min {:02} s", s / 60, s % 60)
    }
}

/// `n` and its noun, as a person writes them: "1 error", "2 errors".
pub fn count<N: TryInto<u64> + Copy + std::fmt::Display>(n: N, one: &str) -> String {
    if n.try_into().ok() == Some(1) {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

/// The last lines a failed server wrote to stderr, as a person reads them
/// first (the core's rule: the last three that say something).
pub use workbench_core::status::stderr_tail;

/// The tools, and (on stderr, or under `cache` in JSON) what each server's
/// `tools/list` said of its freshness.
pub fn tools(
    as_json: bool,
    tools: &[QualifiedTool],
    one_server: bool,
    cache: &serde_json::Map<String, Value>,
) {
    if as_json {
        out!("{}", json!({ "tools": tools, "cache": cache }));
        return;
    }
    let now = workbench_core::cache::now_ms();
    for (server, hint) in cache {
        if let Ok(hint) = serde_json::from_value::<workbench_core::cache::CacheHint>(hint.clone())
            && hint.given()
        {
            eprintln!("{server}: tools/list {}", hint.describe(now));
        }
    }
    for t in tools {
        let name = if one_server {
            t.tool["name"].as_str().unwrap_or("").to_string()
        } else {
            t.qualified.clone()
        };
        out!("{name}\t{}", first_line(&t.tool["description"]));
    }
}

/// `mcpwb tools SERVER TOOL`: the one tool (its definition as served, with
/// `--json`), or (exit 2) the listed name nearest to it.
pub fn tool(
    as_json: bool,
    server: &str,
    name: &str,
    tools: &[QualifiedTool],
) -> Result<(), Failure> {
    let Some(found) = tools.iter().find(|t| t.tool["name"] == name) else {
        let names: Vec<String> = tools
            .iter()
            .filter_map(|t| t.tool["name"].as_str().map(str::to_string))
            .collect();
        return Err(Failure::Usage(crate::tool_args::no_such_tool(
            server, name, &names,
        )));
    };
    if as_json {
        out!("{}", found.tool);
    } else {
        for line in crate::tool_shown::lines(server, &found.tool) {
            out!("{line}");
        }
    }
    Ok(())
}

fn block(b: &Value) -> String {
    match b["type"].as_str().unwrap_or("") {
        "text" => b["text"].as_str().unwrap_or("").to_string(),
        "image" | "audio" => format!(
            "[{} {} {} bytes]",
            b["type"].as_str().unwrap_or(""),
            b["mimeType"].as_str().unwrap_or("?"),
            b["data"].as_str().map(|d| d.len() * 3 / 4).unwrap_or(0)
        ),
        "resource_link" => format!("[link {}]", b["uri"].as_str().unwrap_or("")),
        "resource" => format!(
            "[resource {}]\n{}",
            b["resource"]["uri"].as_str().unwrap_or(""),
            b["resource"]["text"].as_str().unwrap_or("(binary)")
        ),
        other => format!("[{other}]"),
    }
}

pub fn call(as_json: bool, out: &CallOutcome) -> Result<(), Failure> {
    let is_error = out.result["isError"].as_bool().unwrap_or(false);
    if as_json {
        out!(
            "{}",
            json!({ "result": out.result, "duration_ms": out.duration_ms })
        );
    } else {
        let blocks: Vec<String> = out.result["content"]
            .as_array()
            .map(|a| a.iter().map(block).collect())
            .unwrap_or_default();
        if !is_error {
            for b in &blocks {
                out!("{b}");
            }
            if let Some(s) = out
                .result
                .get("structuredContent")
                .filter(|_| blocks.is_empty())
            {
                out!("{}", serde_json::to_string_pretty(s).unwrap_or_default());
            }
        }
        if is_error {
            return Err(Failure::ToolError(blocks.join(" ")));
        }
    }
    if is_error {
        Err(Failure::ToolError(String::new()))
    } else {
        Ok(())
    }
}

pub fn resources(as_json: bool, lists: &[(String, ServerCatalog)]) {
    if as_json {
        let v: Vec<Value> = lists.iter().map(|(s, c)| json!({ "server": s, "resources": c.resources, "resourceTemplates": c.resource_templates })).collect();
        out!("{}", json!({ "servers": v }));
        return;
    }
    for (server, c) in lists {
        for r in &c.resources {
            out!(
                "{server}\t{}\t{}\t{}",
                r["uri"].as_str().unwrap_or(""),
                r["name"].as_str().unwrap_or(""),
                r["mimeType"].as_str().unwrap_or("")
            );
        }
        for t in &c.resource_templates {
            out!(
                "{server}\t{}\t{}\t(template)",
                t["uriTemplate"].as_str().unwrap_or(""),
                t["name"].as_str().unwrap_or("")
            );
        }
    }
}

pub fn read(as_json: bool, result: &Value) {
    if as_json {
        out!("{result}");
        return;
    }
    for c in result["contents"].as_array().into_iter().flatten() {
        match (c["text"].as_str(), c["blob"].as_str()) {
            (Some(t), _) => out!("{t}"),
            (None, Some(b)) => out!(
                "[blob {} {} bytes]",
                c["mimeType"].as_str().unwrap_or("?"),
                b.len() * 3 / 4
            ),
            _ => out!("[empty]"),
        }
    }
}

pub fn prompts(as_json: bool, lists: &[(String, ServerCatalog)]) {
    if as_json {
        let v: Vec<Value> = lists
            .iter()
            .map(|(s, c)| json!({ "server": s, "prompts": c.prompts }))
            .collect();
        out!("{}", json!({ "servers": v }));
        return;
    }
    for (server, c) in lists {
        for p in &c.prompts {
            let args: Vec<String> = p["arguments"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|a| {
                    format!(
                        "{}{}",
                        a["name"].as_str().unwrap_or(""),
                        if a["required"] == true { "" } else { "?" }
                    )
                })
                .collect();
            out!(
                "{server}\t{}({})\t{}",
                p["name"].as_str().unwrap_or(""),
                args.join(", "),
                first_line(&p["description"])
            );
        }
    }
}

pub fn prompt(as_json: bool, result: &Value) {
    if as_json {
        out!("{result}");
        return;
    }
    for m in result["messages"].as_array().into_iter().flatten() {
        out!(
            "{}: {}",
            m["role"].as_str().unwrap_or("?"),
            block(&m["content"])
        );
    }
}

pub fn traffic(as_json: bool, log: &TrafficLog, server: Option<&str>) {
    if as_json {
        let mut out = std::io::stdout().lock();
        let _ = log.export_jsonl(server, &mut out);
        return;
    }
    for e in log.entries(server) {
        let arrow = match e.direction {
            workbench_core::traffic::Direction::Outgoing => "->",
            workbench_core::traffic::Direction::Incoming => "<-",
            workbench_core::traffic::Direction::Stderr => "!!",
            workbench_core::traffic::Direction::Note => "[workbench]",
            workbench_core::traffic::Direction::FromApp => "[app] ->",
            workbench_core::traffic::Direction::ToApp => "[app] <-",
        };
        let latency = e
            .latency_ms
            .map(|l| format!(" {l:.1}ms"))
            .unwrap_or_default();
        let body: String = e.body.chars().take(160).collect();
        out!(
            "{} {arrow} {:?} {} id={} {}B{latency}  {body}",
            e.server,
            e.kind,
            e.method.as_deref().unwrap_or("-"),
            e.id.as_deref().unwrap_or("-"),
            e.size
        );
    }
}

pub fn line(text: &str) {
    out!("{text}");
}

static RAW: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// `--raw`: print servers' text as sent.
pub fn set_raw(raw: bool) {
    RAW.store(raw, std::sync::atomic::Ordering::Relaxed);
}

static MASK: std::sync::OnceLock<TrafficLog> = std::sync::OnceLock::new();

static NAMED: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// Remember how this run named its config (`--config FILE` not from
/// `$MCPWB_CONFIG`, `--project DIR`): a command suggested to the person
/// names the same files.
pub fn set_files_named(config: Option<&std::path::Path>, project: Option<&std::path::Path>) {
    let quote = |p: &std::path::Path| workbench_core::config::shell_quote(&p.display().to_string());
    let mut flags = String::new();
    if let Some(c) = config
        && std::env::var_os("MCPWB_CONFIG").as_deref() != Some(c.as_os_str())
    {
        flags.push_str(&format!(" --config {}", quote(c)));
    }
    if let Some(p) = project {
        flags.push_str(&format!(" --project {}", quote(p)));
    }
    let _ = NAMED.set(flags);
}

/// How to read what server `name` runs and then trust it, as the person
/// would type them on this run's files: `config trust NAME --dry-run`, then
/// `config trust NAME` (the name shell-quoted: it comes from someone's file).
pub fn trust_commands(name: &str) -> (String, String) {
    let name = workbench_core::config::shell_quote(name);
    (
        suggest(&format!("config trust {name} --dry-run")),
        suggest(&format!("config trust {name}")),
    )
}

/// `mcpwb SUBCOMMAND` as the person would run it next, on this run's files.
pub fn suggest(subcommand: &str) -> String {
    format!(
        "mcpwb{} {subcommand}",
        NAMED.get().map_or("", String::as_str)
    )
}

/// A message from the library said for this run: each command it suggests
/// (`` `mcpwb config trust NAME` ``, written in the app or the core, which do
/// not know how mcpwb was started) names this run's files as [`suggest`]
/// does, so that what is pasted acts on the file that was read. A command
/// already naming flags (`` `mcpwb --config …` ``) is left as it is.
pub fn on_this_run(message: &str) -> String {
    with_flags(message, NAMED.get().map_or("", String::as_str))
}

fn with_flags(message: &str, named: &str) -> String {
    if named.is_empty() {
        return message.to_string();
    }
    let mut out = String::with_capacity(message.len() + named.len());
    let mut rest = message;
    while let Some(at) = rest.find("`mcpwb ") {
        let (before, from) = rest.split_at(at + "`mcpwb".len());
        out.push_str(before);
        if !from[1..].starts_with('-') {
            out.push_str(named);
        }
        rest = from;
    }
    out.push_str(rest);
    out
}

/// Mask every started server's secrets in what is printed from now on (a
/// server may say its token back; `--raw` does not change that).
pub fn mask_with(traffic: &TrafficLog) {
    let _ = MASK.set(traffic.clone());
    workbench_core::logging::mask_with(traffic);
}

/// Server-provided text made safe for a terminal: the servers' secrets are
/// masked; escape sequences (CSI, OSC and the rest) and other control
/// characters are removed; newlines and tabs stay (unless `--raw`).
/// `--json` output is already safe from the latter (JSON escapes them).
pub fn clean(text: &str) -> String {
    let masked;
    let text = match MASK.get() {
        Some(m) => {
            masked = m.mask_all(text);
            masked.as_str()
        }
        None => text,
    };
    if RAW.load(std::sync::atomic::Ordering::Relaxed) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                // CSI: parameters, then one final byte in @..~.
                Some('[') => {
                    chars.next();
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC and string commands: up to BEL or ESC \.
                Some(']' | 'P' | 'X' | '^' | '_') => {
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                _ => {
                    chars.next();
                }
            },
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::with_flags;

    #[test]
    fn a_suggested_command_names_the_runs_files_once() {
        let said = "demo is not trusted: read it with `mcpwb config trust demo --dry-run`, then `mcpwb config trust demo`";
        assert_eq!(
            with_flags(said, " --config /t/a.json"),
            "demo is not trusted: read it with `mcpwb --config /t/a.json config trust demo --dry-run`, then `mcpwb --config /t/a.json config trust demo`"
        );
        // Already said for the run, or not a command: left as it is.
        let named = "run `mcpwb --config /t/a.json config trust demo` or mcpwb alone";
        assert_eq!(with_flags(named, " --config /t/a.json"), named);
        assert_eq!(with_flags(said, ""), said);
    }

    use super::{clean, stderr_tail, took_ms};

    #[test]
    fn durations_and_stderr_tails_read_at_a_glance() {
        assert_eq!(took_ms(9.04), "9.0 ms");
        assert_eq!(took_ms(10_039.0), "10.0 s");
        assert_eq!(took_ms(125_000.0), "2 min 05 s");
        let long = "x".repeat(250);
        let lines: Vec<String> = ["first", "", "second", "  ", &long, "last\r"]
            .iter()
            .map(|l| l.to_string())
            .collect();
        let tail = stderr_tail(&lines);
        assert_eq!(tail.len(), 3, "{tail:?}");
        assert_eq!(tail[0], "second");
        assert_eq!(tail[1], format!("{}…", "x".repeat(200)));
        assert_eq!(tail[2], "last");
    }

    #[test]
    fn escape_sequences_and_controls_are_removed() {
        assert_eq!(clean("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(clean("x\u{1b}]0;title\u{7}y"), "xy");
        assert_eq!(
            clean("x\u{1b}]8;;http://evil\u{1b}\\link\u{1b}]8;;\u{1b}\\y"),
            "xlinky"
        );
        assert_eq!(clean("line\nnext\ttab\r\u{8}"), "line\nnext\ttab");
        assert_eq!(clean("plain ünïcode"), "plain ünïcode");
    }
}
