//! A transport decorator that records each message in the traffic log, for
//! transports whose bytes rmcp parses itself (Streamable HTTP). The recorded
//! text is the message re-serialised: fields rmcp's types do not know are not
//! in it (the stdio tap, below rmcp, keeps every byte).

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

use crate::traffic::{Direction, TrafficLog};

pub struct Tapped<T> {
    pub inner: T,
    pub server: String,
    pub traffic: TrafficLog,
    /// Told when a send fails: over HTTP that means the session is gone
    /// (404, connection refused), which rmcp does not treat as the end.
    pub broken: tokio::sync::mpsc::UnboundedSender<String>,
}

impl<T: Transport<RoleClient> + Send> Transport<RoleClient> for Tapped<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Ok(bytes) = serde_json::to_vec(&item) {
            self.traffic
                .record_message(&self.server, Direction::Outgoing, &bytes);
        }
        let sending = self.inner.send(item);
        let broken = self.broken.clone();
        async move {
            let result = sending.await;
            if let Err(e) = &result {
                let _ = broken.send(super::error_chain(e));
            }
            result
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let item = self.inner.receive().await?;
        if let Ok(bytes) = serde_json::to_vec(&item) {
            self.traffic
                .record_message(&self.server, Direction::Incoming, &bytes);
        }
        Some(item)
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
