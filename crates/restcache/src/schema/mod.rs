//! Schemas as types (R-NORM-1): what a response contains and what a read returns.
//!
//! | schema | accepts | read returns |
//! |---|---|---|
//! | an [`Entity`] `E` | object | `E` |
//! | a [`Union`] `U` | object | `U` |
//! | `Vec<S>`, `Option<S>`, `Box<S>` | array / null or S / S | `Vec<_>`, `Option<_>`, `Box<_>` |
//! | a `#[derive(Schema)]` struct | object | the struct |
//! | [`Collection<Vec<S>>`](Collection) | array | `Vec<S>` |
//! | [`Invalidate<E>`](Invalidate) | object, string or number | `String` (the pk) |
//! | [`All<E>`](All) | array | `Vec<E>` |
//! | [`Values<S>`](Values) | object | `BTreeMap<String, _>` |
//! | [`serde_json::Value`] | anything | `Value` |
//! | `()` | anything (ignored) | `()` |

mod all;
mod collection;
pub(crate) mod denormalize;
mod entity;
mod invalidate;
mod map_collection;
pub(crate) mod normalize;
mod object;
mod object_input;
mod registry;
mod union;
mod values;

#[doc(hidden)]
pub mod union_impl {
    //! The functions `#[derive(Union)]` delegates to.
    pub use super::union::{
        collection_key, denormalize, from_json, invalidate, is_entity, normalize, query, read_all, refs,
        select_by_attribute, select_by_tag, skipped, tables,
    };
}

use serde_json::Value;

pub use self::all::All;
pub use self::collection::{
    Collection, CollectionInfo, CollectionPolicy, DefaultCollectionPolicy, ListSchema, Move, MoveToFront, Page, Push,
    Remove, Unshift, collection_pk,
};
pub use self::entity::{Entity, EntitySchema, entity_impl};
pub use self::invalidate::Invalidate;
pub use self::map_collection::Assign;
pub(crate) use self::registry::Decoder;
pub use self::registry::Registry;
pub use self::union::Union;
pub use self::values::Values;
pub use crate::pk::pk_of;
pub use crate::pk::{pk_string, string_form};
pub use crate::refs::{EntityRef, RefSink, StoredValue, UnionRef};
pub use crate::row_text::RowText;
pub use crate::rows::{EntityRow, FieldValue, JsonRow, RowData, clone_field, merge_field, same_field};
pub use crate::schema::denormalize::{DenormalizeCtx, EntityReader, Unresolved};

pub(crate) use self::collection::{Join, join_lists};
pub use self::object::{normalize_object, read_object};

/// The impls a public wrapper of a read's output shares: `into_inner` (with the doc given),
/// `Deref` to and `From` the wrapped value, and `Clone`, `Default` and `Debug` wherever the
/// wrapped value has them, `Debug` printing the wrapped value alone.
macro_rules! output_wrapper {
    ($(#[$doc:meta])* impl[$($gen:tt)*] $ty:ty { $field:tt: $inner:ty } = $make:path) => {
        impl<$($gen)*> $ty {
            $(#[$doc])*
            pub fn into_inner(self) -> $inner {
                self.$field
            }
        }

        impl<$($gen)*> std::ops::Deref for $ty {
            type Target = $inner;
            fn deref(&self) -> &$inner {
                &self.$field
            }
        }

        impl<$($gen)*> From<$inner> for $ty {
            fn from(inner: $inner) -> Self {
                $make(inner)
            }
        }

        impl<$($gen)*> Clone for $ty where $inner: Clone {
            fn clone(&self) -> Self {
                Self::from(self.$field.clone())
            }
        }

        impl<$($gen)*> Default for $ty where $inner: Default {
            fn default() -> Self {
                Self::from(<$inner>::default())
            }
        }

        impl<$($gen)*> std::fmt::Debug for $ty where $inner: std::fmt::Debug {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Debug::fmt(&self.$field, f)
            }
        }
    };
}
use output_wrapper;

/// What sort of schema a type is, for the response rules that depend on it (R-RESP-5/6).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SchemaKind {
    /// An entity or a union.
    Entity,
    /// `Invalidate<_>`.
    Invalidate,
    /// `Vec<Invalidate<_>>`.
    InvalidateList,
    /// Anything else.
    Other,
}

