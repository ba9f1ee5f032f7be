//! What a message is (request, response, error, notification, or not a
//! JSON-RPC message at all), read from its text without building a value: a
//! 20 MB result is skimmed, not copied into a tree.

use std::borrow::Cow;

use serde::de::{Deserializer as _, Error as _, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::MessageKind;

/// What the log files a message as.
pub(super) struct Classified<'a> {
    pub kind: MessageKind,
    pub method: Option<Cow<'a, str>>,
    pub id: Option<String>,
    /// For `notifications/progress`: the progress token, as JSON text.
    pub progress_token: Option<String>,
}

/// The top-level members the log needs, borrowed from the text (`id` and
/// `params` as their JSON text).
#[derive(Default)]
pub(super) struct Head<'a> {
    pub method: Option<Cow<'a, str>>,
    pub id: Option<&'a str>,
    pub params: Option<&'a str>,
    pub result: bool,
    pub error: bool,
}

impl Head<'_> {
    /// Whether what follows can no longer change what the message is.
    fn decided(&self) -> bool {
        self.id.is_some() && (self.method.is_some() || self.result || self.error)
    }
}

/// Reads the members of the message object into `head`. With `stop_early`,
/// it stops once the kind is decided: the rest is not read at all.
struct Scan<'h, 'a> {
    head: &'h mut Head<'a>,
    stop_early: bool,
}

/// The marker error that ends an early stop (never shown).
const STOPPED: &str = "stopped: decided";

impl<'de> Visitor<'de> for Scan<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON-RPC message object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                "method" => self.head.method = Some(map.next_value()?),
                "id" => self.head.id = Some(map.next_value::<&RawValue>()?.get()),
                "params" => self.head.params = Some(map.next_value::<&RawValue>()?.get()),
                "result" => {
                    map.next_value::<IgnoredAny>()?;
                    self.head.result = true;
                }
                "error" => {
                    map.next_value::<IgnoredAny>()?;
                    self.head.error = true;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            if self.stop_early && self.head.decided() {
                return Err(A::Error::custom(STOPPED));
            }
        }
        Ok(())
    }
}

/// The `progressToken` of a progress notification's params, as JSON text.
fn progress_token(params: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow, rename = "progressToken")]
        token: &'a RawValue,
    }
    serde_json::from_str::<Params<'_>>(params)
        .ok()
        .map(|p| p.token.get().to_string())
}

fn skip_ws(b: &[u8], i: &mut usize) {
    while b.get(*i).is_some_and(u8::is_ascii_whitespace) {
        *i += 1;
    }
}

fn expect(b: &[u8], i: &mut usize, c: u8) -> Option<()> {
    skip_ws(b, i);
    (b.get(*i) == Some(&c)).then(|| *i += 1)
}

/// A string without escapes, its contents.
fn plain_string<'a>(text: &'a str, i: &mut usize) -> Option<&'a str> {
    let b = text.as_bytes();
    expect(b, i, b'"')?;
    let end = *i + memchr::memchr(b'"', &b[*i..])?;
    let s = &text[*i..end];
    if s.contains('\\') {
        return None;
    }
    *i = end + 1;
    Some(s)
}

/// An id: a plain string (with its quotes) or a number, as JSON text.
fn plain_id<'a>(text: &'a str, i: &mut usize) -> Option<&'a str> {
    let b = text.as_bytes();
    skip_ws(b, i);
    let start = *i;
    if b.get(*i) == Some(&b'"') {
        plain_string(text, i)?;
    } else {
        while b.get(*i).is_some_and(|c| c.is_ascii_digit() || *c == b'-') {
            *i += 1;
        }
    }
    (*i > start).then(|| &text[start..*i])
}

/// The kind of a message this process wrote, from its first members and
/// without the serde machinery: rmcp writes `jsonrpc`, then `id`, then
/// `method`, `result` or `error`, without escapes in them. None when the text
/// is shaped any other way; it is then read the general way.
fn quick(text: &str) -> Option<Classified<'_>> {
    let b = text.as_bytes();
    let mut i = 0;
    expect(b, &mut i, b'{')?;
    let (mut method, mut id) = (None, None);
    for n in 0..3 {
        if n > 0 {
            expect(b, &mut i, b',')?;
        }
        let key = plain_string(text, &mut i)?;
        expect(b, &mut i, b':')?;
        let kind = match key {
            "jsonrpc" => {
                plain_string(text, &mut i)?;
                continue;
            }
            "id" => {
                id = Some(plain_id(text, &mut i)?);
                continue;
            }
            "method" => {
                method = Some(plain_string(text, &mut i)?);
                MessageKind::Request
            }
            "result" => MessageKind::Response,
            "error" => MessageKind::Error,
            _ => return None,
        };
        // Decided only once the id is known (and it is not null).
        let id = id.filter(|id| *id != "null")?;
        return Some(Classified {
            kind,
            method: method.map(Cow::Borrowed),
            id: Some(id.to_string()),
            progress_token: None,
        });
    }
    None
}

/// Not JSON, or a batch or a bare value: kept, called by what it is not.
fn invalid<'a>() -> Classified<'a> {
    Classified {
        kind: MessageKind::Invalid,
        method: None,
        id: None,
        progress_token: None,
    }
}

/// The members read with serde_json: what `scan` leaves (escaped member
/// names or method, nesting past its depth). None: not one JSON object.
fn general(text: &str, stop_early: bool) -> Option<Head<'_>> {
    let mut head = Head::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let read = de
        .deserialize_map(Scan {
            head: &mut head,
            stop_early,
        })
        .and_then(|()| de.end());
    (read.is_ok() || (stop_early && head.decided())).then_some(head)
}

