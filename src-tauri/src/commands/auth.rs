//! Sign-in to remote servers (OAuth): state, sign in (the system browser
//! comes back to a loopback listener), refresh, force expiry (to try
//! refresh), sign out. Each run returns its timeline for the Auth panel.

use std::time::Duration;

use serde::Serialize;
use tauri::{Runtime, State};
use workbench_app::ErrorInfo;
use workbench_app::auth::{self, Grants, Status, Target, Timeline};

use crate::state::AppState;

/// Sign-ins waiting on the browser, by server: Cancel ends them.
fn waiting()
-> &'static std::sync::Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>
{
    static WAITING: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<String, tokio_util::sync::CancellationToken>>,
    > = std::sync::OnceLock::new();
    WAITING.get_or_init(Default::default)
}

/// Step-by-step sign-ins waiting for the next click, by server.
fn stepping()
-> &'static std::sync::Mutex<std::collections::HashMap<String, tokio::sync::mpsc::Sender<bool>>> {
    static STEPPING: std::sync::OnceLock<
        std::sync::Mutex<std::collections::HashMap<String, tokio::sync::mpsc::Sender<bool>>>,
    > = std::sync::OnceLock::new();
    STEPPING.get_or_init(Default::default)
}

/// How to sign in from the window.
#[derive(Debug, Clone, Default, serde::Deserialize, specta::Type)]
pub struct SignInOptions {
    /// Answer the server's last refusal: start from its challenge and ask
    /// for the scopes granted before plus the ones it asks for.
    #[serde(default)]
    pub widen: bool,
    /// Stop after each step until `auth_next` says go on.
    #[serde(default)]
    pub step_by_step: bool,
}

/// How a sign-in step went: the flow's steps, and the error if it failed.
#[derive(Debug, Clone, Serialize, specta::Type)]
pub struct AuthRun {
    pub status: crate::wire::Status,
    pub error: Option<String>,
    /// Which step failed (a stable code), with `error`.
    pub failed_step: Option<crate::wire::SignInStep>,
    pub timeline: crate::wire::Timeline,
}

/// Where `name` signs in.
fn target(state: &AppState, name: &str) -> Result<Target, ErrorInfo> {
    Target::of(&state.load()?, name, state.project_dir.clone())
}

/// Whether `name` is signed in, as whom, until when.
#[tauri::command]
#[specta::specta]
pub async fn auth_status<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<crate::wire::Status, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let mut status = target(&state, &name)?.status();
            status.refusal = auth::refusal(&state.workbench, &name);
            Ok(status)
        }
        .await,
    )
}

/// New tokens were kept and the server restarts with them; either way the
/// run comes back with the state as it now is.
async fn finish(state: &AppState, t: &Target, run: auth::Run) -> Result<AuthRun, ErrorInfo> {
    let (timeline, result) = run;
    let failed_step = result.as_ref().err().map(|e| e.step);
    let error = match result {
        Ok(_) => {
            auth::tokens_changed(&state.workbench, &t.server).await;
            None
        }
        Err(e) => Some(e.message),
    };
    Ok(AuthRun {
        status: t.status().into(),
        error,
        failed_step: failed_step.map(Into::into),
        timeline: timeline.into(),
    })
}

