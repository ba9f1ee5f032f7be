use super::*;

#[test]
fn pairs_responses_with_requests_and_keeps_unknown_fields() {
    let log = TrafficLog::new(100);
    log.record_message(
        "a",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#,
    );
    let resp = log.record_message(
        "a",
        Direction::Incoming,
        b"{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{},\"x-vendor\":1}\n",
    );
    assert_eq!(resp.kind, MessageKind::Response);
    assert_eq!(resp.method.as_deref(), Some("tools/call"));
    assert!(resp.latency_ms.is_some());
    assert!(resp.body.contains("x-vendor"), "the bytes are kept as sent");
    // A server-to-client request is paired with the client's answer.
    log.record_message(
        "a",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#,
    );
    let answer = log.record_message(
        "a",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}"#,
    );
    assert_eq!(answer.method.as_deref(), Some("roots/list"));
    let err = log.record_message(
        "a",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":99,"error":{"code":-1,"message":"x"}}"#,
    );
    assert_eq!(err.kind, MessageKind::Error);
    assert_eq!(err.latency_ms, None, "no request with that id was seen");
}

#[test]
fn a_string_id_and_a_number_id_are_different_requests() {
    let log = TrafficLog::new(100);
    log.record_message(
        "a",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":"5","method":"ping"}"#,
    );
    let wrong = log.record_message(
        "a",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":5,"result":{}}"#,
    );
    assert_eq!(wrong.latency_ms, None, "5 is not \"5\"");
    let right = log.record_message(
        "a",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":"5","result":{}}"#,
    );
    assert_eq!(right.method.as_deref(), Some("ping"));
    // Paired once: a second answer to the same id is not.
    let again = log.record_message(
        "a",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":"5","result":{}}"#,
    );
    assert_eq!(again.latency_ms, None);
}

#[test]
fn classifies_garbage_and_notifications() {
    let log = TrafficLog::new(10);
    assert_eq!(
        log.record_message("a", Direction::Incoming, b"Starting server...")
            .kind,
        MessageKind::Invalid
    );
    assert_eq!(
        log.record_message(
            "a",
            Direction::Incoming,
            br#"{"jsonrpc":"2.0","method":"notifications/progress"}"#
        )
        .kind,
        MessageKind::Notification
    );
}

#[test]
fn every_kind_is_told_apart_without_reading_the_whole_value() {
    let log = TrafficLog::new(20);
    let kind = |raw: &str| {
        log.record_message("a", Direction::Incoming, raw.as_bytes())
            .kind
    };
    assert_eq!(
        kind(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{}}"#),
        MessageKind::Request
    );
    assert_eq!(
        kind(r#"{"jsonrpc":"2.0","id":"x","result":{"content":[{"type":"text","text":"}"}]}}"#),
        MessageKind::Response
    );
    assert_eq!(
        kind(r#"{"jsonrpc":"2.0","id":7,"error":{"code":-1,"message":"m"}}"#),
        MessageKind::Error
    );
    assert_eq!(
        kind(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse"}}"#),
        MessageKind::Invalid
    );
    // A batch, or an array that looks like a struct to serde, is not one message.
    assert_eq!(kind(r#"["tools/call", 1]"#), MessageKind::Invalid);
    assert_eq!(
        kind(r#"[{"jsonrpc":"2.0","method":"n"}]"#),
        MessageKind::Invalid
    );
    assert_eq!(
        kind("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":"),
        MessageKind::Invalid
    );
    let req = log.record_message(
        "b",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":"a\"b","method":"ping"}"#,
    );
    assert_eq!(req.id.as_deref(), Some(r#""a\"b""#));
    let resp = log.record_message(
        "b",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":"a\"b","result":{}}"#,
    );
    assert_eq!(
        resp.method.as_deref(),
        Some("ping"),
        "paired by the id's exact text"
    );
    assert!(resp.latency_ms.is_some());
}

#[test]
fn ring_is_bounded_per_server_and_order_is_global() {
    let log = TrafficLog::new(3);
    for i in 0..5 {
        log.record_stderr("a", &format!("a{i}"));
        log.record_stderr("b", &format!("b{i}"));
    }
    let a: Vec<_> = log
        .entries(Some("a"))
        .iter()
        .map(|e| e.body.clone())
        .collect();
    assert_eq!(a, ["a2", "a3", "a4"]);
    let all: Vec<_> = log.entries(None).iter().map(|e| e.body.clone()).collect();
    assert_eq!(all, ["a2", "b2", "a3", "b3", "a4", "b4"]);
    assert_eq!(log.last_stderr("b", 2), ["b3", "b4"]);
}

#[test]
fn secrets_are_masked_in_bodies_and_exports() {
    let log = TrafficLog::new(10);
    log.set_secrets("a", vec!["sk-live-123456".into()]);
    log.record_message(
        "a",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"key":"sk-live-123456"}}"#,
    );
    log.record_stderr("a", "using key sk-live-123456");
    let mut out = Vec::new();
    assert_eq!(log.export_jsonl(None, &mut out).unwrap(), 2);
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("sk-live-123456"));
    assert_eq!(text.lines().count(), 2);
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["server"], "a");
    }
}

#[test]
fn the_token_inside_a_header_and_its_json_escaped_copy_are_masked_too() {
    let log = TrafficLog::new(10);
    log.set_secrets("a", vec!["Bearer tok\"en-4567".into()]);
    // A server echoing the bare token, inside JSON (escaped) and on stderr.
    log.record_message(
        "a",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":1,"result":{"seen":"tok\"en-4567"}}"#,
    );
    log.record_stderr("a", "auth header was Bearer tok\"en-4567");
    for e in log.entries(Some("a")) {
        assert!(!e.body.contains("en-4567"), "{}", e.body);
    }
}

