//! A validating reader of a message's top level, without serde's visitor
//! machinery (several times cheaper per byte on what servers send): it checks
//! that the text is exactly one JSON object and notes its `method`, `id`,
//! `params`, `result` and `error`. What it cannot settle cheaply (escapes in
//! a member name or in the method) it leaves to the general reader.

use std::borrow::Cow;

use super::classify::Head;

pub(super) enum Read<'a> {
    Message(Head<'a>),
    /// Not one JSON object.
    NotJson,
    /// Valid or not, read it the general way.
    Unsure,
}

/// Nesting read here (recursively); deeper text goes to the general reader,
/// which keeps no stack per level.
const MAX_DEPTH: u32 = 128;

struct Cursor<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
    too_deep: bool,
}

impl<'a> Cursor<'a> {
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    /// Skip white space, then take `c` if it is next.
    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        let next = self.b.get(self.i) == Some(&c);
        if next {
            self.i += 1;
        }
        next
    }

    /// A string starting here: its contents, and whether it has escapes.
    fn string(&mut self) -> Option<(&'a str, bool)> {
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        self.i += 1;
        let start = self.i;
        let mut escaped = false;
        loop {
            let rest = &self.b[self.i..];
            let n = memchr::memchr2(b'"', b'\\', rest)?;
            if rest[..n].iter().any(|&c| c < 0x20) {
                return None;
            }
            self.i += n;
            if self.b[self.i] == b'"' {
                let s = &self.text[start..self.i];
                self.i += 1;
                return Some((s, escaped));
            }
            escaped = true;
            match self.b.get(self.i + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.i += 2,
                b'u' => {
                    let hex = self.b.get(self.i + 2..self.i + 6)?;
                    if !hex.iter().all(u8::is_ascii_hexdigit) {
                        return None;
                    }
                    self.i += 6;
                }
                _ => return None,
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Option<()> {
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match self.b.get(self.i)? {
            b'0' => self.i += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = self.b.get(self.i) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        let end = self.i + word.len();
        (self.b.get(self.i..end)? == word).then(|| self.i = end)
    }

    /// One value, whatever it is, checked and skipped.
    fn value(&mut self, depth: u32) -> Option<()> {
        self.ws();
        match *self.b.get(self.i)? {
            b'"' => self.string().map(|_| ()),
            b'{' => self.container(depth, b'}', true),
            b'[' => self.container(depth, b']', false),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// An object (`members`: name, colon, value) or an array, from its
    /// opening bracket to `close`.
    fn container(&mut self, depth: u32, close: u8, members: bool) -> Option<()> {
        if depth >= MAX_DEPTH {
            self.too_deep = true;
            return None;
        }
        self.i += 1;
        if self.eat(close) {
            return Some(());
        }
        loop {
            if members {
                self.ws();
                self.string()?;
                if !self.eat(b':') {
                    return None;
                }
            }
            self.value(depth + 1)?;
            if !self.eat(b',') {
                return self.eat(close).then_some(());
            }
        }
    }

    /// The value starting here (after white space), as its text.
    fn raw_value(&mut self) -> Option<&'a str> {
        self.ws();
        let start = self.i;
        self.value(1)?;
        Some(&self.text[start..self.i])
    }
}

/// Read `text` as one JSON object and note the members a message is told by.
pub(super) fn read(text: &str) -> Read<'_> {
    let mut c = Cursor {
        text,
        b: text.as_bytes(),
        i: 0,
        too_deep: false,
    };
    let mut head = Head::default();
    if !c.eat(b'{') {
        return Read::NotJson;
    }
    if !c.eat(b'}') {
        loop {
            c.ws();
            let Some((key, escaped)) = c.string() else {
                return Read::NotJson;
            };
            if escaped {
                return Read::Unsure;
            }
            if !c.eat(b':') {
                return Read::NotJson;
            }
            let ok = match key {
                "method" => {
                    c.ws();
                    match c.string() {
                        Some((_, true)) => return Read::Unsure,
                        Some((m, false)) => {
                            head.method = Some(Cow::Borrowed(m));
                            true
                        }
                        // A method that is not a string: not a message.
                        None => false,
                    }
                }
                "id" => c.raw_value().map(|v| head.id = Some(v)).is_some(),
                "params" => c.raw_value().map(|v| head.params = Some(v)).is_some(),
                "result" => c.value(1).map(|()| head.result = true).is_some(),
                "error" => c.value(1).map(|()| head.error = true).is_some(),
                _ => c.value(1).is_some(),
            };
            if !ok {
                return if c.too_deep {
                    Read::Unsure
                } else {
                    Read::NotJson
                };
            }
            if c.eat(b',') {
                continue;
            }
            if c.eat(b'}') {
                break;
            }
            return Read::NotJson;
        }
    }
    c.ws();
    if c.i != c.b.len() {
        return Read::NotJson;
    }
    Read::Message(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What serde_json says: one JSON object, or not.
    fn serde_says(text: &str) -> bool {
        text.trim_start().starts_with('{')
            && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    }

    const SEEDS: &[&str] = &[
        r#"{"jsonrpc":"2.0","id":314,"result":{"content":[{"type":"text","text":"m9"}],"isError":false}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5,"total":1e2}}"#,
        r#" { "result" : [ 1 , -2.5e-3 , true , false , null , "a\"b\\c\u00e9\n" ] , "id" : "x" } "#,
        r#"{"jsonrpc":"2.0","id":-0,"error":{"code":-32601,"message":"Method not found","data":{}}}"#,
        r#"{}"#,
        r#"{"a":{"b":{"c":[[[]]]}}}"#,
    ];

    /// A small deterministic generator (no extra dependency).
    fn next(state: &mut u64) -> u64 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *state >> 33
    }

    #[test]
    fn agrees_with_serde_json_on_what_is_one_json_object() {
        let fixed = [
            "",
            " ",
            "{",
            "}",
            "[]",
            "[{}]",
            "7",
            "\"s\"",
            "null",
            "{}x",
            "{} ",
            "{,}",
            r#"{"a":1,}"#,
            r#"{"a"}"#,
            r#"{"a":}"#,
            r#"{"a":01}"#,
            r#"{"a":1.}"#,
            r#"{"a":.5}"#,
            r#"{"a":1e}"#,
            r#"{"a":-}"#,
            r#"{"a":tru}"#,
            r#"{"a":"\x"}"#,
            r#"{"a":"\u12"}"#,
            "{\"a\":\"\t\"}",
            r#"{"a":[1,]}"#,
            r#"{"a":[,1]}"#,
            r#"{"a" "b"}"#,
            r#"{"a":1 "b":2}"#,
            r#"{'a':1}"#,
            r#"{"a":NaN}"#,
            r#"{"a":1}{"b":2}"#,
            r#"{"a":"é"}"#,
            "{\"a\":1}\r\n",
        ];
        let mut cases: Vec<String> = fixed.iter().map(|s| s.to_string()).collect();
        let mut rng = 42;
        let alphabet = b"{}[]:,\"\\ 0-1.eEtrufalsn\tx";
        for seed in SEEDS {
            cases.push(seed.to_string());
            for cut in 0..seed.len() {
                if seed.is_char_boundary(cut) {
                    cases.push(seed[..cut].to_string());
                }
            }
            for _ in 0..400 {
                let mut bytes = seed.as_bytes().to_vec();
                let at = next(&mut rng) as usize % bytes.len();
                let with = alphabet[next(&mut rng) as usize % alphabet.len()];
                match next(&mut rng) % 3 {
                    0 => bytes[at] = with,
                    1 => bytes.insert(at, with),
                    _ => {
                        bytes.remove(at);
                    }
                }
                if let Ok(text) = String::from_utf8(bytes) {
                    cases.push(text);
                }
            }
        }
        let deep_ok = format!("{{\"a\":{}1{}}}", "[".repeat(126), "]".repeat(126));
        let too_deep = format!("{{\"a\":{}1{}}}", "[".repeat(200), "]".repeat(200));
        cases.push(deep_ok);
        cases.push(too_deep);
        for text in &cases {
            let ours = match read(text) {
                Read::Message(_) => true,
                Read::NotJson => false,
                Read::Unsure => continue,
            };
            assert_eq!(ours, serde_says(text), "{text:?}");
        }
    }

    #[test]
    fn notes_the_members_a_message_is_told_by() {
        let Read::Message(head) = read(SEEDS[1]) else {
            panic!("a message")
        };
        assert_eq!(head.method.as_deref(), Some("notifications/progress"));
        assert_eq!(
            head.params,
            Some(r#"{"progressToken":7,"progress":0.5,"total":1e2}"#)
        );
        assert_eq!(head.id, None);
        let Read::Message(head) = read(SEEDS[2]) else {
            panic!("a message")
        };
        assert_eq!(head.id, Some("\"x\""));
        assert!(head.result && !head.error);
        // An escaped member name or method is left to the general reader.
        assert!(matches!(read(r#"{"\u0069d":1}"#), Read::Unsure));
        assert!(matches!(read(r#"{"method":"a\/b"}"#), Read::Unsure));
        // Nesting past the limit is left to the general reader (no stack
        // per level there): a hostile line cannot overflow this one's.
        let deep = format!(
            "{{\"id\":1,\"result\":{}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        assert!(matches!(read(&deep), Read::Unsure));
        let c = super::super::classify::classify(&deep, false);
        assert_eq!(c.kind, super::super::MessageKind::Response);
        // A method that is not a string is not a message.
        assert!(matches!(read(r#"{"method":5,"id":1}"#), Read::NotJson));
    }
}
