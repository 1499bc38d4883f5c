//! Args and bodies into a `Value`, refusing to nest past [`MAX_INPUT_DEPTH`] (R-ERR-2).
//!
//! `serde_json::to_value` recurses once per level of what it serializes, so args or a body
//! built in memory thousands of levels deep would overflow the stack. [`to_value`] serializes
//! through [`Bounded`], an adapter of any serializer (here serde_json's) that counts the levels
//! it enters and refuses the one past the limit before recursing into it. What it returns nests
//! at most [`MAX_INPUT_DEPTH`] levels, so cloning and dropping it recurses no deeper either.
//! [`Params`], what `params!` builds, holds its values serialized the same way.

use std::cell::Cell;
use std::fmt;

use serde::ser::{self, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::json::{MAX_INPUT_DEPTH, shallow};

/// Why a value could not become a [`Value`].
#[derive(Debug)]
pub(crate) enum Refused {
    /// It nests deeper than [`MAX_INPUT_DEPTH`] levels.
    TooDeep,
    /// Its `Serialize` implementation, or serde_json, failed.
    Unserializable(serde_json::Error),
}

impl Refused {
    /// Why `subject` was refused.
    fn reason(self, subject: &str) -> String {
        match self {
            Refused::TooDeep => format!("{subject} nests deeper than the limit of {MAX_INPUT_DEPTH} levels"),
            Refused::Unserializable(e) => format!("{subject} does not serialize: {e}"),
        }
    }

    /// The error of a request body refused.
    pub(crate) fn of_body(self) -> Error {
        Error::InvalidArgs {
            reason: self.reason("the body"),
        }
    }
}

/// `value` as a [`Value`], refused once it nests deeper than [`MAX_INPUT_DEPTH`] levels.
///
/// A level is a sequence, map, struct, tuple or enum variant with data, and also a `Some` or a
/// newtype, which do not nest in JSON but do recurse in serde.
pub(crate) fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Refused> {
    let too_deep = Cell::new(false);
    let root = Depth {
        levels: 0,
        too_deep: &too_deep,
    };
    serde_json::to_value(root.of(value)).map_err(|e| {
        if too_deep.get() {
            Refused::TooDeep
        } else {
            Refused::Unserializable(e)
        }
    })
}

/// The JSON text of a request body that a hook may have set, refused as [`to_value`] refuses;
/// a refused body is dropped without recursion.
pub(crate) fn body_bytes(body: Value) -> Result<Vec<u8>, Error> {
    let body = shallow(body).map_err(|_| Refused::TooDeep.of_body())?;
    serde_json::to_vec(&body).map_err(|e| Refused::Unserializable(e).of_body())
}

/// Call args built by [`params!`](crate::params): a JSON object, or the error of the first value
/// that could not become JSON (one nested deeper than 128 levels, a map with keys that are not
/// strings). A call given such args fails with that error, as `Error::InvalidArgs`.
///
/// ```
/// use serde_json::json;
///
/// let args = restcache::params! { user_id: "u1", completed: true };
/// assert_eq!(args, json!({ "user_id": "u1", "completed": true }));
/// assert_eq!(args.into_value()?, json!({ "user_id": "u1", "completed": true }));
///
/// let mut deep = json!(0);
/// for _ in 0..200 {
///     deep = serde_json::Value::Array(vec![deep]);
/// }
/// let refused = restcache::params! { id: 1, q: deep }.into_value();
/// assert!(matches!(refused, Err(restcache::Error::InvalidArgs { .. })));
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Params(Result<Map<String, Value>, String>);

impl Params {
    /// No field yet (what `params! {}` makes).
    #[doc(hidden)]
    pub fn __new() -> Self {
        Params(Ok(Map::new()))
    }

    /// Adds `key: value`, unless a value before it failed.
    #[doc(hidden)]
    pub fn __field<T: Serialize + ?Sized>(self, key: &'static str, value: &T) -> Self {
        let mut map = match self.0 {
            Ok(map) => map,
            Err(e) => return Params(Err(e)),
        };
        match to_value(value) {
            Ok(value) => {
                map.insert(key.to_owned(), value);
                Params(Ok(map))
            }
            Err(refused) => Params(Err(refused.reason(&format!("`{key}`")))),
        }
    }

    /// The JSON object, or the error of the value that could not become JSON.
    ///
    /// ```
    /// let args = restcache::params! { id: 5 };
    /// assert_eq!(args.into_value()?, serde_json::json!({ "id": 5 }));
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn into_value(self) -> Result<Value, Error> {
        self.0
            .map(Value::Object)
            .map_err(|reason| Error::InvalidArgs { reason })
    }
}

/// The object; args that failed serialize as the error of the value that failed.
impl Serialize for Params {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Ok(map) => map.serialize(serializer),
            Err(reason) => Err(ser::Error::custom(reason)),
        }
    }
}