/// Sign in to `name` in the system browser; the server restarts with the
/// token. The timeline comes back whether it worked or not. Step by step,
/// each step is sent as `AuthStepped` and the flow waits for `auth_next`.
#[tauri::command]
#[specta::specta]
pub async fn auth_sign_in<R: Runtime>(
    app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
    options: Option<SignInOptions>,
) -> Result<AuthRun, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let options = options.unwrap_or_default();
            let t = target(&state, &name)?;
            let refusal = options
                .widen
                .then(|| auth::refusal(&state.workbench, &name))
                .flatten();
            let stored = t.stored();
            let gate: Option<auth::Gate> = options.step_by_step.then(|| {
                let (tx, rx) = tokio::sync::mpsc::channel::<bool>(1);
                stepping()
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(name.clone(), tx);
                let rx = std::sync::Arc::new(tokio::sync::Mutex::new(rx));
                let (app, server) = (app.clone(), name.clone());
                Box::new(move |tl: &Timeline| {
                    use tauri_specta::Event;
                    let _ = (crate::events::AuthStepped {
                        server: server.clone(),
                        timeline: tl.clone().into(),
                    })
                    .emit(&app);
                    let rx = rx.clone();
                    Box::pin(async move { rx.lock().await.recv().await.unwrap_or(false) })
                        as std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send>>
                }) as auth::Gate
            });
            let entry_client = t.client()?;
            let opts = auth::LoginOptions {
                client_id: entry_client.client_id,
                client_secret: entry_client.client_secret,
                client_metadata_url: entry_client.client_metadata_url,
                scope: refusal
                    .as_ref()
                    .and_then(|r| r.widened(stored.as_ref()))
                    .or(entry_client.scope),
                // The address goes to the window too: a person whose browser did
                // not open copies it (the sign-in waits for them either way).
                open: {
                    let (app, server) = (app.clone(), name.clone());
                    Box::new(move |url| {
                        use tauri_specta::Event;
                        let error = open::that_detached(url)
                            .err()
                            .map(|e| format!("could not open a browser: {e}"));
                        let _ = (crate::events::AuthBrowser {
                            server: server.clone(),
                            url: url.to_string(),
                            error,
                        })
                        .emit(&app);
                        Ok(())
                    })
                },
                timeout: Duration::from_secs(300),
                challenge: refusal.as_ref().map(|r| r.challenge()),
                gate,
            };
            let cancel = tokio_util::sync::CancellationToken::new();
            if let Some(old) = waiting()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(name.clone(), cancel.clone())
            {
                old.cancel();
            }
            let run = tokio::select! {
                r = t.sign_in(&opts) => r?,
                _ = cancel.cancelled() => (Timeline::default(), Err(auth::SignInError {
                    step: auth::SignInStep::Cancelled,
                    message: "cancelled: the sign-in was stopped before it finished".to_string(),
                })),
            };
            waiting()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&name);
            stepping()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&name);
            finish(&state, &t, run).await
        }
        .await,
    )
}

/// Step by step: run the next step of `name`'s sign-in (`go`), or stop it.
#[tauri::command]
#[specta::specta]
pub async fn auth_next<R: Runtime>(
    _app: tauri::AppHandle<R>,
    name: String,
    go: bool,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let tx = stepping()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .get(&name)
                .cloned()
                .ok_or_else(|| {
                    ErrorInfo::refused(format!("no step-by-step sign-in of {name} is waiting"))
                })?;
            tx.send(go)
                .await
                .map_err(|_| ErrorInfo::refused("the sign-in has ended"))
        }
        .await,
    )
}

/// Stop a sign-in that waits on the browser.
#[tauri::command]
#[specta::specta]
pub async fn auth_cancel<R: Runtime>(
    _app: tauri::AppHandle<R>,
    name: String,
) -> Result<(), crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            if let Some(t) = waiting()
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&name)
            {
                t.cancel();
            }
            Ok(())
        }
        .await,
    )
}

/// A new access token now (with the refresh token).
#[tauri::command]
#[specta::specta]
pub async fn auth_refresh<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<AuthRun, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let t = target(&state, &name)?;
            let run = t.refresh().await?;
            finish(&state, &t, run).await
        }
        .await,
    )
}

/// Mark the access token expired (to watch the next connection refresh it).
#[tauri::command]
#[specta::specta]
pub async fn auth_force_expiry<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<crate::wire::Status, crate::wire::ErrorInfo> {
    crate::wire::out(async move { target(&state, &name)?.force_expiry() }.await)
}

/// Sign out: revoke where the server offers it, forget the tokens, restart.
#[tauri::command]
#[specta::specta]
pub async fn auth_sign_out<R: Runtime>(
    _app: tauri::AppHandle<R>,
    state: State<'_, AppState>,
    name: String,
) -> Result<AuthRun, crate::wire::ErrorInfo> {
    crate::wire::out(
        async move {
            let t = target(&state, &name)?;
            let (timeline, refused) = match t.sign_out().await? {
                Some(out) => {
                    auth::tokens_changed(&state.workbench, &name).await;
                    out
                }
                None => (Timeline::default(), None),
            };
            let failed_step = refused.as_ref().map(|_| auth::SignInStep::Revocation);
            Ok(AuthRun {
                status: Status::of(None).into(),
                error: refused.map(|e| format!("not revoked by the server ({e}); forgotten here")),
                failed_step: failed_step.map(Into::into),
                timeline: timeline.into(),
            })
        }
        .await,
    )
}

crate::wire::as_is!(AuthRun);
