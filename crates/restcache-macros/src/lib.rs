//! Procedural macros of restcache: `#[derive(Entity)]`, `#[derive(Union)]` and
//! `#[derive(Schema)]`.
//!
//! Use them through the `restcache` crate, which re-exports them (`restcache::prelude::*`) and
//! documents them with runnable examples; the generated code refers to `::restcache` and does not
//! compile without it.
//!
//! All three derives read serde's field attributes, because those decide the JSON a field is
//! read from: `rename`, `rename_all`, `skip`, `skip_deserializing`, `deserialize_with` and `with`
//! are honoured (the deserialize side); `default` and `alias` change nothing (a missing field
//! always takes its `Default`); `flatten` is a compile error. `#[serde(...)]` may be written even
//! on a type that does not derive serde's traits.

mod entity;
mod fields;
mod object;
mod serde_attrs;
mod union;

use proc_macro::TokenStream;
use syn::{DeriveInput, parse_macro_input};

/// Derives `restcache::schema::Entity` (and `Schema`, `EntitySchema`, `EntityField`) for a struct
/// with named fields: a record stored once per primary key in the entity table `KEY`.
///
/// ```text
/// #[derive(Clone, Debug, Default, Entity)]
/// #[entity(key = "Todo")]              // the table's name; default: the struct's name
/// #[serde(rename_all = "camelCase")]   // JSON names, as serde computes them
/// struct Todo {
///     #[entity(pk)] id: String,        // the primary key: the field's string form
///     user_id: u32,                    // a plain field, read from "userId"
///     #[entity(schema)] owner: Option<User>,   // a nested schema: stored in User's table
/// }
/// ```
///
/// Struct attributes:
/// - `#[entity(key = "...")]`: the entity key (the name of its table).
/// - `#[entity(pk = path::to::fn)]`: a `fn(&serde_json::Value) -> Option<String>` computing the
///   primary key, instead of a pk field.
///
/// Field attributes:
/// - `#[entity(pk)]`: the primary key field (a string or a number). Exactly one of this and the
///   struct's `pk = ...` is required.
/// - `#[entity(schema)]`: a nested-schema field; its type implements `Schema` (and
///   `EntityField`: `All<_>` is not allowed here) and its `Output` converts into the field's type
///   with `From`.
///
/// The type must implement `Default` (a read starts from it) and `Clone`. Plain fields must
/// implement `serde::de::DeserializeOwned`, unless `#[serde(deserialize_with)]` reads them.
/// Generic structs are not supported.
#[proc_macro_derive(Entity, attributes(entity, serde))]
pub fn derive_entity(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    entity::derive(&input).into()
}

/// Derives `restcache::schema::Union` (and `Schema`, `EntitySchema`, `EntityField`) for an enum
/// whose variants each wrap one entity, chosen per input by a tag.
///
/// ```text
/// #[derive(Clone, Debug, Union)]
/// #[union(attribute = "type")]         // the input field holding the tag
/// enum FeedItem {
///     Link(Link),                      // tag "link": the variant's name in snake_case
///     #[union(tag = "post")] Post(Post),
///     #[union(other)] Other(serde_json::Value),  // inputs that match no tag
/// }
/// ```
///
/// Enum attributes (exactly one):
/// - `#[union(attribute = "...")]`: the tag is the string form of this field of the input.
/// - `#[union(attribute_fn = path::to::fn)]`: the tag is returned by a
///   `fn(&Value, Option<&Value>, Option<&str>) -> Option<String>`, given the input, the object
///   holding it and the key it appears under.
///
/// Variant attributes:
/// - `#[union(tag = "...")]`: the variant's tag; by default its name in snake_case
///   (`BlogPost` → `"blog_post"`). Tags are unique.
/// - `#[union(other)]`: at most one variant, holding `serde_json::Value`, which keeps inputs
///   that match no tag.
///
/// Each other variant is a one-field tuple variant whose type implements `Entity`. Generic enums
/// are not supported.
#[proc_macro_derive(Union, attributes(union))]
pub fn derive_union(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    union::derive(&input).into()
}

/// Derives `restcache::schema::Schema` for an object schema: a struct with named fields whose
/// nested-schema fields are normalized and whose plain fields are stored as they are, such as a
/// page of results.
///
/// ```text
/// #[derive(Clone, Debug, Default, Schema)]
/// struct TodoPage {
///     #[schema(nested)] results: Collection<Vec<Todo>>,   // a nested schema
///     total: u64,                                         // a plain field
/// }
/// ```
///
/// Field attribute: `#[schema(nested)]` marks a nested-schema field; its type implements
/// `Schema` (here `All<_>` is allowed) and its `Output` converts into the field's type with
/// `From`. The struct's `collection()` is that of its first nested field that has one. Serde
/// attributes are read as for `#[derive(Entity)]`.
///
/// The type must implement `Default` and `Clone`. Generic structs are not supported.
#[proc_macro_derive(Schema, attributes(schema, serde))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    object::derive(&input).into()
}