/// The object as compact JSON, as `Value` prints it; args that failed print their error.
impl fmt::Display for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Ok(map) => f.write_str(&serde_json::to_string(map).map_err(|_| fmt::Error)?),
            Err(reason) => write!(f, "invalid arguments: {reason}"),
        }
    }
}

/// Args equal a JSON object with the same fields; args that failed equal no value.
impl PartialEq<Value> for Params {
    fn eq(&self, other: &Value) -> bool {
        matches!((&self.0, other), (Ok(map), Value::Object(other)) if map == other)
    }
}

/// How many levels enclose a value, and the flag that tells the limit's error from others.
#[derive(Clone, Copy)]
struct Depth<'a> {
    levels: usize,
    too_deep: &'a Cell<bool>,
}

impl<'a> Depth<'a> {
    /// The depth inside one more level, or the error if that is past the limit.
    fn enter<E: ser::Error>(self) -> Result<Self, E> {
        if self.levels >= MAX_INPUT_DEPTH {
            self.too_deep.set(true);
            return Err(E::custom(format_args!(
                "nested deeper than the limit of {MAX_INPUT_DEPTH} levels"
            )));
        }
        Ok(Depth {
            levels: self.levels + 1,
            ..self
        })
    }

    /// `value`, at this depth.
    fn of<'v, T: ?Sized>(self, value: &'v T) -> Level<'v, T>
    where
        'a: 'v,
    {
        Level { value, at: self }
    }
}

/// A value and its depth; it serializes through [`Bounded`].
struct Level<'a, T: ?Sized> {
    value: &'a T,
    at: Depth<'a>,
}

impl<T: Serialize + ?Sized> Serialize for Level<'_, T> {
    fn serialize<S: Serializer>(&self, inner: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Bounded { inner, at: self.at })
    }
}

/// The serializer `inner`, for a value at depth `at`: it refuses to open a level past
/// [`MAX_INPUT_DEPTH`], and passes everything else on unchanged.
struct Bounded<'a, S> {
    inner: S,
    at: Depth<'a>,
}

impl<'a, S: Serializer> Bounded<'a, S> {
    /// A level opened here by `open`; what goes into it is one level deeper.
    fn open<C>(self, open: impl FnOnce(S) -> Result<C, S::Error>) -> Result<Compound<'a, C>, S::Error> {
        let at = self.at.enter()?;
        Ok(Compound {
            inner: open(self.inner)?,
            at,
        })
    }

    /// `value` wrapped by `wrap` (in a `Some`, a newtype), one level deeper.
    fn wrap<T: Serialize + ?Sized>(
        self,
        value: &T,
        wrap: impl FnOnce(S, &Level<'_, T>) -> Result<S::Ok, S::Error>,
    ) -> Result<S::Ok, S::Error> {
        let at = self.at.enter()?;
        wrap(self.inner, &at.of(value))
    }
}

/// Passes scalars on to the inner serializer.
macro_rules! forward_scalars {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {
        $(
            fn $method(self, $($arg: $ty),*) -> Result<S::Ok, S::Error> {
                self.inner.$method($($arg),*)
            }
        )*
    };
}

/// Opens a sequence, map, struct, tuple or variant in the inner serializer, one level deeper.
macro_rules! open_levels {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $compound:ident;)*) => {
        $(
            fn $method(self, $($arg: $ty),*) -> Result<Self::$compound, S::Error> {
                self.open(|inner| inner.$method($($arg),*))
            }
        )*
    };
}

