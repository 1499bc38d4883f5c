//! `Values<S>`: a JSON object used as a map of schema values (R-VAL).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use super::{EntityField, ParentUse, RefSink, Schema, forward_schema, output_wrapper};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::schema::denormalize::{DenormalizeCtx, Unresolved};
use crate::schema::normalize::{OptionSeed, Seg, as_list, fail, refuse_other_kinds, take_error, with, wrong_kind};

/// A JSON object whose values each follow `S`; an entity value without a pk takes its map key.
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct User { #[entity(pk)] id: String, name: String }
///
/// let mut store = Store::new();
/// store.set_response::<Values<User>>("GET /users", &(), &json!({"a": {"name": "Ada"}}))?;
/// let users = store.get_response::<Values<User>>("GET /users", &())?.data.unwrap();
/// assert_eq!(users["a"].name, "Ada");
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Values<S: Schema>(BTreeMap<String, S::Output>);

output_wrapper! {
    /// The map.
    impl[S: Schema] Values<S> { 0: BTreeMap<String, S::Output> } = Values
}

impl<S: Schema> Schema for Values<S> {
    type Output = BTreeMap<String, S::Output>;
    type Stored = BTreeMap<String, S::Stored>;

    const PARENT: super::ParentUse = S::PARENT;

    fn normalize<'de, D: Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error> {
        de.deserialize_any(ValuesVisitor::<S>(PhantomData))
    }

    fn denormalize<'s>(map: &'s Self::Stored, ctx: &mut DenormalizeCtx<'s>) -> Result<Self::Output, Unresolved> {
        Ok(map
            .iter()
            .filter_map(|(k, v)| Some((k.clone(), S::denormalize(v, ctx).ok()?)))
            .collect())
    }

    fn from_json(json: &serde_json::Value) -> Option<Self::Stored> {
        let map = json.as_object()?;
        Some(
            map.iter()
                .filter_map(|(k, v)| Some((k.clone(), S::from_json(v)?)))
                .collect(),
        )
    }

    forward_schema!(S: register);

    fn refs(map: &Self::Stored, sink: &mut RefSink<'_>) {
        map.values().for_each(|v| S::refs(v, sink));
    }
}
impl<S: EntityField> EntityField for Values<S> {}

/// Normalizes each value of a JSON object with `S`; a value without a pk takes its key.
struct ValuesVisitor<S>(PhantomData<S>);

impl<'de, S: Schema> Visitor<'de> for ValuesVisitor<S> {
    type Value = BTreeMap<String, S::Stored>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object for Values")
    }

    refuse_other_kinds!(self, |found| wrong_kind("an object for Values", found));

    fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(wrong_kind("an object for Values", "an array"))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        as_list(|| {
            let mut out = BTreeMap::new();
            // A union chosen by a function is given the map as the object holding each value
            // (R-UNION-2): the map is read whole first, and each value normalized from it.
            if S::PARENT == ParentUse::Always {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, Value>()? {
                    entries.push(entry);
                }
                let object: Map<String, Value> = entries.iter().cloned().collect();
                let saved = with(|n| n.parent.replace(Value::Object(object)));
                let read = || {
                    // In document order, as they are read (R-NORM-6).
                    for (key, value) in entries {
                        let v = in_entry::<S, _>(&key, || OptionSeed::<S>(PhantomData).deserialize(value));
                        let v = v.map_err(|e| take_error().map_or_else(|| de::Error::custom(e), fail))?;
                        out.extend(v.filter(|v| !S::skipped(v)).map(|v| (key, v)));
                    }
                    Ok(())
                };
                let r = read();
                with(|n| n.parent = saved);
                return r.map(|()| out);
            }
            while let Some(key) = map.next_key::<String>()? {
                let v = in_entry::<S, _>(&key, || map.next_value_seed(OptionSeed::<S>(PhantomData)))?;
                out.extend(v.filter(|v| !S::skipped(v)).map(|v| (key, v)));
            }
            Ok(out)
        })
    }
}

/// Runs `f` at the entry `key` of a map of `S`: the key stands in for a missing pk, and is the
/// key a union's function is given.
fn in_entry<S: Schema, R>(key: &str, f: impl FnOnce() -> R) -> R {
    let saved = with(|n| {
        n.path.push(Seg::Key(key.to_owned().into()));
        n.pk_fallback = Some(key.to_owned());
        let selects = S::PARENT == ParentUse::Always;
        std::mem::replace(&mut n.map_key, selects.then(|| (key.to_owned(), n.frame)))
    });
    let r = f();
    with(|n| {
        n.path.pop();
        n.pk_fallback = None;
        n.map_key = saved;
    });
    r
}
