//! The primary-key rule (R-NORM-3): the string form of a JSON scalar, and of a typed pk field
//! (what serde writes for the field's value, without building a `Value`).

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::marker::PhantomData;
use std::sync::LazyLock;

use foldhash::SharedSeed;
use foldhash::quality::{FoldHasher, SeedableRandomState};
use serde::Serialize;
use serde::de::value::Error;
use serde::ser::{self, Impossible, Serializer};
use serde_json::Value;

/// A primary key as the store keeps it, in a row's key and in a reference: inline when it is no
/// longer than a `String` (24 bytes on 64-bit targets, 12 on wasm32: numeric ids, short slugs),
/// so such a key costs no allocation and a lookup compares it in place.
pub(crate) type Pk = compact_str::CompactString;

/// 64 bits from std's `RandomState`, whose keys come from the operating system's randomness.
fn os_random(salt: u8) -> u64 {
    std::collections::hash_map::RandomState::new().hash_one(salt)
}

/// The secret of the pk hash, drawn once per process: primary keys and request keys are chosen
/// by servers, so the tables hash them with foldhash (its `quality` variant) keyed by secrets
/// the servers never see, against collision flooding (HashDoS).
static PK_SEED: LazyLock<SharedSeed> = LazyLock::new(|| SharedSeed::from_u64(os_random(0)));

/// The random state of the pk hash: [`PK_SEED`] and a per-process hasher seed.
static PK_STATE: LazyLock<SeedableRandomState> =
    LazyLock::new(|| SeedableRandomState::with_seed(os_random(1), &PK_SEED));

/// The hasher of every table's rows and pending writes, of collections' reference sets and of
/// the store's maps of request keys: one random state for all, so a key hashed once
/// ([`PkHasher::pk`]) is found in any of them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PkHasher;

impl BuildHasher for PkHasher {
    type Hasher = FoldHasher<'static>;

    fn build_hasher(&self) -> Self::Hasher {
        PK_STATE.build_hasher()
    }
}

impl PkHasher {
    /// The hash of `pk` as a row key: what the maps' own hashing gives it.
    #[inline]
    pub fn pk(pk: &str) -> u64 {
        PK_STATE.hash_one(pk)
    }
}

/// The *string form* of a scalar (docs/behaviour.md): strings as-is, numbers as serde_json
/// writes them, `true`/`false`. `null`, arrays and objects have none.
pub fn string_form(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Number(n) => Some(Cow::Owned(number_text(n))),
        Value::Bool(b) => Some(Cow::Borrowed(if *b { "true" } else { "false" })),
        _ => None,
    }
}

/// The primary key a field value yields (R-NORM-3): a non-empty string, or a number's string
/// form. Anything else — missing, `null`, `""`, a boolean, an array or an object — is no pk.
///
/// ```
/// use restcache::schema::pk_string;
/// use serde_json::json;
/// assert_eq!(pk_string(Some(&json!(5))).as_deref(), Some("5"));
/// assert_eq!(pk_string(Some(&json!(""))), None);
/// assert_eq!(pk_string(Some(&json!(true))), None);
/// ```
pub fn pk_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(number_text(n)),
        _ => None,
    }
}

/// `n.to_string()` as any text type (an inline one, a [`Pk`], takes a short number without
/// allocating), with integers written by `itoa` instead of the formatting machinery. Negative
/// zero and non-integers take the general path, so the text is always serde_json's.
fn number_text<O: PkOut>(n: &serde_json::Number) -> O {
    if let Some(u) = n.as_u64() {
        O::from(itoa::Buffer::new().format(u))
    } else if let Some(i) = n.as_i64().filter(|i| *i < 0) {
        O::from(itoa::Buffer::new().format(i))
    } else {
        O::from(n.to_string())
    }
}

/// A type a pk's text is written into: `String`, or an inline key.
pub(crate) trait PkOut: for<'a> From<&'a str> + From<String> {}

impl<O: for<'a> From<&'a str> + From<String>> PkOut for O {}

/// The pk a typed field value yields (R-NORM-3): a non-empty string, or a number written as
/// serde_json writes it; `None` for anything else (a boolean, `None`, a list, an object).
///
/// ```
/// use restcache::schema::pk_of;
/// assert_eq!(pk_of(&5u64).as_deref(), Some("5"));
/// assert_eq!(pk_of(&"a".to_owned()).as_deref(), Some("a"));
/// assert_eq!(pk_of(&Some(-2i32)).as_deref(), Some("-2"));
/// assert_eq!(pk_of(&""), None);
/// assert_eq!(pk_of(&true), None);
/// ```
pub fn pk_of<T: Serialize + ?Sized>(value: &T) -> Option<String> {
    pk_text(value)
}

/// [`pk_of`] written into `O`: a pk no longer than an inline key's room costs no allocation.
pub(crate) fn pk_text<O: PkOut, T: Serialize + ?Sized>(value: &T) -> Option<O> {
    value.serialize(PkText(PhantomData)).ok().flatten()
}

/// Serializes a scalar into its pk text, as an `O`; anything else is no pk.
struct PkText<O>(PhantomData<O>);

/// Not a pk: the value is a list, an object or another compound value. The error is dropped,
/// so it has no message, which costs no allocation.
fn not_scalar<T>() -> Result<T, Error> {
    Err(ser::Error::custom(""))
}

