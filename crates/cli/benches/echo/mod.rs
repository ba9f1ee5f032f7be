//! Echo calls timed in batches — one after another, or 64 in flight — for
//! the benches that set a path against going straight (the bridge, the
//! tap, the mock). Included by each with `#[path]`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use serde_json::json;

pub const IN_FLIGHT: usize = 64;

pub type Client = RunningService<RoleClient, ()>;

/// One call of `tool` with `{"message": message(i)}`.
pub async fn echo(c: &Client, tool: &'static str, message: fn(usize) -> String, i: usize) {
    let params = CallToolRequestParams::new(tool).with_arguments(
        json!({ "message": message(i) })
            .as_object()
            .cloned()
            .unwrap(),
    );
    c.call_tool(params).await.unwrap();
}

/// `n` calls, one after another or `IN_FLIGHT` at once: how long they took.
pub async fn batch(
    c: &Arc<Client>,
    tool: &'static str,
    message: fn(usize) -> String,
    n: usize,
    concurrent: bool,
) -> Duration {
    let started = Instant::now();
    if concurrent {
        let sem = Arc::new(tokio::sync::Semaphore::new(IN_FLIGHT));
        let mut tasks = Vec::with_capacity(n);
        for i in 0..n {
            let permit = sem.clone().acquire_owned().await.unwrap();
            let c = c.clone();
            tasks.push(tokio::spawn(async move {
                echo(&c, tool, message, i).await;
                drop(permit);
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
    } else {
        for i in 0..n {
            echo(c, tool, message, i).await
        }
    }
    started.elapsed()
}
