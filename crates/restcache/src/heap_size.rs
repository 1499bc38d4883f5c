//! An estimate of the heap bytes a value retains, for the garbage collector's byte budget.
//!
//! [`heap_bytes`] walks a value through its `Serialize` impl with a serializer that writes
//! nothing and only adds up sizes, so it works for any serializable type and allocates nothing.
//! It cannot see a type's layout, only the shape serde reports (strings, sequences, maps,
//! structs...), and counts each shape by a fixed rule, given in [`heap_bytes`]' docs.

use std::fmt::{self, Display, Write as _};

use serde::Serialize;
use serde::de::value::Error;
use serde::ser::{self, Serializer};

/// The heap bytes `value` holds, estimated through its `Serialize` impl:
///
/// - numbers, bools, chars, unit and `None` count nothing: they live inline in their parent;
/// - a string or byte string counts its length. Short strings that the crate's `compact_str`
///   types keep inline count too, so the estimate errs high on them, never low;
/// - a sequence, tuple, tuple struct or tuple variant counts 8 bytes per element (an estimate of
///   the element's inline part) plus what each element holds;
/// - a map counts 16 bytes per entry plus what its keys and values hold;
/// - a struct or struct variant counts only what its fields hold, its fields being inline in
///   its parent; newtype structs, newtype variants and `Some` count what they wrap;
/// - text written through `collect_str` counts its length, without being built.
///
/// It never fails: if `value`'s `Serialize` impl returns an error, this returns what it had
/// counted before the error. For example, `json!({"id": 7, "name": "ada"})` counts two entries
/// of 16 bytes, 2 + 4 bytes of keys and 3 of text: 41 bytes. Sums saturate at `usize::MAX`.
pub fn heap_bytes<T: Serialize + ?Sized>(value: &T) -> usize {
    let mut count = Count(0);
    // An error only stops the walk; what was counted until then stands.
    let _ = value.serialize(&mut count);
    count.0
}

/// The bytes counted so far; `&mut Count` is the serializer.
struct Count(usize);

impl Count {
    fn add(&mut self, bytes: usize) {
        self.0 = self.0.saturating_add(bytes);
    }
}

/// A `fmt::Write` that keeps only the length of what is written to it.
struct Len<'a>(&'a mut Count);

impl fmt::Write for Len<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.add(s.len());
        Ok(())
    }
}

/// A value's own `Serialize` impl may raise an error, which only stops the walk.
type Done = Result<(), Error>;

/// Methods for what counts nothing: scalars, unit and `None` live inline in their parent.
macro_rules! nothing {
    ($($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Done { Ok(()) })*
    };
}

/// Methods that open a sequence, map or struct; its parts are counted as they come.
macro_rules! open {
    ($($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self, Error> { Ok(self) })*
    };
}

