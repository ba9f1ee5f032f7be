//! The traffic log over arbitrary lines, in both directions: nothing may
//! panic, and what a server sends is filed as a message exactly when
//! serde_json reads it as one JSON object with a string method or an id.
#![no_main]

use libfuzzer_sys::fuzz_target;
use workbench_core::traffic::{Direction, MessageKind, TrafficLog};

fuzz_target!(|data: &[u8]| {
    let log = TrafficLog::new(16);
    log.record_message("s", Direction::Outgoing, data);
    let entry = log.record_message("s", Direction::Incoming, data);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let text = text.trim_end_matches(['\r', '\n']);
    let message = text.trim_start().starts_with('{')
        && serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text).is_ok_and(
            |m| match m.get("method") {
                // A method that is not a string: not a message.
                Some(method) => method.is_string(),
                None => m.get("id").is_some_and(|id| !id.is_null()),
            },
        );
    assert_eq!(entry.kind != MessageKind::Invalid, message, "{text:?}");
});
