//! restcache: declare the REST resources a program talks to, and keep everything they return in
//! one normalized cache.
//!
//! Each entity is stored once, by type and primary key, so an entity updated by one response is
//! updated in every list and detail view that shows it. Reads go through the cache
//! ([`Controller::suspense`]), live views follow it ([`Controller::subscribe`]), and mutations of
//! `optimistic` resources show their outcome before the server answers.
//!
//! ```
//! use restcache::prelude::*;
//! use serde_json::json;
//!
//! #[derive(Clone, Debug, Default, PartialEq, Entity)]
//! #[serde(rename_all = "camelCase")]
//! struct Todo {
//!     #[entity(pk)]
//!     id: u64,
//!     user_id: String,
//!     title: String,
//!     completed: bool,
//! }
//!
//! resource! {
//!     #[resource(path = "/todos/:id", schema = Todo, pagination_field = "page")]
//!     pub struct TodoResource;
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let server = demo_api::DemoServer::start().await?;
//! let ctrl = Controller::builder().base_url(server.base_url()).build()?;
//!
//! // GET /todos?userId=u1, then a read of one of them without a request.
//! let todos = ctrl.suspense(&TodoResource::get_list(), params! { userId: "u1" }).await?;
//! let first = ctrl.suspense(&TodoResource::get(), params! { id: todos[0].id }).await?;
//! assert_eq!(server.requests().len(), 1);
//!
//! // A live view: first the list, then its newest state after each change.
//! let mut live = ctrl.subscribe(&TodoResource::get_list(), params! { userId: "u1" });
//! assert_eq!(live.next().await.unwrap()?.len(), 10);
//!
//! // PATCH one todo: the list sees it.
//! ctrl.fetch(&TodoResource::partial_update(), params! { id: first.id })
//!     .body(&json!({ "completed": true }))
//!     .await?;
//! assert!(live.next().await.unwrap()?[0].completed);
//!
//! // Create one: it joins the lists whose filters it matches. Delete it: it leaves them all.
//! let made = ctrl.fetch(&TodoResource::get_list().push(), params! { userId: "u1" })
//!     .body(&json!({ "title": "Try restcache" }))
//!     .await?;
//! assert_eq!(live.next().await.unwrap()?.len(), 11);
//! ctrl.fetch(&TodoResource::delete(), params! { id: made.id }).await?;
//! assert_eq!(live.next().await.unwrap()?.len(), 10);
//! # Ok(())
//! # }
//! ```
//!
//! Where to look:
//! - [`schema`]: schemas as types — [`Entity`], [`Union`], [`Schema`] objects,
//!   [`Collection`](schema::Collection), [`Invalidate`](schema::Invalidate), [`All`](schema::All).
//! - [`resource!`] and [`rest`]: members, URLs and keys, hooks, credentials.
//! - [`Controller`]: fetch, suspense, subscribe, invalidate, expire, reset, optimistic updates.
//! - [`Store`]: the normalized cache itself, synchronous and free of I/O.
#![warn(missing_docs)]
#![forbid(unsafe_code)]

// The derives name `::restcache`, which this crate's own tests use too.
extern crate self as restcache;

/// For this repository's benchmarks only, with the `bench-hooks` feature. Not public API.
#[cfg(feature = "bench-hooks")]
#[doc(hidden)]
pub mod bench_hooks;
mod bounded_value;
pub mod controller;
mod error;
mod heap_size;
mod json;
pub mod persist;
mod pk;
mod refs;
pub mod rest;
mod row_map;
mod row_text;
mod rows;
mod rt;
pub mod schema;
pub mod store;
mod tables;

pub use bounded_value::Params;
pub use controller::Controller;
pub use error::{Error, TransportSource};
/// The HTTP client restcache uses, for [`ControllerBuilder::client`](controller::ControllerBuilder::client).
pub use reqwest;
pub use reqwest::Method;
pub use rest::{Resource, RestEndpoint};
pub use restcache_macros::{Entity, Schema, Union, resource};
pub use rt::Instant;
pub use store::{Cached, ExpiryStatus, Store};

/// Builds call args: `params! { user_id: "u1", id: 5 }` is the JSON object
/// `{"user_id": "u1", "id": 5}`, as [`Params`]. Each value is borrowed and serialized; one that
/// cannot become JSON (nested deeper than 128 levels, say) makes the call given these args fail
/// with `Error::InvalidArgs`, never a panic.
///
/// ```
/// let args = restcache::params! { user_id: "u1", completed: true };
/// assert_eq!(args, serde_json::json!({ "user_id": "u1", "completed": true }));
/// ```
#[macro_export]
macro_rules! params {
    ($($key:ident : $value:expr),* $(,)?) => {
        $crate::Params::__new() $(.__field(stringify!($key), &$value))*
    };
}

