//! An App's `tools/call`: only a tool of its own server that apps may call,
//! decided by the rules the agent follows (asking the person through the
//! App's approvals), made through the one call path as `Origin::App`.
//!
//! A polling App does not pile up asks: its calls of one tool take turns to
//! be decided, so one card waits at a time and the calls behind it go by
//! what the person answered ("Allow while this App is open" holds until the
//! App closes). A call still waiting when its App closes is kept as
//! cancelled, never as denied.

use serde_json::Value;
use workbench_calls::{
    ApproveMode, Asking, Call, Calls, Link, Origin, Remember, ToolPolicy, Undecided,
};
use workbench_core::apps::visible_to_app;
use workbench_core::{CallOptions, ErrorCode, ErrorInfo};

use super::open::Apps;

/// The approvals session of the App `app` (its cards are listed by it).
pub fn session(app: &str) -> String {
    format!("app:{app}")
}

/// The App `app` calls its server's tool `name` with `args`: the result as
/// the server sent it.
pub async fn call(
    calls: &Calls,
    apps: &Apps,
    app: &str,
    name: &str,
    args: Value,
) -> Result<Value, ErrorInfo> {
    let open = apps.find(app)?;
    let server = open.server.as_str();
    let definition = calls
        .workbench()
        .catalog()
        .tool(server, name)
        .ok_or_else(|| {
            ErrorInfo::refused(format!(
                "{server} has no tool {name} (an App calls only its own server's tools)"
            ))
        })?;
    if !visible_to_app(&definition) {
        return Err(ErrorInfo::refused(format!(
            "{server}/{name} is not visible to apps (its _meta.ui.visibility leaves out \"app\")"
        )));
    }
    let arguments = if args.is_null() {
        serde_json::json!({})
    } else {
        args
    };
    let asking = Asking {
        server,
        tool: name,
        definition: &definition,
        mode: ApproveMode::Ask,
        chat_allowed: None,
    };
    let qualified = format!("{server}/{name}");
    let link = || Link {
        call_id: app.to_string(),
        ..Link::default()
    };
    // One ask per tool and App: a call made while an earlier one of the
    // same tool waits for the person waits behind it, then goes by what the
    // person decided.
    let turn = apps.asking(app, name);
    let decided_in_turn = turn.lock().await;
    let abandoned = || {
        let why = "nobody answered: the App was closed while its call waited";
        calls.abandoned(Origin::App, server, name, &arguments, link(), why);
        ErrorInfo::new(ErrorCode::Cancelled, why)
    };
    if apps.get(app).is_none() {
        return Err(abandoned());
    }
    // Allowed by the person for this App while it is open: no ask (a Deny
    // set since still wins).
    let while_open = apps
        .allowed_while_open(app, name)
        .filter(|_| calls.rules().policy(server, name) != ToolPolicy::Deny);
    let (edited, consent) = if let Some(consent) = while_open {
        (None, consent)
    } else {
        match calls
            .decide_with(&asking, &session(app), "app", &qualified, &arguments, true)
            .await
        {
            Ok(decided) => {
                if decided.remember == Remember::Chat {
                    apps.allow_while_open(app, name, decided.consent.clone());
                }
                (decided.arguments, decided.consent)
            }
            Err(Undecided::Dropped) => return Err(abandoned()),
            Err(Undecided::Refused(why)) => {
                calls.refused(Origin::App, server, name, &arguments, link(), &why);
                return Err(ErrorInfo::refused(why));
            }
        }
    };
    // Decided: the next call of the tool may be decided while this runs.
    drop(decided_in_turn);
    let ran = calls
        .run(Call {
            consent: Some(consent),
            origin: Origin::App,
            server,
            tool: name,
            arguments: edited.unwrap_or(arguments),
            definition: Some(&definition),
            link: link(),
            options: CallOptions::default(),
        })
        .await;
    Ok(ran.outcome?.result)
}

