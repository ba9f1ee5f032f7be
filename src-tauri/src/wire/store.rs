use serde::{Deserialize, Serialize};
use serde_json::Value;
/// How a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// Asked for, not yet decided or finished.
    Pending,
    /// The tool answered with a result.
    Ok,
    /// The tool answered with an error result (`isError`).
    Error,
    /// The request failed (timeout, server gone, JSON-RPC error).
    Failed,
    /// The person (or the policy) refused it.
    Denied,
    /// Stopped before it finished.
    Cancelled,
}
/// A call as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct CallRow {
    pub id: i64,
    /// The key its caller made before the call (`row-<id>` for rows kept
    /// before keys were).
    pub key: String,
    pub origin: String,
    pub session: Option<String>,
    pub call_id: String,
    pub server: String,
    pub tool: String,
    pub arguments: Value,
    pub result: Option<Value>,
    pub error: Option<String>,
    pub status: CallStatus,
    pub duration_ms: Option<f64>,
    pub started_at: i64,
    pub protocol: Option<String>,
    pub traffic_from: Option<i64>,
    pub traffic_to: Option<i64>,
    pub schema_violations: Vec<String>,
    /// Kept whatever the history's size cap (saved to a suite, pinned).
    pub saved: bool,
    /// The task the call ran as (`taskId`, `status`, `form`, ...), if it became one.
    pub task: Option<Value>,
    /// What a suite's case made of the call, when a suite made it.
    pub verdict: Option<CaseVerdict>,
    /// What happened on the way, one sentence each (a wait for the server
    /// to restart, the request sent again after it died under it).
    pub notes: Vec<String>,
}
/// What a suite's case made of its call: the call may be `ok` while the
/// case failed (an assertion on its result).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, specta::Type)]
pub struct CaseVerdict {
    pub suite: String,
    pub case: String,
    /// `passed`, `failed`, `skipped` or `not_ready`.
    pub outcome: String,
    /// Each failed assertion: `assertion: message`.
    pub failures: Vec<String>,
}
/// Which calls to list, newest first.
#[derive(Debug, Clone, Default, Deserialize, specta::Type)]
#[serde(default)]
pub struct HistoryQuery {
    pub server: Option<String>,
    pub tool: Option<String>,
    pub origin: Option<String>,
    pub status: Option<CallStatus>,
    /// Text looked for in the arguments, the result and the error.
    pub search: Option<String>,
    /// Only calls older than this id (the next page).
    pub before: Option<i64>,
    /// At most this many (0: 100).
    pub limit: u32,
}
/// Tokens counted by the provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct Usage {
    pub input: i64,
    pub output: i64,
    /// Input tokens served from the provider's cache (part of `input`).
    pub cached: i64,
}
/// A session as listed.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
pub struct SessionRow {
    pub id: String,
    pub title: String,
    pub provider: String,
    pub model: String,
    pub system_prompt: String,
    /// The owner's options (servers/tools chosen, step limit, ...).
    pub options: Value,
    /// Unix milliseconds.
    pub created_at: i64,
    /// Unix milliseconds of the last activity.
    pub updated_at: i64,
    pub message_count: i64,
    pub usage: Usage,
}
/// One tapped connection.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct TapRow {
    pub id: i64,
    pub started_at: i64,
    pub ended_at: Option<i64>,
    /// The server's name (its entry's, or the command's program).
    pub server: String,
    /// The command line the tap ran.
    pub command: String,
    /// The host's `clientInfo.name` and `version`, once it said them.
    pub host: Option<String>,
    pub host_version: Option<String>,
    /// The protocol revision the server answered with.
    pub protocol: Option<String>,
    pub messages: i64,
    /// Messages not kept because the recorder fell behind (they passed).
    pub dropped: i64,
    /// The file it was opened from (None: a tap kept it).
    pub imported_from: Option<String>,
}
/// One message as it passed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
pub struct TapMessage {
    pub seq: i64,
    pub at_ms: i64,
    /// `host` (host to server) or `server` (server to host).
    pub direction: String,
    /// Its size in bytes, whole.
    pub size: i64,
    /// Its text (lossy UTF-8), cut when it was too long to keep.
    pub text: String,
    pub cut: bool,
}
impl From<CallStatus> for workbench_store::calls::CallStatus {
    fn from(v: CallStatus) -> Self {
        match v {
            CallStatus::Pending => workbench_store::calls::CallStatus::Pending,
            CallStatus::Ok => workbench_store::calls::CallStatus::Ok,
            CallStatus::Error => workbench_store::calls::CallStatus::Error,
            CallStatus::Failed => workbench_store::calls::CallStatus::Failed,
            CallStatus::Denied => workbench_store::calls::CallStatus::Denied,
            CallStatus::Cancelled => workbench_store::calls::CallStatus::Cancelled,
        }
    }
}
impl From<HistoryQuery> for workbench_store::calls::HistoryQuery {
    fn from(v: HistoryQuery) -> Self {
        let HistoryQuery {
            server,
            tool,
            origin,
            status,
            search,
            before,
            limit,
        } = v;
        workbench_store::calls::HistoryQuery {
            server,
            tool,
            origin,
            status: status.map(|v| v.into()),
            search,
            before,
            limit,
        }
    }
}
crate::wire::to_wire!(workbench_store::calls::CallRow => CallRow);
impl From<workbench_store::calls::CallRow> for CallRow {
    fn from(v: workbench_store::calls::CallRow) -> Self {
        let workbench_store::calls::CallRow {
            id,
            key,
            origin,
            session,
            call_id,
            server,
            tool,
            arguments,
            result,
            error,
            status,
            duration_ms,
            started_at,
            protocol,
            traffic_from,
            traffic_to,
            schema_violations,
            saved,
            task,
            verdict,
            notes,
        } = v;
        Self {
            id,
            key,
            origin,
            session,
            call_id,
            server,
            tool,
            arguments,
            result,
            error,
            status: status.into(),
            duration_ms,
            started_at,
            protocol,
            traffic_from,
            traffic_to,
            schema_violations,
            saved,
            task,
            verdict: verdict.map(|v| v.into()),
            notes,
        }
    }
}
crate::wire::to_wire!(workbench_store::sessions::SessionRow => SessionRow);
impl From<workbench_store::sessions::SessionRow> for SessionRow {
    fn from(v: workbench_store::sessions::SessionRow) -> Self {
        let workbench_store::sessions::SessionRow {
            id,
            title,
            provider,
            model,
            system_prompt,
            options,
            created_at,
            updated_at,
            message_count,
            usage,
        } = v;
        Self {
            id,
            title,
            provider,
            model,
            system_prompt,
            options,
            created_at,
            updated_at,
            message_count,
            usage: usage.into(),
        }
    }
}
crate::wire::to_wire!(workbench_store::taps::TapRow => TapRow);
impl From<workbench_store::taps::TapRow> for TapRow {
    fn from(v: workbench_store::taps::TapRow) -> Self {
        let workbench_store::taps::TapRow {
            id,
            started_at,
            ended_at,
            server,
            command,
            host,
            host_version,
            protocol,
            messages,
            dropped,
            imported_from,
        } = v;
        Self {
            id,
            started_at,
            ended_at,
            server,
            command,
            host,
            host_version,
            protocol,
            messages,
            dropped,
            imported_from,
        }
    }
}
crate::wire::to_wire!(workbench_store::taps::TapMessage => TapMessage);
impl From<workbench_store::taps::TapMessage> for TapMessage {
    fn from(v: workbench_store::taps::TapMessage) -> Self {
        let workbench_store::taps::TapMessage {
            seq,
            at_ms,
            direction,
            size,
            text,
            cut,
        } = v;
        Self {
            seq,
            at_ms,
            direction,
            size,
            text,
            cut,
        }
    }
}
crate::wire::to_wire!(workbench_store::calls::CallStatus => CallStatus);
impl From<workbench_store::calls::CallStatus> for CallStatus {
    fn from(v: workbench_store::calls::CallStatus) -> Self {
        match v {
            workbench_store::calls::CallStatus::Pending => Self::Pending,
            workbench_store::calls::CallStatus::Ok => Self::Ok,
            workbench_store::calls::CallStatus::Error => Self::Error,
            workbench_store::calls::CallStatus::Failed => Self::Failed,
            workbench_store::calls::CallStatus::Denied => Self::Denied,
            workbench_store::calls::CallStatus::Cancelled => Self::Cancelled,
        }
    }
}
crate::wire::to_wire!(workbench_store::calls::CaseVerdict => CaseVerdict);
impl From<workbench_store::calls::CaseVerdict> for CaseVerdict {
    fn from(v: workbench_store::calls::CaseVerdict) -> Self {
        let workbench_store::calls::CaseVerdict {
            suite,
            case,
            outcome,
            failures,
        } = v;
        Self {
            suite,
            case,
            outcome,
            failures,
        }
    }
}
crate::wire::to_wire!(workbench_store::sessions::Usage => Usage);
impl From<workbench_store::sessions::Usage> for Usage {
    fn from(v: workbench_store::sessions::Usage) -> Self {
        let workbench_store::sessions::Usage {
            input,
            output,
            cached,
        } = v;
        Self {
            input,
            output,
            cached,
        }
    }
}
