//! How a row keeps a `String` field: inline, when the text is short.
//!
//! Most text fields of a REST entity (names, titles, slugs, states) are short. A row holds a
//! plain `String` field as a [`RowText`], which keeps as much text as a `String` takes room
//! (24 bytes; 12 on wasm32) in that room and allocates only for longer text; a read makes the field's `String` again. So a
//! stored short string costs no allocation of its own, neither when written nor in memory, and
//! a read finds it in the row it already reads.

use std::fmt;

use compact_str::CompactString;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

/// A row's `String` field, stored inline up to 24 bytes (12 on wasm32): the derive's choice for
/// a field of type `String` that serde reads by itself.
///
/// It deserializes from and serializes to a JSON string, as a `String` does.
///
/// ```
/// use restcache::schema::RowText;
/// let text: RowText = serde_json::from_str(r#""Todo 1""#).unwrap();
/// assert_eq!(text.as_str(), "Todo 1");
/// assert_eq!(String::from(&text), "Todo 1");
/// assert_eq!(serde_json::to_string(&text).unwrap(), r#""Todo 1""#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct RowText(CompactString);

impl RowText {
    /// The text.
    #[inline]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&RowText> for String {
    #[inline]
    fn from(text: &RowText) -> String {
        text.as_str().to_owned()
    }
}

impl fmt::Debug for RowText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for RowText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RowText {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        /// Reads a string, as `String` does, keeping short text inline: a `String` the input
        /// gives away (a moved-in `serde_json::Value`'s) is copied in and freed when short, so
        /// a row has the same layout whichever input wrote it and keeps no small buffer alive.
        struct Text;
        impl<'de> Visitor<'de> for Text {
            type Value = RowText;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<RowText, E> {
                Ok(RowText(CompactString::new(v)))
            }

            fn visit_string<E: de::Error>(self, v: String) -> Result<RowText, E> {
                Ok(RowText(CompactString::from(v)))
            }

            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<RowText, E> {
                match std::str::from_utf8(v) {
                    Ok(s) => Ok(RowText(CompactString::new(s))),
                    Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(v), &self)),
                }
            }
        }
        de.deserialize_string(Text)
    }
}

#[cfg(test)]
mod tests {
    use super::RowText;

    /// Text up to 24 bytes (on 64-bit targets, where tests run) is kept in the `RowText` itself, whether the input lends it or gives
    /// it away as a `String`; longer text is kept in one buffer. Each reads back as written,
    /// multi-byte characters at the boundary included.
    #[test]
    fn short_text_is_kept_inline_and_long_text_whole() {
        let text = |s: &str| -> RowText { serde_json::from_value(serde_json::Value::String(s.to_owned())).unwrap() };
        let borrowed = |s: &str| -> RowText { serde_json::from_str(&serde_json::to_string(s).unwrap()).unwrap() };
        for s in [
            "",
            "a",
            &"x".repeat(24),
            &"ü".repeat(12),
            &format!("{}é", "x".repeat(22)),
        ] {
            for r in [borrowed(s), text(s)] {
                assert_eq!((r.as_str(), r.0.is_heap_allocated()), (s, false), "{s:?}");
            }
        }
        for s in ["x".repeat(25), format!("{}é", "x".repeat(23))] {
            for r in [borrowed(&s), text(&s)] {
                assert_eq!((r.as_str(), r.0.is_heap_allocated()), (s.as_str(), true), "{s:?}");
            }
        }
    }
}
