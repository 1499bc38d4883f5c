//! `Invalidate<E>`: a response that deletes entities (R-INV).

use std::marker::PhantomData;

use super::{EntityRef, EntitySchema, RefSink, Registry, Schema, SchemaKind};
use crate::schema::denormalize::{DenormalizeCtx, Unresolved};

/// Marks the entity the response names INVALID: it vanishes from every list, `Option` fields
/// holding it become `None`, and reads that require it refetch. Reads return the pk.
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: String }
///
/// let mut store = Store::new();
/// store.set_response::<Vec<Todo>>("GET /todos", &(), &json!([{"id": "1"}, {"id": "2"}]))?;
/// store.set_response::<Invalidate<Todo>>("DELETE /todos/1", &(), &json!("1"))?;
/// let left = store.get_response::<Vec<Todo>>("GET /todos", &())?.data.unwrap();
/// assert_eq!(left.len(), 1);
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Invalidate<T>(PhantomData<fn() -> T>);

impl<T: EntitySchema> Schema for Invalidate<T> {
    type Output = String;
    type Stored = EntityRef;
    const KIND: SchemaKind = SchemaKind::Invalidate;

    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<EntityRef, D::Error> {
        T::invalidate(de).map(EntityRef::from)
    }

    fn denormalize<'s>(stored: &'s EntityRef, _: &mut DenormalizeCtx<'s>) -> Result<String, Unresolved> {
        Ok(stored.as_str().to_owned())
    }

    fn from_json(json: &serde_json::Value) -> Option<EntityRef> {
        EntityRef::from_json(json)
    }

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    /// The pk is the result: it names the row but does not keep it.
    fn refs(_: &EntityRef, _: &mut RefSink<'_>) {}
}
