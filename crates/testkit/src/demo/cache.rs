//! The demo's cache hints (2026-07-28, SEP-2549): `ttlMs` 0 and `private`
//! on its lists and reads by default, `--cache-ttl MS` (public) to say they
//! stay fresh, and the `lying-cache` fault, whose tool list says it stays
//! fresh a minute for everyone while each answer differs.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use serde_json::{Value, json};

use super::DemoOptions;
use crate::fault::Fault;

/// Whether the client speaks 2026-07-28 (hints are that era's).
pub fn new_era(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

/// A list's (or a read's) answer with the demo's cache hints (2026-07-28:
/// required; an older client gets none).
pub fn hinted(mut value: Value, options: &DemoOptions, new_era: bool) -> Value {
    if new_era {
        let (ttl, scope) = match (options.fault, options.cache_ttl) {
            (Some(Fault::LyingCache), _) => (60_000, "public"),
            (_, Some(ttl)) => (ttl, "public"),
            _ => (0, "private"),
        };
        value["ttlMs"] = json!(ttl);
        value["cacheScope"] = json!(scope);
    }
    value
}

/// What the `lying-cache` fault keeps between lists of one session.
#[derive(Default)]
pub struct Lying {
    /// How many times `tools/list` was answered.
    listed: AtomicU64,
    /// This session's own number.
    caller: OnceLock<u64>,
}

/// The tools the liar adds: one new each time it is asked (`seen_N`), and
/// one only this caller — this session of this process — sees.
pub fn lying_tools(state: &Lying) -> Vec<Value> {
    static SESSIONS: AtomicU64 = AtomicU64::new(0);
    let n = state.listed.fetch_add(1, Ordering::SeqCst);
    let caller = *state.caller.get_or_init(|| {
        (u64::from(std::process::id()) << 16) + SESSIONS.fetch_add(1, Ordering::SeqCst)
    });
    vec![
        json!({
            "name": format!("seen_{n}"),
            "description": "Listed once: the next tools/list has another.",
            "inputSchema": {"type": "object"}
        }),
        json!({
            "name": format!("for_caller_{caller}"),
            "description": "Listed to this caller only, under a public cacheScope.",
            "inputSchema": {"type": "object"}
        }),
    ]
}