/// When a schema reads the object that holds it as a field ([`Schema::PARENT`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParentUse {
    /// Never.
    Never,
    /// Only inside an entity (a collection's nest key).
    InEntity,
    /// Wherever it is a field (a union's selector).
    Always,
}

impl ParentUse {
    /// The use of a schema that reads the parent as `self` says and holds items that read it as
    /// `items` says: whichever reads it in more places.
    ///
    /// ```
    /// use restcache::schema::ParentUse;
    ///
    /// assert_eq!(ParentUse::Never.or(ParentUse::InEntity), ParentUse::InEntity);
    /// assert_eq!(ParentUse::Always.or(ParentUse::Never), ParentUse::Always);
    /// ```
    pub const fn or(self, items: ParentUse) -> ParentUse {
        match (self, items) {
            (ParentUse::Always, _) | (_, ParentUse::Always) => ParentUse::Always,
            (ParentUse::InEntity, _) | (_, ParentUse::InEntity) => ParentUse::InEntity,
            _ => ParentUse::Never,
        }
    }

    /// Whether a field of this use gets its parent at `entity_depth` (how many entities the
    /// field is inside).
    pub(crate) fn wanted(self, entity_depth: usize) -> bool {
        match self {
            ParentUse::Never => false,
            ParentUse::InEntity => entity_depth > 0,
            ParentUse::Always => true,
        }
    }
}

