//! restcache: declare REST resources in Rust and keep what they return in one normalized,
//! shared cache, so an entity updated by one request is updated in every read.
//!
//! This release holds the engine: entities, schemas as types, normalization into entity tables
//! and the [`Store`] that reads them back. Resources over HTTP and the `Controller` follow.
//!
//! ```
//! use restcache::prelude::*;
//! use serde_json::json;
//!
//! #[derive(Clone, Debug, Default, PartialEq, Entity)]
//! struct User { #[entity(pk)] id: String, name: String }
//!
//! #[derive(Clone, Debug, Default, PartialEq, Entity)]
//! struct Todo {
//!     #[entity(pk)] id: String,
//!     title: String,
//!     completed: bool,
//!     #[entity(schema)] owner: Option<User>,
//! }
//!
//! let mut store = Store::new();
//! store.set_response::<Collection<Vec<Todo>>>(
//!     "GET /todos",
//!     &(),
//!     &json!([{ "id": "1", "title": "ship", "owner": { "id": "u1", "name": "Ada" } }]),
//! )?;
//! // Another response updates the user; the list sees it without refetching.
//! store.set_response::<User>("GET /users/u1", &(), &json!({ "id": "u1", "name": "Ada L." }))?;
//! let todos = store.get_response::<Collection<Vec<Todo>>>("GET /todos", &())?.data.unwrap();
//! assert_eq!(todos[0].owner.as_ref().unwrap().name, "Ada L.");
//! # Ok::<(), restcache::Error>(())
//! ```
#![warn(missing_docs)]

pub mod controller;
mod denormalize;
mod error;
mod normalize;
pub mod rest;
pub mod schema;
pub mod store;
mod tables;

pub use controller::Controller;
pub use error::Error;
/// The HTTP client restcache uses, for [`ControllerBuilder::client`](controller::ControllerBuilder::client).
pub use reqwest;
pub use reqwest::Method;
pub use rest::{Resource, RestEndpoint};
pub use restcache_macros::{Entity, Schema, Union, resource};
pub use store::{Cached, ExpiryStatus, Store};

/// Builds call args: `params! { user_id: "u1", id: 5 }` is the JSON object
/// `{"user_id": "u1", "id": 5}`.
///
/// ```
/// let args = restcache::params! { user_id: "u1", completed: true };
/// assert_eq!(args, serde_json::json!({ "user_id": "u1", "completed": true }));
/// ```
#[macro_export]
macro_rules! params {
    ($($key:ident : $value:expr),* $(,)?) => {
        $crate::__private::json!({ $(stringify!($key): $value),* })
    };
}

/// The names most programs need.
pub mod prelude {
    pub use crate::rest::{Resource, ResourceOptions, RestEndpoint};
    pub use crate::schema::{All, Collection, CollectionPolicy, Invalidate, ListSchema, Page, Push, Unshift, Values};
    pub use crate::store::{Cached, ExpiryStatus, Store};
    pub use crate::{Controller, Entity, Error, Schema, Union, params, resource};
}

/// What macro-generated code refers to. Not public API.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json::{Map, Value, json};
    pub use std::sync::OnceLock;

    pub use crate::denormalize::{DenormalizeCtx, RecordReader, Unresolved};
    pub use crate::error::Error;
    pub use crate::normalize::{NormalizeCtx, RecordWriter};
    pub use crate::schema::{
        Entity, EntityField, EntitySchema, Registry, Schema, SchemaKind, Union, normalize_object, read_object,
    };

    /// `#[entity(pk)]`: the pk of an object by one field.
    pub fn pk_field(input: &Value, field: &str) -> Option<String> {
        crate::normalize::pk_string(input.get(field))
    }

    /// Normalizes an entity (a union variant); returns its pk.
    pub fn normalize_entity<'a, E: Entity>(input: &'a Value, ctx: &mut NormalizeCtx<'a>) -> Result<String, Error> {
        crate::normalize::normalize_entity::<E>(input, ctx)
    }

    /// Reads an entity by pk (a union variant).
    pub fn read_entity<E: Entity>(pk: &str, ctx: &mut DenormalizeCtx<'_>) -> Result<E, Unresolved> {
        ctx.read_entity(pk)
    }

    /// The string form of `value[attr]` among `tags`.
    pub fn select_by_attribute(value: &Value, attr: &str, tags: &[&str]) -> Option<usize> {
        crate::schema::select_by_attribute(value, attr, tags)
    }

    /// A tag from an attribute function among `tags`.
    pub fn select_by_tag(tag: Option<impl AsRef<str>>, tags: &[&str]) -> Option<usize> {
        crate::schema::select_by_tag(tag, tags)
    }

    pub use crate::schema::entity_impl as entity;

    /// Union helpers.
    pub mod union {
        pub use crate::schema::union_impl::*;
    }
}
