//! Cache hints that cannot be right (2026-07-28, SEP-2549): missing where
//! the protocol requires them, values out of range, a list that changes
//! while it says it is fresh (asked twice at once), and `public` on a list
//! another caller sees differently (the doctor's own second connection,
//! with `--eras`).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde_json::{Value, json};
use workbench_core::cache::CacheHint;
use workbench_core::catalog::method_of as method;
use workbench_core::{CallOptions, Workbench};

use crate::behaviour::EraAnswer;
use crate::finding::{Finding, Severity};

/// What the listing hints themselves say (no server needed).
pub fn check(protocol: &str, hints: &BTreeMap<String, CacheHint>) -> Vec<Finding> {
    let mut out = Vec::new();
    for (kind, hint) in hints {
        let m = method(kind);
        if protocol >= "2026-07-28" && hint.pages_without > 0 {
            out.push(
                Finding::new("cache.hints-missing", Severity::Warning, m)
                    .seen(format!(
                        "{} of {} pages carry no ttlMs or no cacheScope",
                        hint.pages_without, hint.pages
                    ))
                    .why("2026-07-28 servers MUST put ttlMs and cacheScope on every complete list answer; a client reads a missing ttlMs as 0 and asks again each time it needs the list")
                    .fix("say how long the list stays fresh and for whom: ttlMs (0 when it may change any time) and cacheScope (private unless every caller gets the same)"),
            );
        }
        for problem in &hint.problems {
            out.push(
                Finding::new("cache.hint-invalid", Severity::Error, m)
                    .seen(problem.clone())
                    .why("clients read an impossible hint as the safest one (stale, private), or refuse the answer")
                    .fix("ttlMs: a non-negative integer of milliseconds; cacheScope: \"public\" or \"private\""),
            );
        }
    }
    out
}

/// One page of `kind`'s list, asked now (its items and hints).
async fn page(wb: &Workbench, server: &str, kind: &str) -> Option<Value> {
    let options = CallOptions {
        timeout: Some(Duration::from_secs(20)),
        ..CallOptions::default()
    };
    wb.request(server, method(kind), json!({}), options)
        .await
        .ok()
        .map(|r| r.result)
}

/// Ask each list that says it stays fresh twice, one right after the
/// other: an answer that differs while "fresh" means clients that trust the
/// hint show a list the server has since changed. And a `public` tool list
/// another connection sees differently (`eras`: the doctor's own second
/// connections, same entry) cannot be shared between callers.
pub async fn asked(
    wb: &Workbench,
    server: &str,
    hints: &BTreeMap<String, CacheHint>,
    tools: &[Value],
    eras: &[EraAnswer],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (kind, hint) in hints {
        if hint.ttl_ms.unwrap_or(0) == 0 {
            continue;
        }
        let m = method(kind);
        let (Some(first), Some(second)) =
            (page(wb, server, kind).await, page(wb, server, kind).await)
        else {
            continue;
        };
        if first[kind.as_str()] != second[kind.as_str()] {
            out.push(
                Finding::new("cache.changed-while-fresh", Severity::Warning, m)
                    .seen(format!(
                        "it says the list stays fresh {} ms, and two answers asked one after the other differ",
                        hint.ttl_ms.unwrap_or(0)
                    ))
                    .why("a client that honours ttlMs keeps the first list for that long and never sees the change")
                    .fix("give a ttlMs no longer than the list really stays the same (0 when it may change any time), or send list_changed when it does"),
            );
        }
    }
    if hints.get("tools").and_then(|h| h.scope.as_deref()) == Some("public") {
        let mine: BTreeSet<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        for era in eras.iter().filter(|e| e.ready) {
            let theirs: BTreeSet<&str> = era.tools.iter().map(String::as_str).collect();
            if theirs != mine {
                let only_mine: Vec<&&str> = mine.difference(&theirs).take(5).collect();
                let only_theirs: Vec<&&str> = theirs.difference(&mine).take(5).collect();
                out.push(
                    Finding::new("cache.public-varies", Severity::Warning, "tools/list")
                        .seen(format!(
                            "it says cacheScope public, and another connection ({}) listed other tools: only here {only_mine:?}, only there {only_theirs:?}",
                            era.era
                        ))
                        .why("a public answer may be shared between callers (a gateway's cache): each would see the tools of whoever asked first")
                        .fix("say cacheScope private when the list depends on the caller (its sign-in, its session, its roots)"),
                );
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_hints_matter_only_in_the_new_era() {
        let mut hints = BTreeMap::new();
        hints.insert(
            "tools".to_string(),
            CacheHint::of(&json!({"tools": []}), 0.0),
        );
        assert!(check("2025-11-25", &hints).is_empty());
        let found = check("2026-07-28", &hints);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].code, "cache.hints-missing");
        hints.insert(
            "prompts".to_string(),
            CacheHint::of(&json!({"ttlMs": -1, "cacheScope": "private"}), 0.0),
        );
        let found = check("2026-07-28", &hints);
        assert!(
            found.iter().any(|f| f.code == "cache.hint-invalid"),
            "{found:?}"
        );
    }
}
