//! Results kept as the server sent them. rmcp's typed results drop the
//! fields they do not model, refuse content kinds they do not know, and read
//! a 2025-11-25 task handle (`{"task": {...}}`) as an empty tool result: the
//! answers to `tools/call`, the task methods and any method rmcp does not
//! model are handed on as the JSON the server wrote (`CustomResult`).
//!
//! Over stdio the line reader does it (`lines::KeepCallResults`); over
//! Streamable HTTP the tap hands each kept answer's JSON to [`Kept`], and
//! [`KeepRaw`], wrapped around rmcp's transport, swaps it in.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use rmcp::RoleClient;
use rmcp::model::{ClientRequest, CustomResult, JsonRpcMessage, RequestId, ServerResult};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

/// Whether the answer to `request` is kept as sent.
pub fn kept(request: &ClientRequest) -> bool {
    matches!(
        request,
        ClientRequest::CallToolRequest(_)
            | ClientRequest::GetTaskRequest(_)
            | ClientRequest::CustomRequest(_)
    )
}

#[derive(Default)]
struct State {
    /// Requests sent whose answers are kept.
    wanted: HashSet<RequestId>,
    /// Answers read (by the tap) and not yet handed on.
    got: HashMap<RequestId, Value>,
}

/// The answers kept for one connection; shared by the tap and [`KeepRaw`].
#[derive(Clone, Default)]
pub struct Kept(Arc<Mutex<State>>);

impl Kept {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A message about to be sent: its answer is wanted when kept.
    pub fn sending(&self, item: &TxJsonRpcMessage<RoleClient>) {
        if let JsonRpcMessage::Request(r) = item
            && kept(&r.request)
        {
            self.lock().wanted.insert(r.id.clone());
        }
    }

    /// A message's bytes as received: an answer wanted is kept.
    pub fn offer(&self, bytes: &[u8]) {
        if self.lock().wanted.is_empty() {
            return;
        }
        let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(bytes) else {
            return;
        };
        if message.contains_key("method") {
            return;
        }
        let Some(id) = message
            .get("id")
            .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok())
        else {
            return;
        };
        let Some(result) = message.shift_remove("result") else {
            return;
        };
        let mut state = self.lock();
        if state.wanted.remove(&id) {
            state.got.insert(id, result);
        }
    }

    /// The kept answer for a response rmcp's types read.
    fn swap(&self, message: RxJsonRpcMessage<RoleClient>) -> RxJsonRpcMessage<RoleClient> {
        match message {
            JsonRpcMessage::Response(mut r) => {
                let mut state = self.lock();
                if let Some(raw) = state.got.remove(&r.id) {
                    r.result = ServerResult::CustomResult(CustomResult(raw));
                } else {
                    // Answered some other way (an error, a 403 made up by
                    // the tap): no longer wanted.
                    state.wanted.remove(&r.id);
                }
                JsonRpcMessage::Response(r)
            }
            JsonRpcMessage::Error(e) => {
                if let Some(id) = &e.id {
                    let mut state = self.lock();
                    state.wanted.remove(id);
                    state.got.remove(id);
                }
                JsonRpcMessage::Error(e)
            }
            other => other,
        }
    }
}

/// rmcp's transport with the kept answers swapped in.
pub struct KeepRaw<T> {
    pub inner: T,
    pub kept: Kept,
}

impl<T: Transport<RoleClient> + Send> Transport<RoleClient> for KeepRaw<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.kept.sending(&item);
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await?;
        Some(self.kept.swap(message))
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_wanted_is_kept_whole_and_others_pass() {
        let kept = Kept::default();
        kept.lock().wanted.insert(RequestId::Number(3));
        kept.offer(br#"{"jsonrpc":"2.0","id":4,"result":{"content":[]}}"#);
        kept.offer(br#"{"jsonrpc":"2.0","id":3,"result":{"task":{"taskId":"t1"},"x":1}}"#);
        let typed: RxJsonRpcMessage<RoleClient> = serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":3,"result":{"content":[],"isError":false}}"#,
        )
        .unwrap();
        let JsonRpcMessage::Response(r) = kept.swap(typed) else {
            panic!("a response")
        };
        let ServerResult::CustomResult(CustomResult(v)) = r.result else {
            panic!("kept as sent")
        };
        assert_eq!(v["task"]["taskId"], "t1");
        assert_eq!(v["x"], 1);
        assert!(kept.lock().got.is_empty() && kept.lock().wanted.is_empty());
    }
}
