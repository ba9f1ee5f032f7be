//! Which protocol era a connection speaks: the handshake rmcp is asked
//! for, and what a failed handshake says about asking again another way.

use rmcp::ClientLifecycleMode;
use rmcp::service::ClientInitializeError;

use crate::config::ProtocolPin;
use crate::status::Failure;

/// Both protocol eras: ask `server/discover` (2026-07-28) first; a server
/// that does not know it (every 2025-11-25 server) gets `initialize`. An
/// entry may pin one era (a server's developer testing it under each).
pub(super) fn lifecycle(pin: ProtocolPin) -> ClientLifecycleMode {
    match pin {
        ProtocolPin::Auto => ClientLifecycleMode::Auto {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
            legacy_version: Some(rmcp::model::ProtocolVersion::V_2025_11_25),
        },
        ProtocolPin::V2025_11_25 => ClientLifecycleMode::Initialize,
        ProtocolPin::V2026_07_28 => ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    }
}

/// Whether the handshake failed because the server refused `initialize`
/// (-32022, unsupported protocol version) naming only versions of the
/// 2026-07-28 era or later: a server that speaks `server/discover` alone,
/// whose answer to the probe came after rmcp stopped waiting for it.
pub(super) fn refused_as_legacy(e: &ClientInitializeError) -> bool {
    use ClientInitializeError as E;
    match e {
        E::JsonRpcError(error)
            if error.code == rmcp::model::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION =>
        {
            let supported = error
                .data
                .as_ref()
                .and_then(|d| d.get("supported"))
                .and_then(|s| s.as_array());
            supported.is_some_and(|versions| {
                !versions.is_empty()
                    && versions.iter().all(|v| {
                        v.as_str().is_some_and(|v| {
                            v >= rmcp::model::ProtocolVersion::V_2026_07_28.as_str()
                        })
                    })
            })
        }
        E::LegacyFallbackFailed { fallback, .. } => refused_as_legacy(fallback),
        _ => false,
    }
}

/// The era to connect again in after `failure`, and the note saying why:
/// under `auto`, a server that refused `initialize` as one of 2026-07-28
/// only (its answer to the 10 s probe came late: uvx or npx fetching it)
/// is asked `server/discover` alone. A pinned era is the person's choice:
/// never switched.
pub(super) fn again(pin: ProtocolPin, failure: &Failure) -> Option<(ProtocolPin, &'static str)> {
    (pin == ProtocolPin::Auto && failure.modern_only).then_some((
        ProtocolPin::V2026_07_28,
        "the server refused initialize (2025-11-25) and speaks 2026-07-28 only; its answer to server/discover came after the 10 s the probe waits. The workbench connects again and asks server/discover alone",
    ))
}
