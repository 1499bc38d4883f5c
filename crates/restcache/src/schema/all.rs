//! `All<E>`: every cached entity of a type, whoever wrote it (R-ALL).

use super::{EntitySchema, RefSink, Schema, forward_schema, output_wrapper};
use crate::schema::denormalize::{DenormalizeCtx, Unresolved};

/// Every valid cached entity of `T` (an entity or a union), in first-insertion order, including
/// entities written by other endpoints. As a field of an object schema it holds the list.
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct User { #[entity(pk)] id: String, name: String }
///
/// let mut store = Store::new();
/// store.set_response::<All<User>>("GET /users", &(), &json!([{"id": "1", "name": "Ada"}]))?;
/// store.set_response::<User>("POST /users", &(), &json!({"id": "2", "name": "Bo"}))?;
/// let all = store.get_response::<All<User>>("GET /users", &())?.data.unwrap();
/// assert_eq!(all.len(), 2);
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(PartialEq)]
pub struct All<T>(Vec<T>);

output_wrapper! {
    /// The entities.
    impl[T] All<T> { 0: Vec<T> } = All
}

impl<T: EntitySchema> Schema for All<T> {
    type Output = Vec<T>;
    type Stored = Vec<T::Stored>;
    const PARENT: super::ParentUse = T::PARENT;

    /// Writes every element; the stored result is the list of unmatched inputs kept by a
    /// union's `other` variant (R-ALL-1).
    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error> {
        let refs = crate::schema::normalize::list::<T, D>(de)?;
        // Collected in place, the filtered list would keep the whole list's room.
        let passthrough = refs.into_iter().filter(|r| !T::is_entity(r)).collect();
        Ok(crate::schema::normalize::kept(passthrough))
    }

    fn denormalize<'s>(passthrough: &'s Self::Stored, ctx: &mut DenormalizeCtx<'s>) -> Result<Vec<T>, Unresolved> {
        let mut out = Vec::new();
        T::read_all(ctx, &mut out);
        // Only the inputs a union's `other` variant kept: a list another schema stored under
        // this key (a `Vec<T>`'s, R-READ-6) holds references to entities `read_all` read.
        let kept = passthrough.iter().filter(|r| !T::is_entity(r));
        out.extend(kept.filter_map(|r| T::denormalize(r, ctx).ok()));
        Ok(out)
    }

    /// Any result serves: the list comes from the tables, and `denormalize` keeps only the
    /// unmatched inputs a list holds.
    fn from_json(json: &serde_json::Value) -> Option<Self::Stored> {
        let items = json.as_array().map(|a| a.iter().filter_map(T::from_json).collect());
        Some(items.unwrap_or_default())
    }

    /// Before its own fetch: the entities, once any of the tables exists (R-ALL-4).
    fn query<'s>(ctx: &mut DenormalizeCtx<'s>) -> Option<Result<Vec<T>, Unresolved>> {
        let mut out = Vec::new();
        Some(if T::read_all(ctx, &mut out) {
            Ok(out)
        } else {
            Err(Unresolved)
        })
    }

    forward_schema!(T: register);

    /// Every row of the schema's tables, and what the kept inputs reference.
    fn refs(passthrough: &Self::Stored, sink: &mut RefSink<'_>) {
        T::tables(sink);
        passthrough.iter().for_each(|r| T::refs(r, sink));
    }
}