/// The names most programs need.
pub mod prelude {
    pub use crate::controller::ReadStatus;
    pub use crate::rest::{Resource, ResourceOptions, RestEndpoint};
    pub use crate::schema::{
        All, Assign, Collection, CollectionPolicy, Invalidate, ListSchema, Move, MoveToFront, Page, Push, Remove,
        Unshift, Values,
    };
    pub use crate::store::{Cached, ExpiryStatus, Store};
    pub use crate::{Controller, Entity, Error, Schema, Union, params, resource};
}

/// What macro-generated code refers to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json;
    pub use serde_json::{Map, Value, json};
    pub use std::sync::OnceLock;

    pub use crate::error::Error;
    pub use crate::pk::pk_of;
    pub use crate::row_text::RowText;
    pub use crate::rows::{EntityRow, FieldValue, RowData, clone_field, merge_field, same_field};
    pub use crate::schema::denormalize::{DenormalizeCtx, EntityReader, Unresolved};
    pub use crate::schema::normalize::nested;
    pub use crate::schema::{
        Entity, EntityField, EntityRef, EntitySchema, ParentUse, RefSink, Registry, Schema, SchemaKind, Union,
        UnionRef, normalize_object, read_object,
    };

    /// `#[entity(pk)]`: the pk of a row's field, as a reference.
    pub fn pk_ref<T: serde::Serialize + ?Sized>(value: &T) -> Option<EntityRef> {
        crate::pk::pk_text(value)
    }

    /// `#[entity(pk)]`: the pk of an object by one field.
    pub fn pk_field(input: &Value, field: &str) -> Option<String> {
        crate::pk::pk_string(input.get(field))
    }

    /// `#[entity(pk)]`: the pk of an object by one field of type `T`: the value read as a `T`,
    /// as a row holds it (a `1` for an `f64` is `1.0`), or, when it is no `T` (a number given
    /// as a string), the value as the pk rule takes it.
    pub fn pk_field_as<T: serde::de::DeserializeOwned + serde::Serialize>(
        input: &Value,
        field: &str,
    ) -> Option<String> {
        pk_value_as::<T>(input.get(field)?)
    }

    /// `#[entity(pk)]`: the pk a bare value (a delete's answer) names, read as the pk field's
    /// type `T` as [`pk_field_as`] reads a field.
    pub fn pk_value_as<T: serde::de::DeserializeOwned + serde::Serialize>(value: &Value) -> Option<String> {
        let typed = T::deserialize(value).ok().and_then(|v| crate::pk::pk_of(&v));
        typed.or_else(|| crate::pk::pk_string(Some(value)))
    }

    /// The heap bytes a row's field holds (R-GC-4).
    pub fn heap_bytes<T: serde::Serialize + ?Sized>(value: &T) -> usize {
        crate::heap_size::heap_bytes(value)
    }

    /// Reads an entity by pk (a union variant).
    pub fn read_entity<E: Entity>(pk: &str, ctx: &mut DenormalizeCtx<'_>) -> Result<E, Unresolved> {
        ctx.read_entity(pk)
    }

    /// The pk of a row as JSON (`#[entity(pk = path)]`: the function reads an object).
    pub fn pk_by_fn<R: RowData>(row: &R, pk: fn(&Value) -> Option<String>) -> Option<String> {
        pk(&Value::Object(row.to_json()))
    }

    /// A plain field of a row: the value the object holds, `null` included, deserialized as
    /// the field's type.
    pub fn present<'de, T: serde::Deserialize<'de>, D: serde::Deserializer<'de>>(de: D) -> Result<Option<T>, D::Error> {
        T::deserialize(de).map(Some)
    }

    /// The value of a nested field a row lacks.
    pub fn none<T>() -> Option<T> {
        None
    }

    /// A plain field as JSON, as its type serializes it (`None` when it cannot be JSON).
    pub fn json_of<T: serde::Serialize>(value: &T) -> Option<Value> {
        serde_json::to_value(value).ok()
    }

    /// A `#[serde(flatten)]` field's JSON object merged into its row's.
    pub fn flatten_into(map: &mut Map<String, Value>, json: Option<Value>) {
        if let Some(Value::Object(fields)) = json {
            map.extend(fields);
        }
    }

    pub use crate::schema::entity_impl as entity;

    /// Union helpers.
    pub mod union {
        pub use crate::schema::union_impl::*;
    }
}
