//! What an MCP method may do, as far as sending it again goes: the one list
//! the workbench's call path and the tap's kept session both ask.

/// Methods that only read: one in flight when its server died is sent
/// again once on the new connection, as it cannot act twice.
const READS: &[&str] = &[
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "prompts/list",
    "prompts/get",
    "tools/list",
    "completion/complete",
    "ping",
    "server/discover",
];

/// Whether `method` only reads (sending it again cannot act twice).
pub fn only_reads(method: &str) -> bool {
    READS.contains(&method)
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_are_harmless_and_a_tool_call_is_not() {
        assert!(super::only_reads("resources/read"));
        assert!(super::only_reads("server/discover"));
        assert!(!super::only_reads("tools/call"));
    }
}