/// A string, or an integer (JSON text, no fraction or exponent).
fn valid_id(id: &str) -> bool {
    id.starts_with('"')
        || (!id.is_empty()
            && id
                .strip_prefix('-')
                .unwrap_or(id)
                .bytes()
                .all(|b| b.is_ascii_digit()))
}

/// File one message. `written_by_us`: the text was serialized by this
/// process (what the client sends), so it is valid JSON and reading can stop
/// as soon as the kind is known (a request's params, often the larger part,
/// are then not read). What a server sends is read whole: a line that is
/// not valid JSON is `Invalid`, whatever it starts with.
pub(super) fn classify(text: &str, written_by_us: bool) -> Classified<'_> {
    if written_by_us && let Some(c) = quick(text) {
        return c;
    }
    let head = match super::scan::read(text) {
        super::scan::Read::Message(head) => head,
        super::scan::Read::NotJson => return invalid(),
        super::scan::Read::Unsure => match general(text, written_by_us) {
            Some(head) => head,
            None => return invalid(),
        },
    };
    let method = head.method;
    let id = head.id.filter(|id| *id != "null").map(str::to_string);
    // MCP ids are strings or integers: anything else (1.5, true, {}) is
    // not a message rmcp could answer by id, and it would answer each with
    // an error of its own — a flood of them, from a server that does not
    // read meanwhile, would block the connection. Such lines are withheld.
    if id.as_deref().is_some_and(|id| !valid_id(id)) {
        return invalid();
    }
    let kind = match (&method, &id) {
        (Some(_), Some(_)) => MessageKind::Request,
        (Some(_), None) => MessageKind::Notification,
        (None, Some(_)) if head.error => MessageKind::Error,
        (None, Some(_)) => MessageKind::Response,
        (None, None) => MessageKind::Invalid,
    };
    let progress_token = match (kind, method.as_deref(), head.params) {
        (MessageKind::Notification, Some("notifications/progress"), Some(params)) => {
            progress_token(params)
        }
        _ => None,
    };
    Classified {
        kind,
        method,
        id,
        progress_token,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_written_here_is_filed_without_reading_its_params() {
        // The params are cut short: read whole, this would be invalid.
        let c = classify(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"na"#,
            true,
        );
        assert_eq!(c.kind, MessageKind::Request);
        assert_eq!(c.method.as_deref(), Some("tools/call"));
        assert_eq!(c.id.as_deref(), Some("3"));
        // The same text from a server is not a message.
        let c = classify(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"na"#,
            false,
        );
        assert_eq!(c.kind, MessageKind::Invalid);
    }

    #[test]
    fn an_id_that_is_not_a_string_or_an_integer_makes_the_line_invalid() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"result":{}}"#,
        ] {
            assert_eq!(classify(text, false).kind, MessageKind::Invalid, "{text}");
        }
        for text in [
            r#"{"jsonrpc":"2.0","id":-15,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"1.5","method":"ping"}"#,
        ] {
            assert_eq!(classify(text, false).kind, MessageKind::Request, "{text}");
        }
    }

    #[test]
    fn the_quick_reading_agrees_with_the_general_one() {
        let texts = [
            r#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"x"}}"#,
            r#"{"jsonrpc":"2.0","id":"a-1","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":-3,"result":{"roots":[]}}"#,
            r#"{"jsonrpc":"2.0","id":4,"error":{"code":-1,"message":"no"}}"#,
            r#"{ "jsonrpc" : "2.0" , "id" : 5 , "method" : "a/b" }"#,
            // Shapes it leaves to the general reading:
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"m"}}"#,
            r#"{"method":"x","id":6,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","id":"a"b","method":"m"}"#,
            r#"{"result":{},"jsonrpc":"2.0","id":7}"#,
        ];
        for text in texts {
            let quick = classify(text, true);
            let whole = classify(text, false);
            assert_eq!(quick.kind, whole.kind, "{text}");
            assert_eq!(quick.method, whole.method, "{text}");
            assert_eq!(quick.id, whole.id, "{text}");
        }
        assert!(quick(texts[0]).is_some() && quick(texts[3]).is_some());
        assert!(quick(texts[5]).is_none() && quick(texts[6]).is_none());
    }

    #[test]
    fn members_in_any_order_and_escaped_keys_are_read() {
        let c = classify(
            r#"{"result":{"x":[1,{"id":9}]},"jsonrpc":"2.0","\u0069d":"a"}"#,
            false,
        );
        assert_eq!(c.kind, MessageKind::Response);
        assert_eq!(c.id.as_deref(), Some("\"a\""));
        let c = classify(
            r#"{"params":{"progressToken":"t1","progress":2},"method":"notifications/progress","jsonrpc":"2.0"}"#,
            false,
        );
        assert_eq!(c.kind, MessageKind::Notification);
        assert_eq!(c.progress_token.as_deref(), Some("\"t1\""));
        let c = classify(
            r#"{"jsonrpc":"2.0","error":{"code":1,"message":"m"},"id":4}"#,
            true,
        );
        assert_eq!(c.kind, MessageKind::Error);
    }

    #[test]
    fn not_messages() {
        for text in [
            "",
            "Starting...",
            "[1,2]",
            "7",
            r#"{"neither":"is this"}"#,
            r#"{"id":1} x"#,
        ] {
            assert_eq!(classify(text, false).kind, MessageKind::Invalid, "{text}");
        }
        // A notification has no id to decide by: read whole even when written here.
        assert_eq!(
            classify(r#"{"jsonrpc":"2.0","method":"n","params":{"#, true).kind,
            MessageKind::Invalid
        );
    }
}
