//! `Values<S>`: a JSON object used as a map of schema values (R-VAL).

use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;

use super::{EntityField, RefSink, Schema, forward_schema, output_wrapper};
use serde::de::{self, Deserializer, MapAccess, Visitor};

use crate::schema::denormalize::{DenormalizeCtx, Unresolved};
use crate::schema::normalize::{OptionSeed, Seg, as_list, refuse_other_kinds, with, wrong_kind};

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
            while let Some(key) = map.next_key::<String>()? {
                with(|n| {
                    n.pk_fallback = Some(key.clone());
                    n.path.push(Seg::Key(key.clone().into()));
                });
                let r = map.next_value_seed(OptionSeed::<S>(PhantomData));
                with(|n| {
                    n.pk_fallback = None;
                    n.path.pop();
                });
                if let Some(v) = r?.filter(|v| !S::skipped(v)) {
                    out.insert(key, v);
                }
            }
            Ok(out)
        })
    }
}
