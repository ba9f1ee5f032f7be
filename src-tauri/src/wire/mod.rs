//! The window's wire types: what the commands and events carry, with their
//! TypeScript bindings (`specta::Type`). The library crates know nothing of
//! the window; each type here mirrors one of theirs, field for field and
//! with the same serde attributes, so the JSON is the same, and converts
//! with `From` in the direction it crosses (out to the window, back from it).
//!
//! The conversions name every field, so a field added to a domain type does
//! not compile until the window's type says what it does with it.
//!
//! A command's body works with the domain's types and errors; [`out`] turns
//! its result into the wire's, by [`ToWire`] (each domain type names its
//! wire type once, with [`to_wire!`]).

pub mod agent;
pub mod app;
pub mod bridge;
pub mod calls;
pub mod codes;
pub mod config;
pub mod core;
pub mod doctor;
pub mod store;

pub use self::agent::*;
pub use self::app::*;
pub use self::bridge::*;
pub use self::calls::*;
pub use self::codes::*;
pub use self::config::*;
pub use self::core::*;
pub use self::doctor::*;
pub use self::store::*;

/// A value as the window receives it.
pub trait ToWire {
    type Wire;
    fn wire(self) -> Self::Wire;
}

/// `domain::Type => WireType`: the wire type of a domain type.
macro_rules! to_wire {
    ($domain:ty => $wire:ty) => {
        impl $crate::wire::ToWire for $domain {
            type Wire = $wire;
            fn wire(self) -> $wire {
                self.into()
            }
        }
    };
}
pub(crate) use to_wire;

/// Types that cross as they are: JSON, text, numbers, and the window's own
/// types (declared in `commands/` and `events.rs` over wire types).
macro_rules! as_is {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::wire::ToWire for $t {
            type Wire = $t;
            fn wire(self) -> $t {
                self
            }
        })*
    };
}
pub(crate) use as_is;

as_is!(
    (),
    bool,
    String,
    u8,
    u16,
    u32,
    u64,
    usize,
    i32,
    i64,
    f64,
    serde_json::Value,
    std::path::PathBuf,
);

impl<T: ToWire> ToWire for Vec<T> {
    type Wire = Vec<T::Wire>;
    fn wire(self) -> Self::Wire {
        self.into_iter().map(ToWire::wire).collect()
    }
}

impl<T: ToWire> ToWire for Option<T> {
    type Wire = Option<T::Wire>;
    fn wire(self) -> Self::Wire {
        self.map(ToWire::wire)
    }
}

impl<A: ToWire, B: ToWire> ToWire for (A, B) {
    type Wire = (A::Wire, B::Wire);
    fn wire(self) -> Self::Wire {
        (self.0.wire(), self.1.wire())
    }
}

impl<K: Ord, V: ToWire> ToWire for std::collections::BTreeMap<K, V> {
    type Wire = std::collections::BTreeMap<K, V::Wire>;
    fn wire(self) -> Self::Wire {
        self.into_iter().map(|(k, v)| (k, v.wire())).collect()
    }
}

impl<K: std::hash::Hash + Eq, V: ToWire> ToWire for std::collections::HashMap<K, V> {
    type Wire = std::collections::HashMap<K, V::Wire>;
    fn wire(self) -> Self::Wire {
        self.into_iter().map(|(k, v)| (k, v.wire())).collect()
    }
}

/// A command's answer as the window receives it: the body runs with the
/// domain's types and errors, and what it gives is turned into the wire's.
pub fn out<T: ToWire>(body: Result<T, workbench_codes::ErrorInfo>) -> Result<T::Wire, ErrorInfo> {
    body.map(ToWire::wire).map_err(Into::into)
}
