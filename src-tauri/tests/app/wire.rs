//! What crosses to the window.

/// The window sends a dialect back as it received it (an import names
/// its file's dialect): each crosses as the id `mcpwb` takes.
#[test]
fn a_dialect_crosses_as_its_id() {
    for d in workbench_config::dialects::ALL {
        assert_eq!(
            serde_json::to_value(mcp_workbench_lib::wire::config::Dialect::from(d)).unwrap(),
            d.id(),
            "{d:?}"
        );
    }
}