impl Serializer for &mut Count {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    // The 128-bit ones too, whose default impls return an error.
    nothing! {
        serialize_bool(bool); serialize_char(char); serialize_f32(f32); serialize_f64(f64);
        serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64); serialize_i128(i128);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64); serialize_u128(u128);
        serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    open! {
        serialize_seq(Option<usize>); serialize_tuple(usize); serialize_tuple_struct(&'static str, usize);
        serialize_tuple_variant(&'static str, u32, &'static str, usize); serialize_map(Option<usize>);
        serialize_struct(&'static str, usize); serialize_struct_variant(&'static str, u32, &'static str, usize);
    }

    fn serialize_str(self, v: &str) -> Done {
        self.add(v.len());
        Ok(())
    }
    fn serialize_bytes(self, v: &[u8]) -> Done {
        self.add(v.len());
        Ok(())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Done {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T>(self, _: &'static str, _: u32, _: &'static str, value: &T) -> Done
    where
        T: Serialize + ?Sized,
    {
        value.serialize(self)
    }
    /// Counts the text's length as it is formatted, where the default would build a `String`.
    /// A `Display` impl that fails leaves what it wrote before failing counted.
    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Done {
        let _ = write!(Len(self), "{value}");
        Ok(())
    }
}

/// The parts of sequences, maps and structs, each counting its bytes plus what it holds: an
/// element 8, its inline part's estimate; a map entry 16, counted with its key; a struct field
/// nothing, as it is inline in its parent.
macro_rules! parts {
    ($($trait:ident { $($method:ident($($name:ty)?) counts $bytes:literal;)* })*) => {$(
        impl ser::$trait for &mut Count {
            type Ok = ();
            type Error = Error;
            $(fn $method<T: Serialize + ?Sized>(&mut self, $(_: $name,)? part: &T) -> Done {
                self.add($bytes);
                part.serialize(&mut **self)
            })*
            fn end(self) -> Done {
                Ok(())
            }
        }
    )*};
}

parts! {
    SerializeSeq { serialize_element() counts 8; }
    SerializeTuple { serialize_element() counts 8; }
    SerializeTupleStruct { serialize_field() counts 8; }
    SerializeTupleVariant { serialize_field() counts 8; }
    SerializeMap { serialize_key() counts 16; serialize_value() counts 0; }
    SerializeStruct { serialize_field(&'static str) counts 0; }
    SerializeStructVariant { serialize_field(&'static str) counts 0; }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fmt;

    use serde::ser::Error as _;
    use serde::{Serialize, Serializer};
    use serde_json::json;

    use super::heap_bytes;

    /// Serializes its `Display` output through `collect_str`.
    struct Shown<T>(T);

    impl<T: fmt::Display> Serialize for Shown<T> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(&self.0)
        }
    }

    /// A byte string, serialized as one (a `Vec<u8>` serializes as a sequence).
    struct Bytes(&'static [u8]);

    impl Serialize for Bytes {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.serialize_bytes(self.0)
        }
    }

    /// A value whose `Serialize` impl always fails.
    struct Fails;

    impl Serialize for Fails {
        fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(S::Error::custom("refused"))
        }
    }

    #[test]
    fn text_counts_its_length_and_numbers_nothing() {
        assert_eq!(heap_bytes("hello"), 5);
        assert_eq!(heap_bytes(&String::from("héllo")), 6, "bytes, not chars");
        assert_eq!(heap_bytes(&Bytes(b"abc\0")), 4);
        assert_eq!(heap_bytes(&(42u64, -1.5f64, true, 'x', ())), 5 * 8, "8 apiece, no heap");
        assert_eq!(heap_bytes(&u128::MAX), 0, "not the error of serde's default");
        assert_eq!(heap_bytes(&i128::MIN), 0);
        assert_eq!(heap_bytes(&json!("abc")), 3);
        assert_eq!(heap_bytes(&json!(7)) + heap_bytes(&json!(null)), 0);
    }

    #[test]
    fn sequences_and_maps_count_their_entries_and_their_heap() {
        assert_eq!(heap_bytes(&Vec::<String>::new()), 0);
        assert_eq!(heap_bytes(&[1u32, 2, 3]), 24);
        assert_eq!(heap_bytes(&vec!["ab", "cde"]), 8 + 2 + 8 + 3);
        assert_eq!(heap_bytes(&json!([1, [2, "x"], {}])), 8 + (8 + (8 + 8 + 1)) + 8);
        assert_eq!(heap_bytes(&json!({"a": 1, "bc": "def"})), (16 + 1) + (16 + 2 + 3));
        // The example in `heap_bytes`' docs.
        assert_eq!(heap_bytes(&json!({"id": 7, "name": "ada"})), 41);
        assert_eq!(heap_bytes(&BTreeMap::from([("k", vec![1u8, 2])])), 16 + 1 + (8 + 8));
    }

    #[derive(Serialize)]
    struct User {
        id: u64,
        name: String,
        tags: Vec<&'static str>,
        nick: Option<String>,
        email: Option<String>,
    }

    #[derive(Serialize)]
    struct Pair(u8, &'static str);

    #[derive(Serialize)]
    enum Shape {
        Unit,
        New(&'static str),
        Tuple(u8, &'static str),
        Named { label: &'static str, sides: u8 },
    }

    #[test]
    fn structs_and_options_count_only_what_their_fields_hold() {
        let (name, nick) = ("ada".to_owned(), Some("al".to_owned()));
        let user = User {
            id: 7,
            name,
            tags: vec!["x", "yz"],
            nick,
            email: None,
        };
        assert_eq!(heap_bytes(&user), 3 + (8 + 1 + 8 + 2) + 2);
        assert_eq!(heap_bytes(&[user]), 8 + 24, "in a sequence, a struct is an element");
        assert_eq!(heap_bytes(&Pair(1, "ab")), 8 + 8 + 2);
        assert_eq!(heap_bytes(&Some("ab")), 2);
        assert_eq!(heap_bytes(&Some(5u8)), 0);
        assert_eq!(heap_bytes(&Shape::Unit), 0);
        assert_eq!(heap_bytes(&Shape::New("abc")), 3);
        assert_eq!(heap_bytes(&Shape::Tuple(1, "ab")), 8 + 8 + 2);
        let (label, sides) = ("wxyz", 4);
        assert_eq!(heap_bytes(&Shape::Named { label, sides }), 4);
    }

    #[derive(Serialize)]
    struct Row {
        name: &'static str,
        bad: Fails,
        after: &'static str,
    }

    #[test]
    fn a_failing_serialize_returns_what_was_counted() {
        assert_eq!(heap_bytes(&Fails), 0);
        let (name, bad, after) = ("abcd", Fails, "never counted");
        assert_eq!(heap_bytes(&Row { name, bad, after }), 4);
        assert_eq!(heap_bytes(&[Fails, Fails]), 8, "the first element's 8, then the error");
        assert_eq!(heap_bytes(&("abc", Fails, "never counted")), 8 + 3 + 8);
    }

    /// A `Display` that writes some text and then fails.
    struct Broken;

    impl fmt::Display for Broken {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("partial")?;
            Err(fmt::Error)
        }
    }

    #[test]
    fn display_values_count_without_allocating_their_text() {
        let (major, minor) = (1, 22);
        assert_eq!(heap_bytes(&Shown(format_args!("{major}.{minor}"))), 4);
        assert_eq!(heap_bytes(&[Shown(10_000u32), Shown(7)]), 8 + 5 + 8 + 1);
        // serde's default `collect_str` builds the text with `to_string`, which panics on a
        // `Display` that fails; counting the pieces as they are written keeps what came before.
        assert_eq!(heap_bytes(&Shown(Broken)), 7);
    }
}
