//! The scripted LLM server as a program, for end-to-end tests of the window
//! and `mcpwb chat`: `scripted-llm --script turns.json [--listen 127.0.0.1:0]`.
//! Prints `listening on http://ADDR` once it accepts requests; runs until
//! killed. The script is `{"turns": [...]}` (see `workbench_testkit::llm::Turn`).

use clap::Parser;
use serde::Deserialize;
use workbench_testkit::llm::{ScriptedLlm, Turn};

#[derive(Parser)]
struct Args {
    /// A JSON file: {"turns": [{"text": ..., "tool_calls": [...], "fault": ...}, ...]}.
    #[arg(long)]
    script: std::path::PathBuf,
    /// Where to listen (loopback only in every test).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
}

#[derive(Deserialize)]
struct Script {
    turns: Vec<Turn>,
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let text = match std::fs::read_to_string(&args.script) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("scripted-llm: {}: {e}", args.script.display());
            std::process::exit(2);
        }
    };
    let script: Script = match serde_json::from_str(&text) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scripted-llm: {}: {e}", args.script.display());
            std::process::exit(2);
        }
    };
    let server = match ScriptedLlm::start(&args.listen, script.turns).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("scripted-llm: cannot listen on {}: {e}", args.listen);
            std::process::exit(1);
        }
    };
    println!("listening on http://{}", server.addr);
    let _ = tokio::signal::ctrl_c().await;
}