#[test]
fn big_bodies_are_truncated_but_sized_exactly() {
    let log = TrafficLog::new(10);
    let big = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"t\":\"{}\"}}}}",
        "é".repeat(DEFAULT_MAX_BODY)
    );
    let e = log.record_message("a", Direction::Incoming, big.as_bytes());
    assert!(e.truncated);
    assert_eq!(e.size as usize, big.len());
    assert!(e.body.len() <= DEFAULT_MAX_BODY);
    assert_eq!(
        e.kind,
        MessageKind::Response,
        "classified from the whole message"
    );
}

#[test]
fn method_names_are_stored_once_per_server_and_never_mixed_up() {
    let log = TrafficLog::new(5_000);
    let a = log.record_message(
        "s",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
    );
    let b = log.record_message(
        "s",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":2,"method":"tools/call"}"#,
    );
    assert!(Arc::ptr_eq(
        a.method.as_ref().unwrap(),
        b.method.as_ref().unwrap()
    ));
    assert!(Arc::ptr_eq(&a.server, &b.server));
    // A server inventing names past the bound: each entry keeps its own.
    for i in 0..(MAX_METHODS + 100) {
        let line = format!(r#"{{"jsonrpc":"2.0","method":"m{i}"}}"#);
        let e = log.record_message("s", Direction::Incoming, line.as_bytes());
        assert_eq!(e.method.as_deref(), Some(format!("m{i}").as_str()));
    }
    let answer = log.record_message(
        "s",
        Direction::Incoming,
        br#"{"jsonrpc":"2.0","id":2,"result":{}}"#,
    );
    assert_eq!(answer.method.as_deref(), Some("tools/call"));
    assert_eq!(&*log.entries(Some("s"))[0].server, "s");
}

#[test]
fn requests_nobody_answers_cannot_grow_the_pending_map_without_bound() {
    let log = TrafficLog::new(100);
    // A hostile server: 100,000 requests nobody answers.
    for i in 0..100_000u32 {
        let line = format!(r#"{{"jsonrpc":"2.0","id":"r{i}","method":"ping"}}"#);
        log.record_message("s", Direction::Incoming, line.as_bytes());
    }
    let pending = log.lock().rings.get("s").unwrap().pending.len();
    assert!(pending <= MAX_PENDING, "{pending} requests kept waiting");
    // The newest are still paired with their answer.
    log.record_message(
        "s",
        Direction::Outgoing,
        br#"{"jsonrpc":"2.0","id":"r99999","result":{}}"#,
    );
    let last = log.entries(Some("s")).pop().unwrap();
    assert_eq!(last.method.as_deref(), Some("ping"));
    assert!(last.latency_ms.is_some());
}

#[test]
fn masking_never_touches_json_structure_nor_short_or_common_values() {
    let log = TrafficLog::new(10);
    // What a real entry gave: `"DISABLE_THOUGHT_LOGGING": "true"` next to a token.
    log.set_secrets(
        "a",
        vec![
            "true".into(),
            "debug".into(),
            "8080".into(),
            "tok-abcdef123".into(),
            "1234567890123".into(),
        ],
    );
    let body = br#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"t","annotations":{"readOnlyHint":true}}],"n":1234567890123,"said":"tok-abcdef123 and 1234567890123","level":"debug"}}"#;
    log.record_message("a", Direction::Incoming, body);
    let e = &log.entries(Some("a"))[0];
    let v: serde_json::Value = serde_json::from_str(&e.body).expect("still JSON");
    assert_eq!(v["result"]["tools"][0]["annotations"]["readOnlyHint"], true);
    assert_eq!(v["result"]["level"], "debug");
    // A number stays a number; inside a string the same digits are masked.
    assert_eq!(v["result"]["n"], 1234567890123u64);
    assert_eq!(v["result"]["said"], "•••••• and ••••••");
    // The same for text that is not one server's (mcpwb --json, the logs).
    let printed = log.mask_all(&serde_json::to_string_pretty(&v).unwrap());
    serde_json::from_str::<serde_json::Value>(&printed).expect("mcpwb --json stays JSON");
}

#[test]
fn a_secret_the_cut_would_split_is_masked_whole() {
    let log = TrafficLog::new(10);
    let secret = "sk-live-SPLITTHIS-0123456789";
    log.set_secrets("a", vec![secret.into()]);
    // The secret starts just before the body limit.
    let pad = "x".repeat(DEFAULT_MAX_BODY - 40);
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"t":"{pad}{secret}"}}}}"#);
    log.record_message("a", Direction::Incoming, body.as_bytes());
    let e = &log.entries(Some("a"))[0];
    assert!(e.truncated);
    assert!(
        !e.body.contains("sk-live"),
        "the secret's first half leaked"
    );
}