/// A schema: how a JSON response is normalized into the tables and read back as `Output`.
///
/// Implemented by `#[derive(Entity)]`, `#[derive(Union)]` and `#[derive(Schema)]` types and by the
/// schema types of this module; the methods are the engine's and are rarely called directly.
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct User { #[entity(pk)] id: String, name: String }
///
/// let mut store = Store::new();
/// store.set_response::<Vec<User>>("GET /users", &(), &json!([{ "id": "1", "name": "Ada" }]))?;
/// let users = store.get_response::<Vec<User>>("GET /users", &())?.data.unwrap();
/// assert_eq!(users[0].name, "Ada");
/// # Ok::<(), restcache::Error>(())
/// ```
pub trait Schema: Send + Sync + 'static {
    /// What a read of this schema returns.
    type Output: Clone + Send + Sync + 'static;

    /// The normalized form of this schema's part of a response, as the store keeps it:
    /// references ([`EntityRef`], [`UnionRef`]) in place of entities.
    type Stored: StoredValue;

    #[doc(hidden)]
    const KIND: SchemaKind = SchemaKind::Other;

    /// When normalizing this schema as a nested field looks at the object holding it (a union's
    /// selector, a nested collection's key); only then does it get a copy of that object.
    #[doc(hidden)]
    const PARENT: ParentUse = ParentUse::Never;

    /// Normalizes this schema's part of a response, read from `de` (the JSON parser over the
    /// response's bytes, or a `serde_json::Value`): writes its entities to the pending writes of
    /// the normalization running and returns the normalized form (references in place of
    /// entities). A normalization error is kept by that normalization while a placeholder serde
    /// error unwinds the parse.
    ///
    /// ```
    /// use restcache::schema::Schema;
    /// use serde_json::{Value, json};
    ///
    /// // JSON kept as it came: its normalized form is the value itself.
    /// let stored = <Value as Schema>::normalize(json!({ "a": [1, 2] }))?;
    /// assert_eq!(stored, json!({ "a": [1, 2] }));
    /// # Ok::<(), serde_json::Error>(())
    /// ```
    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error>;

    /// Builds the output from a normalized value, resolving references against the tables.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::schema::{DenormalizeCtx, Schema, Unresolved};
    ///
    /// /// A string, read back in upper case.
    /// struct Shout;
    /// impl Schema for Shout {
    ///     type Output = String;
    ///     type Stored = String;
    ///     fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<String, D::Error> {
    ///         serde::Deserialize::deserialize(de)
    ///     }
    ///     fn denormalize<'s>(stored: &'s String, _: &mut DenormalizeCtx<'s>) -> Result<String, Unresolved> {
    ///         Ok(stored.to_uppercase())
    ///     }
    /// }
    ///
    /// let mut store = Store::new();
    /// store.set_response::<Shout>("GET /motto", &(), serde_json::json!("hello"))?;
    /// assert_eq!(*store.get_response::<Shout>("GET /motto", &())?.data.unwrap(), "HELLO");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    fn denormalize<'s>(stored: &'s Self::Stored, ctx: &mut DenormalizeCtx<'s>) -> Result<Self::Output, Unresolved>;

    /// The normalized form whose JSON is `json` (as [`Store::inspect`](crate::Store::inspect)
    /// writes it), for a result another schema wrote under the key this one reads
    /// (`with_schema`, R-READ-6); `None` when `json` is no normalized form of this schema. A
    /// hand-written schema that keeps the default reads only the results it wrote itself.
    ///
    /// ```
    /// use restcache::schema::Schema;
    /// use serde_json::{Value, json};
    ///
    /// assert_eq!(<Vec<Value> as Schema>::from_json(&json!([1, 2])), Some(vec![json!(1), json!(2)]));
    /// assert_eq!(<Vec<Value> as Schema>::from_json(&json!({ "not": "a list" })), None);
    /// ```
    fn from_json(json: &Value) -> Option<Self::Stored> {
        let _ = json;
        None
    }

    /// Whether a normalized list element is one a list drops (a union element that matched no
    /// variant).
    #[doc(hidden)]
    fn skipped(stored: &Self::Stored) -> bool {
        let _ = stored;
        false
    }

    /// Query mode (R-GET-3): the output inferred from the args alone when no result is stored.
    /// `None` when nothing is found; `Some(Err(Unresolved))` when what is found is invalid.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// let mut store = Store::new();
    /// store.set_response::<Vec<Todo>>("GET /todos", &(), &json!([{ "id": 1, "title": "a" }]))?;
    /// // No result under this key: an entity's `query` finds it by the pk in the args.
    /// let todo = store.get_response::<Todo>("GET /todos/1", &params! { id: 1 })?.data.unwrap();
    /// assert_eq!(todo.title, "a");
    /// # Ok::<(), restcache::Error>(())
    /// ```
    fn query<'s>(ctx: &mut DenormalizeCtx<'s>) -> Option<Result<Self::Output, Unresolved>> {
        let _ = ctx;
        None
    }

    /// The first `Collection` of this schema (R-RES-3), for `push`, `unshift` and `get_page`.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::schema::Schema;
    ///
    /// #[derive(Clone, Debug, Default, Entity)]
    /// struct Todo { #[entity(pk)] id: u64 }
    ///
    /// assert!(<Option<Collection<Vec<Todo>>> as Schema>::collection().is_some());
    /// assert!(<Vec<Todo> as Schema>::collection().is_none()); // a plain list is no collection
    /// ```
    fn collection() -> Option<CollectionInfo> {
        None
    }

    /// Registers the entity keys this schema uses, to detect two types sharing one key.
    #[doc(hidden)]
    fn register(registry: &mut Registry) {
        let _ = registry;
    }

    /// Reports the rows a normalized value of this schema references, for the collector
    /// (R-GC-3): entities, collection lists and whole tables. The default cannot tell, and a
    /// store keeping such a value removes no row.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::schema::{RefSink, Schema};
    ///
    /// #[derive(Clone, Debug, Default, Entity)]
    /// struct Todo { #[entity(pk)] id: u64 }
    ///
    /// let refs = RefSink::collect(|sink| <Option<Todo> as Schema>::refs(&Some("7".into()), sink));
    /// assert_eq!(refs, ["Todo 7"]);
    /// let refs = RefSink::collect(|sink| <serde_json::Value as Schema>::refs(&serde_json::json!(7), sink));
    /// assert!(refs.is_empty());
    /// ```
    fn refs(stored: &Self::Stored, sink: &mut RefSink<'_>) {
        let _ = stored;
        sink.unknown();
    }

    /// [`refs`](Self::refs) of the parts `from..to` of a normalized value (a list's elements),
    /// so the collector can follow a long list a slice at a time; returns how many parts the
    /// value has. The default has one part: the whole value.
    #[doc(hidden)]
    fn refs_from(stored: &Self::Stored, from: usize, to: usize, sink: &mut RefSink<'_>) -> usize {
        if from == 0 && to > 0 {
            Self::refs(stored, sink);
        }
        1
    }
}

