//! The person at the terminal: stdin read line by line by one thread for
//! the whole run (the chat loop, approvals and sampling prompts take turns
//! reading it), and questions asked on stderr so stdout stays the answer.
//! Also what servers ask headless: sampling (`--sampling`) answered by the
//! model, asked on the terminal, or refused; elicitation (`--elicitation`)
//! declined, accepted with the schema's defaults (SEP-1034), or asked on the
//! terminal field by field.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::sync::{Mutex, mpsc};
use tokio_util::sync::{CancellationToken, DropGuard};
use workbench_app::Workbench;
use workbench_app::asks::{self, Answer, AskKind, PendingAsk};
use workbench_app::chat::Agent;
use workbench_app::providers;
use workbench_app::servers::{self, Event};

/// Lines typed at the terminal.
pub struct Terminal {
    lines: Mutex<mpsc::UnboundedReceiver<String>>,
}

/// Whether a person is at the terminal (stdin and stderr are terminals).
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

impl Terminal {
    /// Start reading stdin (a thread that ends with it).
    pub fn start() -> Arc<Terminal> {
        let (tx, rx) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            let stdin = std::io::stdin();
            for line in stdin.lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Arc::new(Terminal {
            lines: Mutex::new(rx),
        })
    }

    /// Ask on stderr and wait for a line (None: stdin ended).
    pub async fn ask(&self, prompt: &str) -> Option<String> {
        let mut lines = self.lines.lock().await;
        let mut err = std::io::stderr();
        let _ = write!(err, "{prompt}");
        let _ = err.flush();
        lines.recv().await
    }
}

/// What `--sampling` says about servers' requests for an LLM answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Sampling {
    /// Ask the person on the terminal (request and reply, each editable).
    Ask,
    /// Let the configured model answer without asking.
    Auto,
    /// Refuse (the default; the capability is not even advertised).
    Refuse,
}

/// What `--elicitation` says about servers' requests for input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Elicitation {
    /// Decline (the default; the capability is not advertised).
    Decline,
    /// Accept with the defaults the requested schema gives (SEP-1034);
    /// fields without a default are left out.
    Defaults,
    /// Ask the person on the terminal, field by field.
    Ask,
}

/// An accepting answer carrying each property's `default` (form mode); a
/// URL-mode request is declined (nobody opens the page).
pub fn defaults_answer(params: &Value) -> Value {
    if params["mode"] == "url" {
        return json!({ "action": "decline" });
    }
    let mut content = serde_json::Map::new();
    for (name, prop) in params["requestedSchema"]["properties"]
        .as_object()
        .into_iter()
        .flatten()
    {
        if let Some(d) = prop.get("default") {
            content.insert(name.clone(), d.clone());
        }
    }
    json!({ "action": "accept", "content": content })
}

/// One typed answer as the property's type wants it (None: not valid).
fn typed(prop: &Value, text: &str) -> Option<Value> {
    let kind = prop["type"].as_str().unwrap_or("string");
    match kind {
        "integer" => text.parse::<i64>().ok().map(Value::from),
        "number" => text.parse::<f64>().ok().map(Value::from),
        "boolean" => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Some(Value::Bool(true)),
            "n" | "no" | "false" => Some(Value::Bool(false)),
            _ => None,
        },
        "array" => Some(Value::from(
            text.split(',')
                .map(|t| Value::from(t.trim()))
                .collect::<Vec<_>>(),
        )),
        _ => Some(Value::from(text)),
    }
}

