//! Sign-in metadata that tries to send the workbench elsewhere (issue 24,
//! item 12): a redirect to another origin is not followed, and the
//! registration and revocation endpoints are held to https like the rest.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::routing::any;
use workbench_core::auth::{Timeline, flow};

use super::auth::{As, browser, serve};

/// A server on another local port that counts every request it gets.
async fn spy() -> (String, Arc<AtomicUsize>, tokio_util::sync::DropGuard) {
    let hits = Arc::new(AtomicUsize::new(0));
    let count = hits.clone();
    let app = axum::Router::new().fallback(any(move || {
        let count = count.clone();
        async move {
            count.fetch_add(1, Ordering::SeqCst);
            axum::Json(serde_json::json!({ "issuer": "spy" }))
        }
    }));
    let (addr, stop) = super::hostile::serve(app).await;
    (format!("http://{addr}"), hits, stop)
}

#[tokio::test]
async fn metadata_redirected_to_another_origin_is_not_followed() {
    let (elsewhere, hits, _spy) = spy().await;
    let (base, _as, _stop) = serve(As {
        metadata_elsewhere: Some(format!(
            "{elsewhere}/.well-known/oauth-authorization-server"
        )),
        ..As::default()
    })
    .await;
    let http = workbench_core::auth::http();
    let mut tl = Timeline::default();
    let refused = flow::login(&http, &format!("{base}/mcp"), &browser(), &mut tl).await;
    assert!(
        refused.is_err(),
        "signed in through another origin: {tl:#?}"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 0, "the other origin was asked");
    let shown = serde_json::to_string(&tl).unwrap();
    assert!(
        shown.contains("another origin"),
        "the reason is not shown: {shown}"
    );
}

#[tokio::test]
async fn registration_and_revocation_over_plain_http_are_refused_before_sending() {
    // 192.0.2.0/24 is TEST-NET-1: nothing answers there, so a request would
    // hang until the time-out instead of failing at once.
    let (base, _as, _stop) = serve(As {
        registration_endpoint: Some("http://192.0.2.1/register".into()),
        ..As::default()
    })
    .await;
    let http = workbench_core::auth::http();
    let mut tl = Timeline::default();
    let started = std::time::Instant::now();
    let e = flow::login(&http, &format!("{base}/mcp"), &browser(), &mut tl)
        .await
        .expect_err("registered over plain http");
    assert!(
        e.to_string().contains("the registration endpoint") && e.to_string().contains("not https"),
        "{e}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "it tried to send"
    );

    // A stored sign-in whose revocation endpoint is plain http elsewhere.
    let (base, _as, _stop) = serve(As::default()).await;
    let mut tl = Timeline::default();
    let mut tokens = flow::login(&http, &format!("{base}/mcp"), &browser(), &mut tl)
        .await
        .unwrap();
    tokens.revocation_endpoint = Some("http://192.0.2.1/revoke".into());
    let e = flow::revoke(&http, &tokens, &mut tl)
        .await
        .expect_err("revoked over plain http");
    assert_eq!(e.code, workbench_core::ErrorCode::Refused, "{e}");
    assert!(
        e.message.contains("the revocation endpoint") && e.message.contains("not https"),
        "{e}"
    );
}
