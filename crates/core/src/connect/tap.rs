//! A transport decorator that reports a failed send: over Streamable HTTP
//! that means the session is gone (404, connection refused), which rmcp does
//! not treat as the end of the transport. (The bytes are recorded below
//! rmcp, in `httptap`, which answers a request refused with `403
//! insufficient_scope` itself: that is not a break.)

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

pub struct BreakWatch<T> {
    pub inner: T,
    pub broken: tokio::sync::mpsc::UnboundedSender<String>,
}

impl<T: Transport<RoleClient> + Send> Transport<RoleClient> for BreakWatch<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
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

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