type Text<O> = Result<Option<O>, Error>;

fn number<O: PkOut>(n: impl Into<serde_json::Number>) -> Text<O> {
    Ok(Some(number_text(&n.into())))
}

/// The methods of integers, each written as its number's text.
macro_rules! numbers {
    ($($method:ident($ty:ty);)*) => {
        $(fn $method(self, v: $ty) -> Text<O> { number(v) })*
    };
}

/// The methods of bytes and of compound values, which are no pk.
macro_rules! not_scalar {
    ($($method:ident($($arg:ty),*) -> $ok:ident;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self::$ok, Error> { not_scalar() })*
    };
}

impl<O: PkOut> Serializer for PkText<O> {
    type Ok = Option<O>;
    type Error = Error;
    type SerializeSeq = Impossible<Self::Ok, Error>;
    type SerializeTuple = Impossible<Self::Ok, Error>;
    type SerializeTupleStruct = Impossible<Self::Ok, Error>;
    type SerializeTupleVariant = Impossible<Self::Ok, Error>;
    type SerializeMap = Impossible<Self::Ok, Error>;
    type SerializeStruct = Impossible<Self::Ok, Error>;
    type SerializeStructVariant = Impossible<Self::Ok, Error>;

    fn serialize_bool(self, _: bool) -> Text<O> {
        Ok(None)
    }
    numbers! {
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
    }
    fn serialize_f32(self, v: f32) -> Text<O> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Text<O> {
        Ok(serde_json::Number::from_f64(v).map(|n| number_text(&n)))
    }
    fn serialize_char(self, v: char) -> Text<O> {
        Ok(Some(O::from(v.encode_utf8(&mut [0; 4]) as &str)))
    }
    fn serialize_str(self, v: &str) -> Text<O> {
        Ok((!v.is_empty()).then(|| O::from(v)))
    }
    fn serialize_none(self) -> Text<O> {
        Ok(None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Text<O> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Text<O> {
        Ok(None)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Text<O> {
        Ok(None)
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Text<O> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Text<O> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Text<O> {
        not_scalar()
    }
    not_scalar! {
        serialize_bytes(&[u8]) -> Ok;
        serialize_seq(Option<usize>) -> SerializeSeq;
        serialize_tuple(usize) -> SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> SerializeTupleVariant;
        serialize_map(Option<usize>) -> SerializeMap;
        serialize_struct(&'static str, usize) -> SerializeStruct;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> SerializeStructVariant;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::{Pk, number_text, pk_of, pk_string, pk_text};

    /// A number's string form is exactly what serde_json writes for it.
    #[test]
    fn r_norm_3_a_number_pk_is_written_as_serde_json_writes_it() {
        let numbers = [
            "0",
            "7",
            "-1",
            "-0",
            "-0.0",
            "1.5",
            "1e3",
            "1e300",
            "-2.5e-7",
            "18446744073709551615",
            "-9223372036854775808",
            "9223372036854775808",
            "123456789012345678901234567890",
        ];
        for text in numbers {
            let v: Value = serde_json::from_str(text).unwrap();
            let Value::Number(n) = &v else {
                panic!("{text} is a number")
            };
            assert_eq!(number_text::<String>(n), n.to_string(), "{text}");
            assert_eq!(pk_string(Some(&v)).as_deref(), Some(n.to_string().as_str()), "{text}");
        }
    }

    /// R-NORM-3: a typed pk yields the pk its JSON value would: the same text for strings and
    /// numbers, none for empty strings, booleans and compound values.
    #[test]
    fn r_norm_3_a_typed_pk_yields_the_pk_of_its_json() {
        for text in [
            "5",
            "-1",
            "0",
            "\"a\"",
            "\"\"",
            "true",
            "null",
            "1.5",
            "[1]",
            "{\"a\":1}",
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert_eq!(pk_of(&v), pk_string(Some(&v)), "{text}");
        }
        assert_eq!(pk_of(&7u8).as_deref(), Some("7"));
        assert_eq!(pk_of(&i64::MIN).as_deref(), Some("-9223372036854775808"));
        assert_eq!(pk_of(&Option::<u32>::None), None);
    }

    /// R-NORM-3: a typed pk written as an inline key is the text `pk_of` gives, short or long,
    /// and none where that gives none.
    #[test]
    fn r_norm_3_a_typed_pk_written_inline_is_the_same_text() {
        let long = "p".repeat(40);
        let texts = [
            "5",
            "-1",
            "1.5",
            "18446744073709551615",
            "\"a\"",
            "\"\"",
            "\"ü€\"",
            "true",
            "null",
            "[1]",
        ];
        let values = texts
            .iter()
            .map(|t| serde_json::from_str::<Value>(t).unwrap())
            .chain([Value::String(long)]);
        for v in values {
            let inline: Option<Pk> = pk_text(&v);
            assert_eq!(inline.as_deref(), pk_of(&v).as_deref(), "{v}");
        }
        assert_eq!(pk_text::<Pk, _>(&'x').as_deref(), Some("x"));
        assert_eq!(pk_text::<Pk, _>(&u64::MAX).as_deref(), Some("18446744073709551615"));
    }
}
