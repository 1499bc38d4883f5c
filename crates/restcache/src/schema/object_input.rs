//! The input of an entity's row: a `Deserializer` that lets serde's derived row read a JSON
//! object and nothing else, and tells where in it a value failed.
//!
//! serde's derive fills a struct from a map or, positionally, from a sequence; at an entity's
//! place a response must hold an object (R-NORM-4), so any other kind is refused here, as an
//! `InvalidResponse` naming the entity, before the row sees it. Each key the row reads is
//! kept until the next (borrowed from the input where it can be), so a value that fails to
//! deserialize (a field of the wrong type) is reported at its own JSON Pointer, the field's.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use crate::schema::normalize::{invalid, note_failure, refuse_other_kinds};

/// `de`, giving the row's visitor only an object.
pub(crate) struct ObjectInput<D> {
    pub de: D,
    /// The entity whose row this is; `None` for an object schema's.
    pub entity: Option<&'static str>,
}

/// The row's visitor, given an object and refusing every other kind.
struct OnlyObjects<V> {
    visitor: V,
    entity: Option<&'static str>,
}

impl<V> OnlyObjects<V> {
    fn refuse<E: de::Error>(&self, found: &str) -> E {
        match self.entity {
            Some(entity) => invalid(
                Some(entity),
                format!("expected an object for entity {entity}, found {found}"),
            ),
            None => invalid(None, format!("expected an object, found {found}")),
        }
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for OnlyObjects<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(Keyed {
            map,
            key: Key::Borrowed(""),
        })
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<V::Value, A::Error> {
        Err(self.refuse("an array"))
    }

    refuse_other_kinds!(self, |found| self.refuse(found));
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectInput<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        let entity = self.entity;
        self.de.deserialize_any(OnlyObjects { visitor, entity })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// An object's entries, each key kept until the next, to name where its value failed.
struct Keyed<'de, A> {
    map: A,
    key: Key<'de>,
}

/// The key of the entry being read: borrowed from the input where it can be, else owned (a key
/// an owned `Value` moves in, or one the parser unescaped into a buffer of its own). Keeping it
/// costs no allocation but for the last kind.
enum Key<'de> {
    Borrowed(&'de str),
    Owned(String),
}

impl Key<'_> {
    fn as_str(&self) -> &str {
        match self {
            Key::Borrowed(key) => key,
            Key::Owned(key) => key,
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Keyed<'de, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, A::Error> {
        self.map.next_key_seed(KeySeed {
            seed,
            key: &mut self.key,
        })
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let value = self.map.next_value_seed(seed);
        if value.is_err() {
            note_failure(Some(self.key.as_str()));
        }
        value
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// A key's seed, keeping the key's text.
struct KeySeed<'k, 'de, K> {
    seed: K,
    key: &'k mut Key<'de>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeySeed<'_, 'de, K> {
    type Value = K::Value;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<K::Value, D::Error> {
        self.seed.deserialize(KeyDe { de, key: self.key })
    }
}

/// A key's deserializer, keeping the text its visitor is given.
struct KeyDe<'k, 'de, D> {
    de: D,
    key: &'k mut Key<'de>,
}

/// A key's visitor, keeping the text it is given.
struct KeyVisitor<'k, 'de, V> {
    visitor: V,
    key: &'k mut Key<'de>,
}

macro_rules! forward_keyed {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
                self.de.$method($($arg,)* KeyVisitor { visitor, key: self.key })
            }
        )*
    };
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for KeyDe<'_, 'de, D> {
    type Error = D::Error;

    forward_keyed! {
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(), deserialize_i32(),
        deserialize_i64(), deserialize_i128(), deserialize_u8(), deserialize_u16(), deserialize_u32(),
        deserialize_u64(), deserialize_u128(), deserialize_f32(), deserialize_f64(), deserialize_char(),
        deserialize_str(), deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_option(), deserialize_unit(), deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str), deserialize_seq(), deserialize_tuple(len: usize),
        deserialize_tuple_struct(name: &'static str, len: usize), deserialize_map(),
        deserialize_struct(name: &'static str, fields: &'static [&'static str]),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        deserialize_identifier(), deserialize_ignored_any(),
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for KeyVisitor<'_, 'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        match self.key {
            Key::Owned(key) => {
                key.clear();
                key.push_str(v);
            }
            key => *key = Key::Owned(v.to_owned()),
        }
        self.visitor.visit_str(v)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        *self.key = Key::Borrowed(v);
        self.visitor.visit_borrowed_str(v)
    }

    // The key is moved in, and the row's visitor reads it as text (a field's name needs no more).
    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        *self.key = Key::Owned(v);
        self.visitor.visit_str(self.key.as_str())
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<V::Value, E> {
        self.visitor.visit_bytes(v)
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<V::Value, E> {
        self.visitor.visit_borrowed_bytes(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.visitor.visit_u64(v)
    }
}
