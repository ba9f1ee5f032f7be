//! One thing the doctor found: a stable code, how bad, exactly where, what
//! was seen, why it matters (who it breaks) and how to fix it.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable, dotted: `name.invalid-characters`, `schema.array-without-items`.
    pub code: String,
    pub severity: Severity,
    /// What it is about: `tool echo`, `prompt greet`, `server`.
    pub item: String,
    /// A JSON pointer into the item (empty: the item itself).
    pub pointer: String,
    /// What was seen, quoted.
    pub seen: String,
    /// Why it matters: which clients or providers it breaks.
    pub why: String,
    /// How to fix it.
    pub fix: String,
}

impl Finding {
    pub fn new(code: &str, severity: Severity, item: impl Into<String>) -> Finding {
        Finding {
            code: code.into(),
            severity,
            item: item.into(),
            pointer: String::new(),
            seen: String::new(),
            why: String::new(),
            fix: String::new(),
        }
    }

    pub fn at(mut self, pointer: impl Into<String>) -> Finding {
        self.pointer = pointer.into();
        self
    }

    pub fn seen(mut self, seen: impl Into<String>) -> Finding {
        self.seen = seen.into();
        self
    }

    pub fn why(mut self, why: impl Into<String>) -> Finding {
        self.why = why.into();
        self
    }

    pub fn fix(mut self, fix: impl Into<String>) -> Finding {
        self.fix = fix.into();
        self
    }
}

/// A JSON pointer segment.
pub fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A value quoted for `seen`, cut to a readable length.
pub fn quote(v: &serde_json::Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 160 {
        return text;
    }
    let cut: String = text.chars().take(157).collect();
    format!("{cut}…")
}
