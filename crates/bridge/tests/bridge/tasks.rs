//! Tasks through the bridge: a 2026-07-28 caller that declares the tasks
//! extension gets the task the server made and follows it through the
//! bridge (`tasks/get` routed to that server); a caller without gets the
//! final result, the bridge following the task for it.

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
    ProtocolVersion, TaskPayload,
};
use rmcp::service::ClientLifecycleMode;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::json;

use super::{bridge, call, connect, modes, workbench};

/// A caller that runs tasks itself.
#[derive(Clone)]
struct TaskCaller;

impl rmcp::ClientHandler for TaskCaller {
    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities = ClientCapabilities::builder().enable_tasks().build();
        info
    }
}

#[tokio::test]
async fn a_caller_that_runs_tasks_gets_the_task_and_one_that_does_not_gets_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let wb = workbench(dir.path(), &[("alpha", &[])]).await;
    let (_bridge, listening) = bridge(&wb, workbench_bridge::Policy::default()).await;

    let transport = StreamableHttpClientTransport::with_client(
        workbench_http::client().unwrap(),
        StreamableHttpClientTransportConfig::with_uri(listening.url()).auth_header("the-token"),
    );
    let mode = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = rmcp::serve_client_with_lifecycle(TaskCaller, transport, mode)
        .await
        .unwrap();
    let args = json!({ "steps": 2, "step_ms": 100 })
        .as_object()
        .cloned()
        .unwrap();
    let params = CallToolRequestParams::new("alpha__task_batch").with_arguments(args);
    let CallToolResponse::Task(made) = client.call_tool_once(params).await.unwrap() else {
        panic!("the caller declared tasks: it gets the task")
    };
    let id = made.task.task_id.clone();
    let mut done = None;
    for _ in 0..60 {
        let got = client
            .get_task(GetTaskParams::new(id.clone()))
            .await
            .unwrap();
        if let TaskPayload::Completed { result } = got.task.payload {
            done = Some(result);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let result = done.expect("the task completed, followed through the bridge");
    assert_eq!(
        result["content"][0]["text"],
        "task_batch done after 2 steps"
    );
    client.cancel().await.unwrap();

    // Callers without tasks (both eras): the final result, followed by the bridge.
    for (era, mode) in modes() {
        let c = connect(&listening.url(), mode).await;
        let out = call(
            &c,
            "alpha__task_batch",
            json!({ "steps": 1, "step_ms": 50 }),
        )
        .await;
        assert_eq!(
            out["content"][0]["text"], "task_batch done after 1 steps",
            "{era}: {out}"
        );
        c.client.cancel().await.unwrap();
    }
    wb.shutdown().await;
}
