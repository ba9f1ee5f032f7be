//! Every mcp.json loader, dialect importer, the editor and the variable
//! expander over arbitrary bytes: none may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        workbench_config::fuzzing::exercise(text);
    }
});
