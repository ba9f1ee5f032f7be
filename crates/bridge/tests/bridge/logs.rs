//! A server's log messages reach the bridge's callers who asked for them:
//! a 2025-11-25 caller with `logging/setLevel`, a 2026-07-28 caller per
//! request (`_meta` `io.modelcontextprotocol/logLevel`, no setLevel), and
//! not a caller who did not ask.

use std::time::Duration;

use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};

use super::{Connected, bridge, call, connect, modes, workbench};

/// `alpha__log` called with the per-request log level of 2026-07-28.
async fn call_asking_for(c: &Connected, level: &str, message: &str) {
    let args = json!({ "level": "info", "message": message });
    let params =
        CallToolRequestParams::new("alpha__log").with_arguments(args.as_object().cloned().unwrap());
    let mut options = PeerRequestOptions::no_options();
    options.meta =
        serde_json::from_value(json!({ "io.modelcontextprotocol/logLevel": level })).ok();
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = c
        .client
        .send_cancellable_request(request, options)
        .await
        .unwrap();
    handle.await_response().await.unwrap();
}

/// The next log message with `message` as its data, within `wait`.
async fn logged(c: &mut Connected, message: &str, wait: Duration) -> Option<Value> {
    tokio::time::timeout(wait, async {
        loop {
            let note = c.logged.recv().await?;
            if note["data"] == message {
                return Some(note);
            }
        }
    })
    .await
    .ok()
    .flatten()
}

#[tokio::test]
async fn log_messages_reach_the_callers_that_asked_for_them_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    let (_bridge, listening) = bridge(&wb, workbench_bridge::Policy::default()).await;
    let [(_, old), (_, new)] = modes();

    // Nobody asked yet: the message goes nowhere.
    let mut quiet = connect(&listening.url(), new.clone()).await;
    call(&quiet, "alpha__log", json!({ "message": "unasked" })).await;
    assert!(
        logged(&mut quiet, "unasked", Duration::from_millis(500))
            .await
            .is_none()
    );

    // 2026-07-28: asked with the call.
    let mut c = connect(&listening.url(), new).await;
    call_asking_for(&c, "debug", "asked per request").await;
    let note = logged(&mut c, "asked per request", Duration::from_secs(5))
        .await
        .expect("the 2026-07-28 caller that asked with its call got the message");
    assert_eq!(note["level"], "info");
    assert!(
        note["logger"].as_str().unwrap().starts_with("alpha"),
        "{note}"
    );
    // A level above the message's: not sent.
    call_asking_for(&c, "error", "below the level").await;
    assert!(
        logged(&mut c, "below the level", Duration::from_millis(500))
            .await
            .is_none()
    );

    // 2025-11-25: asked once with logging/setLevel.
    let mut c = connect(&listening.url(), old).await;
    #[allow(deprecated)] // logging/setLevel, as 2025-11-25 clients send it
    c.client
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Debug,
        ))
        .await
        .unwrap();
    call(&c, "alpha__log", json!({ "message": "asked once" })).await;
    let note = logged(&mut c, "asked once", Duration::from_secs(5))
        .await
        .expect("the 2025-11-25 caller that set a level got the message");
    assert_eq!(note["level"], "info");
    wb.shutdown().await;
}
