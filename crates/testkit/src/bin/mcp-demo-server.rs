//! The MCP Workbench demo server. Over stdio by default; `--http ADDR` serves
//! Streamable HTTP instead. `--fault MODE` makes it misbehave for fault tests.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use rmcp::ServiceExt;
use tokio_util::sync::CancellationToken;
use workbench_testkit::Fault;
use workbench_testkit::demo::{DemoOptions, DemoServer};

#[derive(Parser, Debug)]
#[command(name = "mcp-demo-server", about = "The MCP Workbench demo server")]
struct Args {
    /// Reported as serverInfo.name.
    #[arg(long, default_value = "mcp-demo-server")]
    name: String,
    /// Serve Streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio.
    #[arg(long)]
    http: Option<SocketAddr>,
    /// Serve the legacy HTTP+SSE transport (GET /sse, POST /messages) on this address.
    #[arg(long, conflicts_with = "http")]
    sse: Option<SocketAddr>,
    /// Require `Authorization: Bearer TOKEN` on every HTTP request.
    #[arg(long)]
    token: Option<String>,
    /// With --http: be its own OAuth authorization server and take only
    /// the access tokens it issued (sign-in tests).
    #[arg(long, requires = "http")]
    oauth: bool,
    /// With --oauth: tools/call needs a token granted this scope; others
    /// get 403 insufficient_scope naming it (step-up tests).
    #[arg(long, requires = "oauth")]
    oauth_call_scope: Option<String>,
    /// Write the bound HTTP address to this file once listening.
    #[arg(long)]
    port_file: Option<PathBuf>,
    /// With --http: leave Nagle's algorithm on for the connections it
    /// accepts, as many servers do (an SSE answer's second write then waits
    /// for the client's delayed ACK: the doctor's http.nagle-stall).
    #[arg(long, requires = "http")]
    nagle: bool,
    /// Misbehave: exit-at-start, crash-on-call, hang-on-call, no-initialize,
    /// garbage-stdout, flood-stderr, huge-result, grandchild, drop-session,
    /// bad-stderr, huge-stderr-line, tell-secrets. Hand-written servers over
    /// stdio: ping-flood, giant-result, future-fields, endless-pages,
    /// list-changed-flood, duplicate-tools, hinted (a tool of every hint,
    /// calls written to $MCP_DEMO_CALLS), repeated-cursor, lying-skills.
    /// The demo with lists that lie about their freshness: lying-cache.
    /// One tool call at a time, 20 ms each (load runs): serial.
    /// Planted for the
    /// doctor: doctor-names, doctor-schemas, doctor-texts, doctor-listings,
    /// doctor-behaviour.
    #[arg(long)]
    fault: Option<Fault>,
    /// Paginate tools, resources, templates and prompts in pages of this size.
    #[arg(long)]
    page_size: Option<usize>,
    /// Wait this long before serving (a server that takes time to start, like npx).
    #[arg(long, default_value_t = 0)]
    startup_delay_ms: u64,
    /// With --startup-delay-ms: wait only when this file does not exist
    /// yet, and create it (the first start of a server uvx or npx fetches).
    #[arg(long, requires = "startup_delay_ms")]
    delay_once: Option<PathBuf>,
    /// Speak only the initialize era (2025-11-25 and older): no server/discover.
    #[arg(long)]
    legacy: bool,
    /// Over stdio, speak only the 2026-07-28 era: initialize is refused
    /// (-32022, naming the versions it speaks).
    #[arg(long, conflicts_with_all = ["legacy", "http", "sse", "fault"])]
    modern_only: bool,
    /// Speak the 2025-11-25 form of tasks (a hand-written stdio server with
    /// the demo's task tools; rmcp speaks only the 2026-07-28 extension).
    #[arg(long, conflicts_with_all = ["http", "sse", "fault"])]
    tasks_2025: bool,
    /// Also offer the fixtures the MCP conformance suite's server scenarios
    /// call (test_simple_text, test://static-text, test_simple_prompt, ...).
    #[arg(long)]
    conformance: bool,
    /// Serve the skills in this folder (each subfolder with a SKILL.md);
    /// the demo's own by default.
    #[arg(long)]
    skills: Option<PathBuf>,
    /// Say (2026-07-28) that lists stay fresh this many milliseconds and are
    /// the same for every caller (`cacheScope: public`); by default `ttlMs`
    /// 0 and `private`.
    #[arg(long)]
    cache_ttl: Option<u64>,
    /// Offer this many generated tools besides the real ones (scale tests).
    #[arg(long, default_value_t = 0)]
    tool_count: usize,
    /// With --http: answer with JSON bodies instead of SSE streams, each
    /// message carrying an extension field (`x-demo-trace`).
    #[arg(long, requires = "http")]
    json_response: bool,
    /// With --http: serve HTTPS with a fresh certificate and write the CA
    /// that signed it (PEM) to this file.
    #[arg(long, requires = "http")]
    tls_ca_out: Option<PathBuf>,
    /// With --http: append each request's method and Mcp-Session-Id to
    /// this file, a line each.
    #[arg(long, requires = "http")]
    requests_log: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.fault == Some(Fault::ExitAtStart) {
        eprintln!("demo server: exiting at start on purpose (fault exit-at-start)");
        return ExitCode::from(3);
    }
    // The hand-written servers: the planted ones for the doctor, and the
    // ones sending what no MCP library would.
    let hand_written = match args.fault {
        Some(
            f @ (Fault::DoctorNames
            | Fault::DoctorSchemas
            | Fault::DoctorTexts
            | Fault::DoctorListings
            | Fault::DoctorBehaviour),
        ) => Some(workbench_testkit::planted::serve(f)),
        Some(
            f @ (Fault::PingFlood
            | Fault::GiantResult
            | Fault::FutureFields
            | Fault::EndlessPages
            | Fault::ListChangedFlood
            | Fault::DuplicateTools
            | Fault::Hinted
            | Fault::RepeatedCursor
            | Fault::LyingSkills),
        ) => Some(workbench_testkit::raw::serve(f)),
        _ if args.tasks_2025 => Some(workbench_testkit::tasks2025::serve()),
        _ => None,
    };
    if let Some(served) = hand_written {
        return match served {
            Ok(()) => ExitCode::SUCCESS,
            // The client hung up on what it was sent: that is the point.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("demo server: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("demo server: cannot start a runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let served = runtime.block_on(serve(args));
    // Told to stop (SIGTERM, Ctrl-C) while its client keeps stdin open: the
    // read of stdin never ends, and a runtime's drop would wait for it. What
    // the server had to finish, it finished inside `serve`.
    runtime.shutdown_background();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo server: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: Args) -> Result<(), Box<dyn std::error::Error>> {
    let options = DemoOptions {
        name: args.name.clone(),
        fault: args.fault,
        page_size: args.page_size,
        legacy: args.legacy,
        tool_count: args.tool_count,
        conformance: args.conformance,
        skills: args.skills.clone(),
        cache_ttl: args.cache_ttl,
    };
    match args.fault {
        Some(Fault::FloodStderr) => {
            std::thread::spawn(|| {
                let mut n = 0u64;
                let stderr = std::io::stderr();
                loop {
                    n += 1;
                    if writeln!(
                        stderr.lock(),
                        "demo server: flood line {n} {}",
                        "~".repeat(60)
                    )
                    .is_err()
                    {
                        return;
                    }
                    if n.is_multiple_of(200) {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            });
        }
        Some(Fault::BadStderr) => {
            let mut e = std::io::stderr().lock();
            e.write_all(b"demo server: \xff\xfe not utf-8 \xc3\n")?;
            e.write_all(b"demo server: after the bad bytes, all is well\n")?;
        }
        Some(Fault::HugeStderrLine) => {
            std::thread::spawn(|| {
                let block = vec![b'x'; 1 << 20];
                let mut e = std::io::stderr().lock();
                for _ in 0..1024 {
                    if e.write_all(&block).is_err() {
                        return;
                    }
                }
                let _ = e.write_all(b"\ndemo server: the huge line has ended\n");
            });
        }
        Some(Fault::TellSecrets) => eprintln!("demo server: {}", workbench_testkit::fault::told()),
        Some(Fault::Grandchild) => {
            let child = std::process::Command::new("sleep").arg("3600").spawn()?;
            eprintln!("demo server: started grandchild pid {}", child.id());
            std::mem::forget(child);
        }
        _ => {}
    }
    let first_start = args.delay_once.as_ref().is_none_or(|marker| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(marker)
            .is_ok()
    });
    if args.startup_delay_ms > 0 && first_start {
        tokio::time::sleep(Duration::from_millis(args.startup_delay_ms)).await;
    }
    let ct = CancellationToken::new();
    let stop = ct.clone();
    tokio::spawn(async move {
        shutdown_signal().await;
        stop.cancel();
    });
    if let Some(addr) = args.sse {
        workbench_testkit::sse::serve(addr, options, args.port_file, ct).await?;
        return Ok(());
    }
    if let Some(addr) = args.http {
        let http = workbench_testkit::http::HttpOptions {
            token: args.token,
            oauth: args.oauth,
            call_scope: args.oauth_call_scope,
            port_file: args.port_file,
            json_response: args.json_response,
            tls_ca_out: args.tls_ca_out,
            nagle: args.nagle,
            requests_log: args.requests_log,
        };
        workbench_testkit::http::serve(addr, options, http, ct).await?;
        return Ok(());
    }
    match args.fault {
        Some(Fault::NoInitialize) => {
            eprintln!("demo server: reading stdin and never answering (fault no-initialize)");
            let mut sink = tokio::io::sink();
            let mut stdin = tokio::io::stdin();
            tokio::select! {
                _ = tokio::io::copy(&mut stdin, &mut sink) => {}
                _ = ct.cancelled() => {}
            }
            return Ok(());
        }
        Some(Fault::GarbageStdout) => {
            let mut out = std::io::stdout().lock();
            writeln!(out, "this line is not JSON-RPC")?;
            writeln!(out, "{{\"neither\": \"is this\"}}")?;
            writeln!(out, "Starting server... done")?;
            out.flush()?;
        }
        _ => {}
    }
    let (legacy, modern_only) = (options.legacy, args.modern_only);
    let served = async {
        if legacy {
            let (read, write) = workbench_testkit::eras::stdio_without_discover();
            DemoServer::new(options).serve((read, write)).await
        } else if modern_only {
            let (read, write) = workbench_testkit::eras::stdio_modern_only();
            DemoServer::new(options).serve((read, write)).await
        } else {
            // Stdout through the wire patch: tools' `execution` in its place.
            DemoServer::new(options)
                .serve((tokio::io::stdin(), workbench_testkit::wire::stdout()))
                .await
        }
    };
    // Told to stop before its client's first request: stop.
    let served = tokio::select! {
        served = served => served,
        _ = ct.cancelled() => return Ok(()),
    };
    let running = match served {
        Ok(running) => running,
        // The client left before its first request (a probe, a cancelled
        // start): nothing went wrong here.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    tokio::select! {
        r = running.waiting() => { r?; }
        _ = ct.cancelled() => {}
    }
    Ok(())
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut term) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}