/// A schema that may be a nested field of an entity: every schema except [`All`] (R-ALL-5).
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct User { #[entity(pk)] id: u64 }
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, #[entity(schema)] owner: Option<User> } // Option<User>: EntityField
///
/// let mut store = Store::new();
/// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "owner": { "id": 7 } }))?;
/// let todo = store.get_response::<Todo>("GET /todos/1", &())?.data.unwrap();
/// assert_eq!(todo.owner, Some(User { id: 7 }));
/// # Ok::<(), restcache::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a nested field of an entity",
    note = "`All<_>` may only be an endpoint's schema or a field of a `#[derive(Schema)]` object"
)]
pub trait EntityField: Schema {}

/// The [`Schema`] methods named, each handing its arguments on to the schema `$s` (whose
/// `Stored` and `Output` are the implementing schema's).
macro_rules! forward_schema {
    ($s:ty: $($method:ident),+) => {
        $($crate::schema::forward_schema!(@ $method $s);)+
    };
    (@denormalize $s:ty) => {
        fn denormalize<'s>(
            stored: &'s Self::Stored,
            ctx: &mut $crate::schema::DenormalizeCtx<'s>,
        ) -> Result<Self::Output, $crate::schema::Unresolved> {
            <$s as $crate::schema::Schema>::denormalize(stored, ctx)
        }
    };
    (@query $s:ty) => {
        fn query<'s>(
            ctx: &mut $crate::schema::DenormalizeCtx<'s>,
        ) -> Option<Result<Self::Output, $crate::schema::Unresolved>> {
            <$s as $crate::schema::Schema>::query(ctx)
        }
    };
    (@from_json $s:ty) => {
        fn from_json(json: &serde_json::Value) -> Option<Self::Stored> {
            <$s as $crate::schema::Schema>::from_json(json)
        }
    };
    (@collection $s:ty) => {
        fn collection() -> Option<$crate::schema::CollectionInfo> {
            <$s as $crate::schema::Schema>::collection()
        }
    };
    (@register $s:ty) => {
        fn register(registry: &mut $crate::schema::Registry) {
            <$s as $crate::schema::Schema>::register(registry);
        }
    };
    (@refs $s:ty) => {
        fn refs(stored: &Self::Stored, sink: &mut $crate::schema::RefSink<'_>) {
            <$s as $crate::schema::Schema>::refs(stored, sink);
        }
    };
}
pub(crate) use forward_schema;

impl<S: Schema> Schema for Vec<S> {
    type Output = Vec<S::Output>;
    type Stored = Vec<S::Stored>;
    const KIND: SchemaKind = match S::KIND {
        SchemaKind::Invalidate => SchemaKind::InvalidateList,
        _ => SchemaKind::Other,
    };
    const PARENT: ParentUse = S::PARENT;

    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error> {
        crate::schema::normalize::list::<S, D>(de)
    }

    fn from_json(json: &Value) -> Option<Self::Stored> {
        Some(json.as_array()?.iter().filter_map(S::from_json).collect())
    }

    fn denormalize<'s>(items: &'s Self::Stored, ctx: &mut DenormalizeCtx<'s>) -> Result<Self::Output, Unresolved> {
        // Sized for every element: only unresolved ones (dropped) leave capacity unused.
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            if let Ok(v) = S::denormalize(item, ctx) {
                out.push(v);
            }
        }
        Ok(out)
    }

    forward_schema!(S: register);

    fn refs(items: &Self::Stored, sink: &mut RefSink<'_>) {
        items.iter().for_each(|item| S::refs(item, sink));
    }

    fn refs_from(items: &Self::Stored, from: usize, to: usize, sink: &mut RefSink<'_>) -> usize {
        refs_in::<S>(items, from, to, sink)
    }
}
impl<S: EntityField> EntityField for Vec<S> {}

/// [`Schema::refs_from`] of a list of `S`: reports the references of `items[from..to]` (to its
/// end at most) and returns its length.
pub(crate) fn refs_in<S: Schema>(items: &[S::Stored], from: usize, to: usize, sink: &mut RefSink<'_>) -> usize {
    let to = to.min(items.len());
    items
        .get(from..to)
        .into_iter()
        .flatten()
        .for_each(|item| S::refs(item, sink));
    items.len()
}