/// Close the App `app`: its waiting asks are dropped (their calls kept as
/// cancelled). False when it was not open.
pub fn close(calls: &Calls, apps: &Apps, app: &str) -> bool {
    calls.approvals().forget_session(&session(app));
    apps.close(app)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;
    use workbench_calls::{CallsOptions, Decision};
    use workbench_core::apps::{AppPolicy, AppResource};
    use workbench_core::settings::SettingsFile;
    use workbench_core::{ConfigFile, Workbench, WorkbenchOptions};
    use workbench_store::{CallStatus, Store};

    use super::super::open::OpenApp;
    use super::*;

    async fn demo(dir: &std::path::Path) -> Calls {
        let path = dir.join("mcp.json");
        let demo = workbench_testkit::demo_server_path();
        std::fs::write(
            &path,
            json!({ "mcpServers": { "demo": { "command": demo } } }).to_string(),
        )
        .unwrap();
        let (wb, caller) = Workbench::start_with_caller(
            &ConfigFile::load(&path).unwrap(),
            WorkbenchOptions {
                interactive: true,
                ..WorkbenchOptions::default()
            },
        );
        wb.settle(Duration::from_secs(20)).await;
        wb.tools_settled(Duration::from_secs(20)).await;
        Calls::new(
            wb,
            caller,
            CallsOptions {
                settings: SettingsFile::new(dir.join("settings.json")),
                store: Some(Store::in_memory().unwrap()),
            },
        )
    }

    fn open(apps: &Apps) -> String {
        apps.open(OpenApp {
            server: "demo".into(),
            tool: "counter_app".into(),
            resource: AppResource {
                server: "demo".into(),
                uri: "ui://demo/counter".into(),
                html: String::new(),
                meta: json!({}),
                policy: AppPolicy {
                    csp: String::new(),
                    allow: String::new(),
                    refused: Vec::new(),
                },
                prefers_border: None,
            },
        })
    }

    /// The asks waiting for App `app` once they stop changing for a while.
    async fn waiting(calls: &Calls, app: &str, want: usize) -> usize {
        for _ in 0..100 {
            if calls.approvals().pending(&session(app)).len() == want {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        calls.approvals().pending(&session(app)).len()
    }

    #[tokio::test]
    async fn a_polling_app_waits_behind_one_ask_and_allowed_while_open_runs_without_more() {
        let dir = tempfile::tempdir().unwrap();
        let calls = demo(dir.path()).await;
        let apps = Apps::default();
        let app = open(&apps);
        let bump = |by: i64| {
            let (calls, apps, app) = (calls.clone(), apps.clone(), app.clone());
            tokio::spawn(
                async move { call(&calls, &apps, &app, "app_bump", json!({ "by": by })).await },
            )
        };
        // Three polls while nobody has answered: one card.
        let polls = [bump(1), bump(2), bump(3)];
        assert_eq!(waiting(&calls, &app, 1).await, 1);
        let ask = &calls.approvals().pending(&session(&app))[0];
        calls
            .approvals()
            .decide(ask.id, Decision::approve_with(None, Remember::Chat))
            .unwrap();
        for poll in polls {
            let done = tokio::time::timeout(Duration::from_secs(10), poll)
                .await
                .expect("a call behind the answered ask runs")
                .unwrap();
            assert!(done.is_ok(), "{done:?}");
        }
        // Allowed while it is open: the next poll asks nobody.
        let next = tokio::time::timeout(Duration::from_secs(10), bump(4))
            .await
            .expect("runs without an ask")
            .unwrap();
        assert!(next.is_ok(), "{next:?}");
        assert_eq!(calls.approvals().pending(&session(&app)).len(), 0);
        // Closed and opened again: asked again.
        assert!(close(&calls, &apps, &app));
        let again = open(&apps);
        let (c2, a2, id2) = (calls.clone(), apps.clone(), again.clone());
        let after = tokio::spawn(async move { call(&c2, &a2, &id2, "app_bump", json!({})).await });
        assert_eq!(waiting(&calls, &again, 1).await, 1);
        // It closes while its call waits: cancelled, not denied.
        assert!(close(&calls, &apps, &again));
        let gone = tokio::time::timeout(Duration::from_secs(10), after)
            .await
            .expect("a dropped ask ends its call")
            .unwrap()
            .unwrap_err();
        assert_eq!(gone.code, ErrorCode::Cancelled, "{gone:?}");
        calls.flush().await;
        let rows = calls
            .store()
            .unwrap()
            .tool_calls("demo", "app_bump", 20)
            .unwrap();
        let statuses: Vec<CallStatus> = rows.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses.iter().filter(|s| **s == CallStatus::Ok).count(),
            4,
            "{statuses:?}"
        );
        assert_eq!(
            statuses
                .iter()
                .filter(|s| **s == CallStatus::Cancelled)
                .count(),
            1,
            "{statuses:?}"
        );
        assert!(
            !statuses.contains(&CallStatus::Denied),
            "nobody denied: {statuses:?}"
        );
        calls.workbench().shutdown().await;
    }
}
