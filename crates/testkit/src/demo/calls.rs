//! What the demo's tools do when called: the dispatch by name, and the long
//! task that reports progress until it ends or is cancelled.

use super::*;

/// How long each call of the `serial` fault takes: long beside what a
/// debug build of the client spends on a call (8-13 ms on a loaded CI
/// machine), so that the server, not the client, stops the growth.
pub const SERIAL_CALL_MS: u64 = 20;

impl DemoServer {
    pub(super) async fn call(
        &self,
        name: &str,
        args: Value,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Value, McpError> {
        match self.inner.options.fault {
            Some(Fault::CrashOnCall) => {
                eprintln!("demo server: crashing on purpose (fault crash-on-call)");
                std::process::exit(101);
            }
            Some(Fault::HangOnCall) => {
                eprintln!("demo server: hanging on purpose (fault hang-on-call)");
                std::future::pending::<()>().await;
            }
            Some(Fault::HugeResult) => return Ok(text_result("x".repeat(20 * 1024 * 1024), false)),
            Some(Fault::TellSecrets) => return Ok(text_result(crate::fault::told(), false)),
            Some(Fault::Serial) => {
                static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
                let _one = ONE_AT_A_TIME.lock().await;
                tokio::time::sleep(std::time::Duration::from_millis(SERIAL_CALL_MS)).await;
            }
            _ => {}
        }
        let peer = ctx.peer.clone();
        let new_era = ctx
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        let out = match name {
            "echo" => {
                let message = args["message"].as_str().ok_or_else(|| {
                    McpError::invalid_params("\"message\" must be a string", None)
                })?;
                text_result(message, false)
            }
            "add" => {
                let a = args["a"]
                    .as_f64()
                    .ok_or_else(|| McpError::invalid_params("\"a\" must be a number", None))?;
                let b = args.get("b").and_then(Value::as_f64).unwrap_or(1.0);
                let sum = a + b;
                json!({ "content": [{ "type": "text", "text": json!({ "sum": sum }).to_string() }], "structuredContent": { "sum": sum } })
            }
            "create_order" => {
                if args["items"].as_array().is_none_or(Vec::is_empty) {
                    return Ok(text_result("an order needs at least one item", true));
                }
                let order = tools::create_order(&args);
                json!({ "content": [{ "type": "text", "text": order.to_string() }], "structuredContent": order })
            }
            "all_content_types" => json!({ "content": tools::all_content_types() }),
            "fail" => text_result(
                args["reason"].as_str().unwrap_or("this tool always fails"),
                true,
            ),
            "long_task" => return self.long_task(&args, ctx).await,
            "toggle_extra_tool" => {
                let now = !self.inner.extra_tool.fetch_xor(true, Ordering::SeqCst);
                listen::tools_changed(&peer, new_era).await;
                text_result(
                    format!("{EXTRA_TOOL} is now {}", if now { "on" } else { "off" }),
                    false,
                )
            }
            "redefine_echo" => {
                self.inner.echo_redefined.store(true, Ordering::SeqCst);
                listen::tools_changed(&peer, new_era).await;
                text_result("echo's description changed", false)
            }
            EXTRA_TOOL if self.inner.extra_tool.load(Ordering::SeqCst) => {
                text_result("the extra tool ran", false)
            }
            "counter_app" | "counter_peek" | "app_bump" => self.app_tool(name, &args, &peer).await,
            "increment_counter" => {
                let value = self.inner.counter.fetch_add(1, Ordering::SeqCst) + 1;
                let subscribed = self.inner.subscriptions.lock().await.contains(COUNTER_URI);
                listen::resource_updated(&peer, COUNTER_URI, subscribed).await;
                text_result(value.to_string(), false)
            }
            "log" => {
                let level = args["level"].as_str().unwrap_or("info");
                self.log(&peer, level, args["message"].as_str().unwrap_or(""))
                    .await;
                text_result(format!("sent a {level} message"), false)
            }
            "huge_result" => {
                let mb = args
                    .get("megabytes")
                    .and_then(Value::as_f64)
                    .unwrap_or(20.0)
                    .clamp(0.0, 100.0);
                text_result("x".repeat((mb * 1024.0 * 1024.0) as usize), false)
            }
            "bad_structured_output" => {
                json!({ "content": [{ "type": "text", "text": "{\"count\": \"many\"}" }], "structuredContent": { "count": "many" } })
            }
            generated
                if generated
                    .strip_prefix("gen_")
                    .and_then(|n| n.parse::<usize>().ok())
                    .is_some_and(|n| n >= 1 && n <= self.inner.options.tool_count) =>
            {
                text_result(format!("{generated} ran with {args}"), false)
            }
            other => {
                return Err(McpError::invalid_params(
                    format!("no tool named \"{other}\""),
                    None,
                ));
            }
        };
        Ok(out)
    }

    async fn long_task(
        &self,
        args: &Value,
        ctx: RequestContext<RoleServer>,
    ) -> Result<Value, McpError> {
        let steps = args
            .get("steps")
            .and_then(Value::as_u64)
            .unwrap_or(10)
            .clamp(1, 1000);
        let step_ms = args
            .get("step_ms")
            .and_then(Value::as_u64)
            .unwrap_or(500)
            .min(60_000);
        let token = ctx.meta.get_progress_token();
        for step in 1..=steps {
            tokio::select! {
                _ = ctx.ct.cancelled() => {
                    eprintln!("demo server: long_task cancelled at step {step}/{steps}");
                    return Err(McpError::internal_error("cancelled", None));
                }
                _ = tokio::time::sleep(Duration::from_millis(step_ms)) => {}
            }
            if let Some(token) = &token {
                let param = from_json::<ProgressNotificationParam>(json!({
                    "progressToken": token, "progress": step, "total": steps, "message": format!("step {step} of {steps}")
                }))?;
                let _ = ctx.peer.notify_progress(param).await;
            }
        }
        Ok(text_result(format!("done after {steps} steps"), false))
    }
}