impl<S: Schema> Schema for Option<S> {
    type Output = Option<S::Output>;
    type Stored = Option<S::Stored>;
    const PARENT: ParentUse = S::PARENT;

    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error> {
        serde::de::DeserializeSeed::deserialize(crate::schema::normalize::OptionSeed::<S>(std::marker::PhantomData), de)
    }

    fn from_json(json: &Value) -> Option<Self::Stored> {
        match json {
            Value::Null => Some(None),
            json => S::from_json(json).map(Some),
        }
    }

    /// An element that matched no variant is dropped from a list as the bare union's is.
    fn skipped(stored: &Self::Stored) -> bool {
        stored.as_ref().is_some_and(S::skipped)
    }

    fn denormalize<'s>(stored: &'s Self::Stored, ctx: &mut DenormalizeCtx<'s>) -> Result<Self::Output, Unresolved> {
        match stored {
            None => Ok(None),
            Some(v) => Ok(S::denormalize(v, ctx).ok()),
        }
    }

    fn query<'s>(ctx: &mut DenormalizeCtx<'s>) -> Option<Result<Self::Output, Unresolved>> {
        S::query(ctx).map(|r| Ok(r.ok()))
    }

    forward_schema!(S: collection, register);

    fn refs(stored: &Self::Stored, sink: &mut RefSink<'_>) {
        if let Some(v) = stored {
            S::refs(v, sink);
        }
    }

    fn refs_from(stored: &Self::Stored, from: usize, to: usize, sink: &mut RefSink<'_>) -> usize {
        stored.as_ref().map_or(0, |v| S::refs_from(v, from, to, sink))
    }
}
impl<S: EntityField> EntityField for Option<S> {}

impl<S: Schema> Schema for Box<S> {
    type Output = Box<S::Output>;
    type Stored = S::Stored;
    const KIND: SchemaKind = S::KIND;
    const PARENT: ParentUse = S::PARENT;

    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error> {
        S::normalize(de)
    }

    fn denormalize<'s>(stored: &'s Self::Stored, ctx: &mut DenormalizeCtx<'s>) -> Result<Self::Output, Unresolved> {
        S::denormalize(stored, ctx).map(Box::new)
    }

    fn query<'s>(ctx: &mut DenormalizeCtx<'s>) -> Option<Result<Self::Output, Unresolved>> {
        S::query(ctx).map(|r| r.map(Box::new))
    }

    fn skipped(stored: &Self::Stored) -> bool {
        S::skipped(stored)
    }

    fn refs_from(stored: &Self::Stored, from: usize, to: usize, sink: &mut RefSink<'_>) -> usize {
        S::refs_from(stored, from, to, sink)
    }

    forward_schema!(S: from_json, collection, register, refs);
}
impl<S: EntityField> EntityField for Box<S> {}

/// Any JSON, stored as-is and not normalized.
impl Schema for Value {
    type Output = Value;
    type Stored = Value;

    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Value, D::Error> {
        serde::Deserialize::deserialize(de)
    }

    fn denormalize<'s>(stored: &'s Value, _: &mut DenormalizeCtx<'s>) -> Result<Value, Unresolved> {
        Ok(stored.clone())
    }

    fn from_json(json: &Value) -> Option<Value> {
        Some(json.clone())
    }

    /// JSON kept as it came references nothing.
    fn refs(_: &Value, _: &mut RefSink<'_>) {}
}
impl EntityField for Value {}

/// No data: the response body is ignored.
impl Schema for () {
    type Output = ();
    type Stored = ();

    fn normalize<'de, D: serde::Deserializer<'de>>(de: D) -> Result<(), D::Error> {
        <serde::de::IgnoredAny as serde::Deserialize>::deserialize(de)?;
        Ok(())
    }

    fn denormalize<'s>(_: &'s (), _: &mut DenormalizeCtx<'s>) -> Result<(), Unresolved> {
        Ok(())
    }

    fn from_json(_: &Value) -> Option<()> {
        Some(())
    }

    /// A list of `()` keeps nothing: there is no data.
    fn skipped(_: &()) -> bool {
        true
    }

    fn refs(_: &(), _: &mut RefSink<'_>) {}
}
impl EntityField for () {}