impl<'a, S: Serializer> Serializer for Bounded<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<'a, S::SerializeSeq>;
    type SerializeTuple = Compound<'a, S::SerializeTuple>;
    type SerializeTupleStruct = Compound<'a, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<'a, S::SerializeTupleVariant>;
    type SerializeMap = Compound<'a, S::SerializeMap>;
    type SerializeStruct = Compound<'a, S::SerializeStruct>;
    type SerializeStructVariant = Compound<'a, S::SerializeStructVariant>;

    forward_scalars! {
        serialize_bool(v: bool);
        serialize_i8(v: i8);
        serialize_i16(v: i16);
        serialize_i32(v: i32);
        serialize_i64(v: i64);
        serialize_i128(v: i128);
        serialize_u8(v: u8);
        serialize_u16(v: u16);
        serialize_u32(v: u32);
        serialize_u64(v: u64);
        serialize_u128(v: u128);
        serialize_f32(v: f32);
        serialize_f64(v: f64);
        serialize_char(v: char);
        serialize_str(v: &str);
        serialize_bytes(v: &[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(name: &'static str);
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.wrap(value, |inner, level| inner.serialize_some(level))
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<S::Ok, S::Error> {
        self.wrap(value, |inner, level| inner.serialize_newtype_struct(name, level))
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.wrap(value, |inner, level| {
            inner.serialize_newtype_variant(name, index, variant, level)
        })
    }

    open_levels! {
        serialize_seq(len: Option<usize>) -> SerializeSeq;
        serialize_tuple(len: usize) -> SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> SerializeTupleStruct;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> SerializeTupleVariant;
        serialize_map(len: Option<usize>) -> SerializeMap;
        serialize_struct(name: &'static str, len: usize) -> SerializeStruct;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> SerializeStructVariant;
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// The inner serializer's compound `inner`, whose elements, keys and fields are at depth `at`.
struct Compound<'a, C> {
    inner: C,
    at: Depth<'a>,
}

/// Implements compound traits by passing every element, key, value or field (with its name) on
/// as a [`Level`]. A skipped field is left to the default `skip_field`, which does nothing, as
/// serde_json's does.
macro_rules! forward {
    ($($trait:ident: $($method:ident($($key:ident)?)),+;)*) => {
        $(
            impl<C: ser::$trait> ser::$trait for Compound<'_, C> {
                type Ok = C::Ok;
                type Error = C::Error;

                $(
                    fn $method<T: Serialize + ?Sized>(
                        &mut self,
                        $($key: &'static str,)?
                        value: &T,
                    ) -> Result<(), C::Error> {
                        self.inner.$method($($key,)? &self.at.of(value))
                    }
                )+

                fn end(self) -> Result<C::Ok, C::Error> {
                    self.inner.end()
                }
            }
        )*
    };
}

forward! {
    SerializeSeq: serialize_element();
    SerializeTuple: serialize_element();
    SerializeTupleStruct: serialize_field();
    SerializeTupleVariant: serialize_field();
    SerializeMap: serialize_key(), serialize_value();
    SerializeStruct: serialize_field(key);
    SerializeStructVariant: serialize_field(key);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::{Value, json};

    use super::{Refused, body_bytes, to_value};
    use crate::error::Error;
    use crate::json::MAX_INPUT_DEPTH;

    /// `levels` arrays, one inside the other, around `0`.
    fn nested(levels: usize) -> Value {
        (0..levels).fold(json!(0), |v, _| Value::Array(vec![v]))
    }

    /// `n` sequences, one inside the other, serialized without a tree in memory.
    struct Nest(usize);

    impl Serialize for Nest {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self.0 {
                0 => s.serialize_unit(),
                n => s.collect_seq([Nest(n - 1)]),
            }
        }
    }

    /// `n` newtypes or `Some`s, one inside the other, which nest nothing in JSON.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    struct Wrapped(usize, bool);

    impl Serialize for Wrapped {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            match self {
                Wrapped(0, _) => s.serialize_str("k"),
                Wrapped(n, true) => s.serialize_some(&Wrapped(n - 1, true)),
                Wrapped(n, false) => s.serialize_newtype_struct("Wrapped", &Wrapped(n - 1, false)),
            }
        }
    }

    fn too_deep<T: Serialize>(value: &T) -> bool {
        matches!(to_value(value), Err(Refused::TooDeep))
    }

    #[test]
    fn r_err_2_values_up_to_the_limit_serialize_as_serde_json_does() {
        #[derive(Serialize)]
        enum Kind {
            Unit,
            Newtype(Option<i64>),
            Tuple(u8, char),
            Struct { big: i128, bytes: &'static [u8] },
        }
        #[derive(Serialize)]
        struct Args {
            id: u64,
            #[serde(skip_serializing_if = "Option::is_none")]
            skipped: Option<()>,
            kinds: Vec<Kind>,
            pair: (f64, bool),
            map: BTreeMap<u32, String>,
            deep: Value,
        }
        let args = Args {
            id: 1,
            skipped: None,
            kinds: vec![
                Kind::Unit,
                Kind::Newtype(Some(-2)),
                Kind::Tuple(3, 'x'),
                Kind::Struct { big: -4, bytes: b"ab" },
            ],
            pair: (0.5, true),
            map: BTreeMap::from([(7, "seven".to_owned())]),
            // The root object holds it: it reaches exactly the limit.
            deep: nested(MAX_INPUT_DEPTH - 1),
        };
        assert_eq!(to_value(&args).unwrap(), serde_json::to_value(&args).unwrap());
        assert_eq!(to_value(&nested(MAX_INPUT_DEPTH)).unwrap(), nested(MAX_INPUT_DEPTH));
    }

    #[test]
    fn r_err_2_one_level_past_the_limit_is_too_deep() {
        assert!(too_deep(&nested(MAX_INPUT_DEPTH + 1)));
        assert!(too_deep(&json!({ "id": 1, "q": nested(MAX_INPUT_DEPTH) })));
    }

    #[test]
    fn r_err_2_a_deep_serialize_impl_is_refused_before_the_stack_grows() {
        assert!(too_deep(&Nest(1_000_000)));
        assert!(too_deep(&Wrapped(1_000_000, true)));
        assert!(too_deep(&Wrapped(1_000_000, false)));
        // A map key recurses through its own serializer: it is bounded as well.
        assert!(too_deep(&BTreeMap::from([(Wrapped(1_000_000, false), 1)])));
        assert_eq!(
            to_value(&BTreeMap::from([(Wrapped(3, false), 1)])).unwrap(),
            json!({ "k": 1 })
        );
    }

    #[test]
    fn r_err_2_a_body_past_the_limit_is_refused_and_dropped_without_recursion() {
        let body = json!({ "title": "t", "tags": [1, null, { "a": nested(3) }] });
        assert_eq!(body_bytes(body.clone()).unwrap(), body.to_string().into_bytes());
        let Err(Error::InvalidArgs { reason }) = body_bytes(nested(1_000_000)) else {
            panic!("a body a million levels deep is refused");
        };
        assert_eq!(reason, "the body nests deeper than the limit of 128 levels");
    }

    #[test]
    fn r_err_2_params_keep_their_first_failure_instead_of_panicking() {
        let keys_not_strings = BTreeMap::from([((1, 2), 3)]);
        let args = crate::params! { id: 1, bad: keys_not_strings, deep: nested(MAX_INPUT_DEPTH + 1) };
        let Err(Error::InvalidArgs { reason }) = args.clone().into_value() else {
            panic!("the args failed");
        };
        assert!(
            reason.starts_with("`bad` does not serialize: key must be a string"),
            "{reason}"
        );
        assert_eq!(args.to_string(), format!("invalid arguments: {reason}"));
        let Err(Error::InvalidArgs { reason }) = crate::params! { deep: nested(MAX_INPUT_DEPTH + 1) }.into_value()
        else {
            panic!("the args failed");
        };
        assert_eq!(reason, "`deep` nests deeper than the limit of 128 levels");
        assert_eq!(
            crate::params! { id: 1, q: nested(2) }.to_string(),
            r#"{"id":1,"q":[[0]]}"#
        );
        assert_eq!(crate::params! {}, json!({}));
    }

    #[test]
    fn r_err_2_other_serialization_errors_are_told_apart() {
        let refused = to_value(&BTreeMap::from([((1, 2), 3)]));
        assert!(matches!(refused, Err(Refused::Unserializable(e)) if e.to_string().contains("key must be a string")));
    }
}