/// Ask the person for each field of an elicitation (or to open its URL).
async fn ask_elicitation(terminal: &Terminal, ask: &PendingAsk) -> Answer {
    let p = &ask.params;
    let message = crate::print::clean(p["message"].as_str().unwrap_or(""));
    eprintln!("{} asks for input: {message}", ask.server);
    if p["mode"] == "url" {
        eprintln!(
            "  open: {}",
            crate::print::clean(p["url"].as_str().unwrap_or(""))
        );
        let done = terminal.ask("Done there? [y/N] ").await;
        let action = match done.as_deref().map(str::trim) {
            Some("y" | "yes") => "accept",
            _ => "decline",
        };
        return Answer::Result(json!({ "action": action }));
    }
    let schema = &p["requestedSchema"];
    let required: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let mut content = serde_json::Map::new();
    for (name, prop) in schema["properties"].as_object().into_iter().flatten() {
        let title = crate::print::clean(prop["title"].as_str().unwrap_or(name));
        let options: Vec<&str> = prop["enum"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut prompt = format!("  {title} ({})", prop["type"].as_str().unwrap_or("string"));
        if !options.is_empty() {
            prompt.push_str(&format!(
                " one of {}",
                crate::print::clean(&options.join("|"))
            ));
        }
        if let Some(d) = prop.get("default") {
            prompt.push_str(&format!(" [{}]", crate::print::clean(&d.to_string())));
        }
        if required.contains(&name.as_str()) {
            prompt.push_str(" *");
        }
        loop {
            let Some(line) = terminal.ask(&format!("{prompt}: ")).await else {
                return Answer::Result(json!({ "action": "cancel" }));
            };
            let line = line.trim();
            if line.is_empty() {
                if let Some(d) = prop.get("default") {
                    content.insert(name.clone(), d.clone());
                }
                break;
            }
            match typed(prop, line) {
                Some(v) if options.is_empty() || options.contains(&line) => {
                    content.insert(name.clone(), v);
                    break;
                }
                _ => eprintln!("  that is not a valid {title}"),
            }
        }
    }
    match terminal
        .ask("Send? [Y]es / [d]ecline / [c]ancel: ")
        .await
        .as_deref()
        .map(str::trim)
    {
        Some("" | "y" | "yes" | "Y") => {
            Answer::Result(json!({ "action": "accept", "content": content }))
        }
        Some("d" | "decline") => Answer::Result(json!({ "action": "decline" })),
        _ => Answer::Result(json!({ "action": "cancel" })),
    }
}

/// A sampling request in a few lines.
fn describe_sampling(ask: &PendingAsk) -> String {
    let p = &ask.params;
    let mut out = format!("{} asks for an LLM answer (sampling):\n", ask.server);
    if let Some(system) = p["systemPrompt"].as_str() {
        out.push_str(&format!("  system: {}\n", crate::print::clean(system)));
    }
    for m in p["messages"].as_array().into_iter().flatten() {
        let text = match &m["content"] {
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join(" "),
            one => one["text"]
                .as_str()
                .unwrap_or("[non-text content]")
                .to_string(),
        };
        out.push_str(&format!(
            "  {}: {}\n",
            m["role"].as_str().unwrap_or("user"),
            crate::print::clean(&text)
        ));
    }
    if let Some(n) = p["maxTokens"].as_u64() {
        out.push_str(&format!("  max tokens: {n}\n"));
    }
    out
}

/// Put a sampling request to the person: approve (or edit) the request,
/// then the reply.
async fn ask_sampling(agent: &Agent, terminal: &Terminal, ask: &PendingAsk) -> Answer {
    eprint!("{}", describe_sampling(ask));
    // Which configured model its preferences choose, and why.
    if let Ok(choice) = providers::sampling_model(agent, &ask.params) {
        eprintln!(
            "  the model: {}:{} ({})",
            choice.provider,
            choice.model,
            crate::print::clean(&choice.why)
        );
    }
    let mut params = ask.params.clone();
    loop {
        match terminal
            .ask("Answer it with the model? [y]es, [n]o, [e]dit the last message: ")
            .await
            .as_deref()
            .map(str::trim)
        {
            Some("y" | "yes") => break,
            Some("e" | "edit") => {
                let Some(text) = terminal.ask("New text of the last message: ").await else {
                    return Answer::Refuse("the person left".into());
                };
                if let Some(last) = params["messages"].as_array_mut().and_then(|m| m.last_mut()) {
                    last["content"] = json!({ "type": "text", "text": text });
                }
            }
            Some(_) | None => return Answer::Refuse("the person refused the request".into()),
        }
    }
    let mut reply = match providers::sample(agent, &params).await {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpwb: the model could not answer: {e}");
            return Answer::Refuse(e.to_string());
        }
    };
    loop {
        let text = reply["content"]["text"].as_str().map(str::to_string);
        eprintln!(
            "The model ({}) replied: {}",
            reply["model"].as_str().unwrap_or("?"),
            text.as_deref()
                .map(crate::print::clean)
                .unwrap_or_else(|| reply["content"].to_string())
        );
        match terminal
            .ask("Send this reply to the server? [y]es, [n]o, [e]dit: ")
            .await
            .as_deref()
            .map(str::trim)
        {
            Some("y" | "yes") => return Answer::Result(reply),
            Some("e" | "edit") => {
                let Some(text) = terminal.ask("Reply text: ").await else {
                    return Answer::Refuse("the person left".into());
                };
                reply["content"] = json!({ "type": "text", "text": text });
            }
            Some(_) | None => return Answer::Refuse("the person refused the reply".into()),
        }
    }
}

/// Answer what servers ask while the command runs. Dropping the guard stops it.
pub fn serve_asks(
    wb: &Workbench,
    agent: Option<Agent>,
    (sampling, elicitation): (Sampling, Elicitation),
    terminal: Option<Arc<Terminal>>,
) -> DropGuard {
    let token = CancellationToken::new();
    let stop = token.clone();
    let wb = wb.clone();
    let mut events = servers::events(&wb);
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                _ = stop.cancelled() => return,
                e = events.recv() => e,
            };
            let ask = match event {
                Ok(Event::Ask { ask }) => ask,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => return,
            };
            let answer = match (ask.kind, sampling, &agent, &terminal) {
                (AskKind::Elicitation, ..) => match (elicitation, &terminal) {
                    (Elicitation::Defaults, _) => Answer::Result(defaults_answer(&ask.params)),
                    (Elicitation::Ask, Some(terminal)) => ask_elicitation(terminal, &ask).await,
                    _ => Answer::Result(json!({ "action": "decline" })),
                },
                (AskKind::Sampling, Sampling::Auto, Some(agent), _) => {
                    match providers::sample(agent, &ask.params).await {
                        Ok(r) => Answer::Result(r),
                        Err(e) => {
                            eprintln!(
                                "mcpwb: {} asked for an LLM answer and the model failed: {e}",
                                ask.server
                            );
                            Answer::Refuse(e.to_string())
                        }
                    }
                }
                (AskKind::Sampling, Sampling::Ask, Some(agent), Some(terminal)) => {
                    ask_sampling(agent, terminal, &ask).await
                }
                _ => Answer::Refuse("sampling is refused (mcpwb --sampling refuse)".into()),
            };
            let _ = asks::reply(&wb, ask.id, answer);
        }
    });
    token.drop_guard()
}
