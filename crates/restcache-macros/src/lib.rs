//! Procedural macros of restcache: `#[derive(Entity)]`, `#[derive(Union)]`,
//! `#[derive(Schema)]` and `resource!`.
//!
//! Use them through the `restcache` crate, which re-exports them (`restcache::prelude::*`) and
//! documents them with runnable examples; the generated code refers to `::restcache` and does not
//! compile without it.
//!
//! `#[derive(Entity)]` and `#[derive(Schema)]` emit a hidden row type that serde's own derive
//! fills: every field optional (a response may carry some of them), nested schemas normalized as
//! they are parsed. The struct's and its fields' serde attributes are handed on to it, so each
//! behaves as serde documents it (`rename`, `rename_all`, `alias`, `skip`, `with`,
//! `deserialize_with`, `flatten`, `deny_unknown_fields`, ...); a field's `default` gives a field
//! no response carried its value when read. Attributes that cannot apply to a row filled field by
//! field (`from`, `try_from`, `transparent`, `tag`, `untagged`, ...) are compile errors.
//! `#[serde(...)]` may be written even on a type that does not derive serde's traits.

#![warn(missing_docs)]

mod entity;
mod fields;
mod object;
mod resource;
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
///   primary key, instead of a pk field. It runs while a response is normalized: it must not
///   call the `Controller` or write to the `Store`.
///
/// Field attributes:
/// - `#[entity(pk)]`: the primary key field (a string or a number). Exactly one of this and the
///   struct's `pk = ...` is required.
/// - `#[entity(schema)]`: a nested-schema field; its type implements `Schema` (and
///   `EntityField`: `All<_>` is not allowed here) and its `Output` converts into the field's type
///   with `From`.
///
/// The type must implement `Default` and `Clone`, and not `Drop`: a field no response carried
/// reads as the struct's `Default` has it, moved out of that value (as serde's container
/// `#[serde(default)]` does). Plain fields must
/// implement `serde::de::DeserializeOwned` (unless `#[serde(deserialize_with)]` reads them) and
/// `restcache::schema::FieldValue` (`PartialEq`, `Clone` and `serde::Serialize`: a field is
/// compared with the stored one, cloned into reads and written back as JSON). Generic structs
/// are not supported. The row keeps a `String` or `Option<String>` field that serde reads by
/// itself as `restcache::schema::RowText`: up to 24 bytes of text (12 on wasm32) inline, with no
/// allocation.
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
///   holding it and the key it appears under. Like a pk function, it must not call the
///   `Controller` or write to the `Store`.
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
/// Field attributes:
/// - `#[schema(nested)]` marks a nested-schema field; its type implements `Schema` (here
///   `All<_>` is allowed) and its `Output` converts into the field's type with `From`.
/// - `#[schema(collection)]` marks the nested field whose collection `push`, `unshift` and
///   `get_page` work on (it implies `nested`; at most one field).
///
/// Serde attributes are read as for `#[derive(Entity)]`.
///
/// **List schemas.** The struct implements `restcache::schema::ListSchema` (so a member reading
/// it offers `push()`, `unshift()` and `get_page()`) when it holds a collection: the
/// `#[schema(collection)]` field if there is one, otherwise the first `#[schema(nested)]` field
/// whose type is written `Collection<..>` (its last path segment is `Collection`). Its `Item`
/// is that field's `ListSchema::Item`. A struct with neither is not a list schema, and `push()`
/// on it does not compile. The struct's `collection()` is the marked field's, else that of its
/// first nested field that has one.
///
/// **Generics.** Type parameters are allowed (lifetimes and const parameters are not), as in a
/// page reusable for every entity:
///
/// ```text
/// #[derive(Clone, Debug, Default, Schema)]
/// struct Paginated<E> {
///     #[schema(nested)] results: Collection<Vec<E>>,
///     total: u64,
/// }
/// ```
///
/// The impls then require what the generated code uses: each nested field type that names a
/// parameter implements `Schema` and `From<its Output>`, each such plain field type
/// `DeserializeOwned` and `restcache::schema::FieldValue` (its normalized form, the struct's
/// row, is compared, cloned and written back as JSON), the struct
/// `Default + Clone + Send + Sync + 'static`, and every parameter `'static`.
///
/// The type must implement `Default` and `Clone`, and not `Drop` (as an entity), and each plain
/// field type `FieldValue`
/// (`PartialEq`, `Clone` and `serde::Serialize`), as an entity's; text fields are kept as an
/// entity's are (`RowText`).
#[proc_macro_derive(Schema, attributes(schema, serde))]
pub fn derive_schema(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    object::derive(&input).into()
}

