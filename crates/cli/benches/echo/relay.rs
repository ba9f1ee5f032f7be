//! The floor of a hop that sleeps: a bare relay that passes bytes and does
//! nothing else, each direction a thread blocked in `read` between
//! messages, run as its own process (the bench binary again, asked by
//! `MCPWB_BENCH_RELAY`). A path of ours (the bridge, the tap) is set against
//! it as well as against going straight: going straight has one hop fewer.
//! (The stdio tap beats it by staying awake between close messages:
//! `crates/awake`.)
//!
//! - `stdio -- COMMAND…`: COMMAND as a child; stdin to its stdin and its
//!   stdout to stdout, two threads copying as bytes come.
//! - `http URL`: a reverse proxy on 127.0.0.1 (its address the first line
//!   on stdout) passing each request to URL's origin on kept connections,
//!   a request read whole, an answer streamed.

use std::io::Write;
use std::process::Stdio;

const ASKED: &str = "MCPWB_BENCH_RELAY";

/// Be the relay and exit, when this process was started as one.
pub fn run_if_asked() {
    let Ok(kind) = std::env::var(ASKED) else {
        return;
    };
    let args: Vec<String> = std::env::args().skip_while(|a| a != "--").skip(1).collect();
    match kind.as_str() {
        "stdio" => stdio(&args),
        "http" => http(&args[0]),
        other => panic!("{ASKED}={other}: stdio or http"),
    }
    std::process::exit(0)
}

/// The command line that runs `command` behind a stdio relay.
pub fn stdio_command(command: &std::path::Path) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(std::env::current_exe().unwrap());
    c.env(ASKED, "stdio").arg("--").arg(command);
    c
}

/// A reverse proxy to `url` (the child, to kill) and its own URL for `path`.
pub async fn http_relay(url: &str, path: &str) -> (tokio::process::Child, String) {
    let mut relay = tokio::process::Command::new(std::env::current_exe().unwrap());
    relay
        .env(ASKED, "http")
        .arg("--")
        .arg(url)
        .kill_on_drop(true);
    let (child, first) = first_line(relay).await;
    (child, format!("http://{}{path}", first.trim()))
}

/// `command` started (its stdout piped) and the first line it prints: the
/// address a proxy listens on.
pub async fn first_line(mut command: tokio::process::Command) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = command.stdout(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    tokio::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .await
        .unwrap();
    (child, first)
}

fn stdio(command: &[String]) {
    let mut child = std::process::Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut to_child = child.stdin.take().unwrap();
    let mut from_child = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut to_child);
    });
    let mut out = std::io::stdout().lock();
    let _ = std::io::copy(&mut from_child, &mut out);
    let _ = out.flush();
    let _ = child.wait();
}

#[tokio::main]
async fn http(url: &str) {
    use axum::body::Body;
    use axum::extract::{Request, State};
    use axum::response::Response;
    let origin = reqwest::Url::parse(url)
        .unwrap()
        .origin()
        .ascii_serialization();
    let client = workbench_http::builder()
        .no_proxy()
        .tcp_nodelay(true)
        .build()
        .unwrap();
    let pass = |(client, origin): (reqwest::Client, String), request: Request| async move {
        let (parts, body) = request.into_parts();
        let mut headers = parts.headers.clone();
        headers.remove(axum::http::header::HOST);
        // A request is read whole and sent with its length (a chunked one
        // costs the server more); the answer streams.
        let body = axum::body::to_bytes(body, usize::MAX)
            .await
            .unwrap_or_default();
        let sent = client
            .request(parts.method, format!("{origin}{}", parts.uri))
            .headers(headers)
            .body(body)
            .send()
            .await;
        // The server gone (the bench ending): a 502, as any proxy says.
        let Ok(sent) = sent else {
            let mut gone = Response::new(Body::empty());
            *gone.status_mut() = axum::http::StatusCode::BAD_GATEWAY;
            return gone;
        };
        let mut answer = Response::builder().status(sent.status());
        for (name, value) in sent.headers() {
            if name != axum::http::header::TRANSFER_ENCODING {
                answer = answer.header(name, value);
            }
        }
        answer.body(Body::from_stream(sent.bytes_stream())).unwrap()
    };
    let router = axum::Router::new()
        .fallback(move |State(s): State<(reqwest::Client, String)>, r| pass(s, r))
        .with_state((client, origin));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    println!("{}", listener.local_addr().unwrap());
    use axum::serve::ListenerExt;
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await.unwrap();
}