/// Declares a REST resource: a unit struct whose associated functions are its members, each a
/// `RestEndpoint`, and a typed parameter struct for each of its paths.
///
/// Use it as `restcache::resource!` (the runtime crate re-exports it). Everything that
/// `Resource::new` would reject at run time is a compile error here, on the option at fault.
///
/// ```text
/// resource! {
///     /// Todos of one user.                            (attributes go to the struct)
///     #[resource(
///         path = "/users/:user_id/todos/:id",
///         schema = Todo,
///         url_prefix = "http://127.0.0.1:3000",
///         search_params = TodoFilter,
///         body = TodoInput,
///         pagination_field = "page",
///         optimistic,
///         endpoint = AuthEndpoint,
///         collection = TodoCollection,
///         poll_frequency = 60_000,
///     )]
///     pub struct TodoResource {
///         #[member(schema = TodoPage)]
///         get_list,                                      // override a standard member
///         #[member(path = "/todos/search\\?q=:q?&page=:page?", schema = Vec<Todo>)]
///         search,                                        // add a member, from `get`
///         #[member(extends = get_list, path = "/users/:user_id/todos/done")]
///         done,                                          // derive a member from another
///         #[member(method = "DELETE", path = "/todos", body = Vec<String>, schema = Vec<Invalidate<Todo>>)]
///         delete_many,                                   // batch delete (R-RES-7)
///     }
/// }
///
/// TodoResource::get().url(&params! { user_id: "u1", id: "5" })?;
///     // "http://127.0.0.1:3000/users/u1/todos/5"
/// TodoResource::get_list().push().name();             // "Todo.get_list.push"
/// TodoResource::search().url(&TodoResourceSearchParams { q: Some("bug".into()), page: None })?;
///     // "http://127.0.0.1:3000/todos/search?q=bug&page="
/// ```
///
/// This example is compiled and checked by the macro crate's `tests/resource.rs`.
///
/// # The declaration
///
/// `#[attributes] VIS struct NAME;` or `#[attributes] VIS struct NAME { members }`. The struct
/// is generated as a unit struct with its visibility and its attributes (doc comments, derives),
/// except `#[resource(...)]`, which may be split over several attributes. It cannot be generic.
///
/// # Resource options: `#[resource(...)]`
///
/// | option | value | |
/// |---|---|---|
/// | `path` | string | **Required.** The path template of `get`, `update`, `partial_update` and `delete`; the list members use it without its last parameter (`/users/:user_id/todos`). It must have a parameter. |
/// | `schema` | type | **Required.** The entity or union (`E`). |
/// | `url_prefix` | string | Put before every member's path, verbatim. |
/// | `search_params` | type | The list's query parameters; only checked to be `Serialize`. |
/// | `body` | type | The body type `B` of `update`, `push` and `unshift`. Default: `AnyBody`. |
/// | `pagination_field` | string | `get_list()` offers `get_page()`, which sets this query parameter. |
/// | `optimistic` | flag | The mutation members apply optimistic updates. |
/// | `endpoint` | type | Request hooks for every member: `EndpointHooks + Default`. |
/// | `collection` | type | A `CollectionPolicy + Default`; `get_list` reads `Collection<Vec<E>, ThatType>`. |
/// | `non_filter_argument_keys` | `["orderBy", ..]` or `path::to::fn` | The list arguments that do not filter (a `fn(&str) -> bool`). Not together with `collection`. |
/// | `poll_frequency` | integer ms ≥ 1 | Polling period while subscribed. |
/// | `data_expiry_length` | integer ms | How long a response stays fresh (default 60 000). |
/// | `error_expiry_length` | integer ms | How long an error stands (default 1 000). |
/// | `invalid_if_stale` | flag | Stale data reads as invalid, so a read waits for the refetch. |
///
/// # Members
///
/// Each member is an associated fn with the struct's visibility, returning a
/// `RestEndpoint<S, B, G>`; `G` is `Pages` when the member has a `pagination_field` (then it
/// offers `get_page()`), else `NoPages`. The standard members always exist:
///
/// | member | request | returns |
/// |---|---|---|
/// | `get()` | `GET path` | `RestEndpoint<E, B>` |
/// | `get_list()` | `GET` list path | `RestEndpoint<L, B, G>`: `L` is `Collection<Vec<E>>` (or the `schema` of its override); `push()`, `unshift()` and, with `pagination_field`, `get_page()` derive from it |
/// | `update()` | `PUT path` | `RestEndpoint<E, B>` |
/// | `partial_update()` | `PATCH path` | `RestEndpoint<E, AnyBody>` |
/// | `delete()` | `DELETE path` | `RestEndpoint<Invalidate<E>, AnyBody>` |
///
/// Members are named `K.member` (`Todo.get`, `Todo.get_list.push`), `K` being the entity key or
/// the union's name; the name is for tracing and never part of a key.
///
/// Entries of the member list (`#[member(...)] name,`, doc comments allowed) take three forms:
///
/// - **Override**: the name of a standard member changes its options in place. A `schema` or
///   `body` changes its type (for `get_list`, `L`, and so what `push`, `unshift` and
///   `get_page` read). A `path` given to `get_list` is used as written.
/// - **Add**: a new name without `extends` is a new member built from `get`'s options (`GET`,
///   the full path, prefix, hooks, expiry) with the given ones applied; its schema is `E`
///   unless `schema` says otherwise. It has no optimistic transform.
/// - **Derive**: `extends = member` starts from every option of a standard member or of a
///   member declared before, including its schema, body type, pagination and optimistic
///   transform.
///
/// Member options: `path`, `method` (`"GET"`, `"POST"`, `"PUT"`, `"PATCH"`, `"DELETE"`,
/// `"HEAD"`, `"OPTIONS"`, in any case), `schema`, `body`, `search_params`, `url_prefix`,
/// `pagination_field`, `optimistic` (a flag, or `= false`), `endpoint`, `data_expiry_length`,
/// `error_expiry_length`, `invalid_if_stale` (a flag, or `= false`), `poll_frequency`, `name`
/// (replaces `K.member`) and `extends`. A `body` on a member whose method is `GET` or `HEAD`
/// is an error: those requests send none (R-RES-2).
///
/// # Parameter structs
///
/// One struct per distinct path, with the struct's visibility: `{Name}Params` for the resource
/// path, `{Name}ListParams` for `get_list`'s, and `{Name}{Member}Params` (`TodoResourceSearchParams`)
/// for each other path, in member order. A field per parameter, in template order: `String`
/// for a required parameter, `Option<String>` for an optional or grouped one, `Vec<String>` for
/// a wildcard. They derive `Debug`, `Clone`, `Default`, `PartialEq` and `Eq`, and serialize to
/// the args map (leaving out `None`), so they can be passed wherever args are.
///
/// # Compile errors
///
/// A missing `path` or `schema`; an invalid template (the reason of R-PATH-2, on the literal; a
/// literal's Rust escapes are resolved first, so `"\\?"` is the template `\?`); a resource path
/// with no parameter; `collection` with `non_filter_argument_keys`; `poll_frequency = 0`; an
/// unknown option or method; a member declared twice; a member whose params struct would take
/// the name of another path's (`list` with a path of its own); an `extends` target that is unknown or
/// declared later; `extends` on a standard member; `body` on a GET member; `get_page()` on a
/// member without `pagination_field` (no such method); a `schema` that is not an entity or
/// union.
#[proc_macro]
pub fn resource(input: TokenStream) -> TokenStream {
    resource::resource(input.into()).into()
}
