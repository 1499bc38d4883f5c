//! Entities: records with a primary key, stored once per `(key, pk)` and shared by every read.

use std::any::{TypeId, type_name};
use std::hash::Hash;

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::denormalize::{DenormalizeCtx, EntityReader, Unresolved};
use super::normalize::{Normalizing, fail, in_object, invalid, with};
use super::object_input::ObjectInput;
use super::registry::Decoder;
use super::{Registry, Schema};
use crate::error::Error;
use crate::json::kind;
use crate::pk::string_form;
use crate::refs::{EntityRef, RefSink};
use crate::rows::{EntityRow, Row, RowData};
use crate::tables::Record;

/// A type whose values are stored in the entity table `KEY`, one row per primary key.
///
/// Usually derived: `#[derive(Entity)]` with `#[entity(pk)]` on the pk field,
/// `#[entity(key = "...")]` to name the table and `#[entity(schema)]` on nested-schema fields;
/// the derive writes the row type, which serde fills with the fields' own serde attributes.
/// It can also be written by hand, over a [`JsonRow`](super::JsonRow):
///
/// ```
/// use restcache::schema::{Entity, EntityReader, JsonRow, Unresolved, pk_string};
/// use restcache::Error;
/// use serde_json::Value;
///
/// #[derive(Clone, Debug, Default)]
/// struct Tag { name: String, uses: u32 }
///
/// impl Entity for Tag {
///     const KEY: &'static str = "Tag";
///     const COLLECTION_KEY: &'static str = "[Tag]";
///     type Row = JsonRow;
///     fn pk(input: &Value) -> Option<String> {
///         pk_string(input.get("name"))
///     }
///     fn row_pk(row: &JsonRow) -> Option<String> {
///         pk_string(row.0.get("name"))
///     }
///     fn read(row: &JsonRow, _: &mut EntityReader<'_, '_>) -> Result<Self, Unresolved> {
///         Ok(Tag {
///             name: row.get("name").unwrap_or_default(),
///             uses: row.get("uses").unwrap_or_default(),
///         })
///     }
/// }
///
/// restcache::impl_entity_schema!(Tag);
///
/// let mut store = restcache::Store::new();
/// store.set_response::<Tag>("GET /tags/rust", &(), &serde_json::json!({"name": "rust", "uses": 3}))?;
/// # Ok::<(), Error>(())
/// ```
pub trait Entity: Default + Clone + Send + Sync + 'static {
    /// The entity key: the name of the entity's table.
    const KEY: &'static str;
    /// The name of the table holding this entity's collections: `"[" + KEY + "]"`.
    const COLLECTION_KEY: &'static str;

    /// The stored form of one entity: filled by serde from a response, merged field by field
    /// with the stored one (R-NORM-6), nested schemas held as references.
    type Row: EntityRow + serde::de::DeserializeOwned;

    /// The primary key of an input object (R-NORM-3): query args, an `Invalidate` input.
    /// `None` (or `""`) when it has none.
    fn pk(input: &Value) -> Option<String>;

    /// The primary key of a row just filled from a response (R-NORM-3).
    fn row_pk(row: &Self::Row) -> Option<String>;

    /// The primary key a bare string or number names (an `Invalidate` input): as a row holds
    /// it, when the pk is a field of a type the derive knows; else the value's text.
    #[doc(hidden)]
    fn bare_pk(input: &Value) -> Option<String> {
        bare_pk_text(input)
    }

    /// [`row_pk`](Self::row_pk) as the reference the store keeps; the derive writes a short pk
    /// inline, without a `String` in between.
    #[doc(hidden)]
    fn row_ref(row: &Self::Row) -> Option<EntityRef> {
        Self::row_pk(row).map(EntityRef::from)
    }

    /// Builds the entity from its stored row: `Default` overlaid with the row's fields, nested
    /// schemas read through `r`.
    fn read<'s>(row: &'s Self::Row, r: &mut EntityReader<'_, 's>) -> Result<Self, Unresolved>;

    /// Registers the nested schemas' entity keys.
    #[doc(hidden)]
    fn register_nested(registry: &mut Registry) {
        let _ = registry;
    }
}

/// The `Schema` methods of an entity, which `#[derive(Entity)]` (or
/// [`impl_entity_schema!`](crate::impl_entity_schema)) delegates to.
#[doc(hidden)]
pub mod entity_impl {
    use super::*;

    /// Normalizes one entity from `de`: its row (filled by serde, nested schemas normalized on
    /// the way), then its pk (R-NORM-3; a `Values` key stands in for a missing one), then its
    /// pending write. Returns its reference.
    pub fn normalize<'de, E: Entity, D: Deserializer<'de>>(de: D) -> Result<EntityRef, D::Error> {
        let (row, fallback) = in_object(Some(E::KEY), || {
            E::Row::deserialize(ObjectInput {
                de,
                entity: Some(E::KEY),
            })
        })?;
        let pk = E::row_ref(&row)
            .filter(|pk| !pk.as_str().is_empty())
            // A `Values` map key stands in for a missing pk, but an empty key is no pk either (R-NORM-3).
            .or_else(|| fallback.filter(|k| !k.is_empty()).map(EntityRef::from));
        let Some(pk) = pk else {
            return Err(invalid(Some(E::KEY), "missing or empty primary key"));
        };
        with(|n| n.pending.entity(E::KEY, pk.as_str(), Box::new(row)));
        Ok(pk)
    }

    pub fn denormalize<'s, E: Entity>(stored: &'s EntityRef, ctx: &mut DenormalizeCtx<'s>) -> Result<E, Unresolved> {
        ctx.read_entity(stored.as_str())
    }

    pub fn from_json(json: &Value) -> Option<EntityRef> {
        EntityRef::from_json(json)
    }

    pub fn query<E: Entity>(ctx: &mut DenormalizeCtx<'_>) -> Option<Result<E, Unresolved>> {
        let pk = E::pk(ctx.args())?;
        let (table, row, slot) = ctx.slot(E::KEY, &pk)?;
        Some(ctx.read_slot(table, row, slot))
    }

    pub fn register<E: Entity + EntitySchema>(registry: &mut Registry) {
        if registry.visit(E::KEY, TypeId::of::<E>(), type_name::<E>()) {
            let json = |json: &Value| E::Row::from_json(json).map(|row| Box::new(row) as Box<dyn Row>);
            let text = |text: &str| E::Row::from_json_text(text).map(|row| Box::new(row) as Box<dyn Row>);
            registry.decoder(E::KEY, Decoder::Row { json, text });
            // Its lists and maps read back with it, so one entity's schema restores them all.
            super::super::collection::register_tables::<E>(registry);
            E::register_nested(registry);
        }
    }

    pub fn read_all<E: Entity>(ctx: &mut DenormalizeCtx<'_>, out: &mut Vec<E>) -> bool {
        if !ctx.enumerate(E::KEY) {
            return false;
        }
        let tables = ctx.tables;
        out.reserve(tables.base.by_name(E::KEY).map_or(0, |t| t.rows.len()));
        for (id, row, _, slot) in tables.rows(E::KEY) {
            if let Record::Entity(_) = slot.record
                && let Ok(e) = ctx.read_slot::<E>(id, row, slot)
            {
                out.push(e);
            }
        }
        true
    }

    pub fn invalidate<'de, E: Entity, D: Deserializer<'de>>(de: D) -> Result<String, D::Error> {
        let input: Value = serde::Deserialize::deserialize(de)?;
        let pk = with(|n| invalidated_pk(&input, n, E::KEY, E::pk, E::bare_pk)).map_err(fail)?;
        with(|n| n.pending.invalid(E::KEY, &pk));
        Ok(pk)
    }
}

/// Implements [`Schema`](crate::schema::Schema), [`EntitySchema`](crate::schema::EntitySchema) and
/// [`EntityField`](crate::schema::EntityField) for a hand-written [`Entity`](crate::schema::Entity)
/// (`#[derive(Entity)]` does this itself).
///
/// ```
/// # use restcache::schema::{Entity, EntityReader, JsonRow, Unresolved, pk_string};
/// # use serde_json::Value;
/// #[derive(Clone, Default)]
/// struct Tag { name: String }
/// impl Entity for Tag {
///     const KEY: &'static str = "Tag";
///     const COLLECTION_KEY: &'static str = "[Tag]";
///     type Row = JsonRow;
///     fn pk(input: &Value) -> Option<String> { pk_string(input.get("name")) }
///     fn row_pk(row: &JsonRow) -> Option<String> { pk_string(row.0.get("name")) }
///     fn read(row: &JsonRow, _: &mut EntityReader<'_, '_>) -> Result<Self, Unresolved> {
///         Ok(Tag { name: row.get("name").unwrap_or_default() })
///     }
/// }
/// restcache::impl_entity_schema!(Tag);
/// ```
#[macro_export]
macro_rules! impl_entity_schema {
    ($ty:ty) => {
        impl $crate::__private::Schema for $ty {
            type Output = Self;
            type Stored = $crate::__private::EntityRef;
            const KIND: $crate::__private::SchemaKind = $crate::__private::SchemaKind::Entity;
            fn normalize<'de, D: $crate::__private::serde::Deserializer<'de>>(
                de: D,
            ) -> ::core::result::Result<$crate::__private::EntityRef, D::Error> {
                $crate::__private::entity::normalize::<Self, D>(de)
            }
            fn denormalize<'s>(
                stored: &'s $crate::__private::EntityRef,
                ctx: &mut $crate::__private::DenormalizeCtx<'s>,
            ) -> ::core::result::Result<Self, $crate::__private::Unresolved> {
                $crate::__private::entity::denormalize::<Self>(stored, ctx)
            }
            fn from_json(json: &$crate::__private::Value) -> ::core::option::Option<$crate::__private::EntityRef> {
                $crate::__private::entity::from_json(json)
            }
            fn query<'s>(
                ctx: &mut $crate::__private::DenormalizeCtx<'s>,
            ) -> ::core::option::Option<::core::result::Result<Self, $crate::__private::Unresolved>> {
                $crate::__private::entity::query::<Self>(ctx)
            }
            fn register(registry: &mut $crate::__private::Registry) {
                $crate::__private::entity::register::<Self>(registry)
            }
            fn refs(stored: &$crate::__private::EntityRef, sink: &mut $crate::__private::RefSink<'_>) {
                sink.entity(<Self as $crate::__private::Entity>::KEY, stored.as_str())
            }
        }
        impl $crate::__private::EntitySchema for $ty {
            fn tables(sink: &mut $crate::__private::RefSink<'_>) {
                sink.table(<Self as $crate::__private::Entity>::KEY)
            }
            fn collection_key() -> &'static str {
                <Self as $crate::__private::Entity>::COLLECTION_KEY
            }
            fn resource_name() -> &'static str {
                <Self as $crate::__private::Entity>::KEY
            }
            fn read_all(ctx: &mut $crate::__private::DenormalizeCtx<'_>, out: &mut ::std::vec::Vec<Self>) -> bool {
                $crate::__private::entity::read_all::<Self>(ctx, out)
            }
            fn row_of(stored: &$crate::__private::EntityRef) -> ::core::option::Option<(&'static str, &str)> {
                ::core::option::Option::Some((<Self as $crate::__private::Entity>::KEY, stored.as_str()))
            }
            fn invalidate<'de, D: $crate::__private::serde::Deserializer<'de>>(
                de: D,
            ) -> ::core::result::Result<::std::string::String, D::Error> {
                $crate::__private::entity::invalidate::<Self, D>(de)
            }
        }
        impl $crate::__private::EntityField for $ty {}
    };
}

/// A schema whose values live in entity tables: an [`Entity`] or a [`Union`](super::Union).
/// Collections, [`All`](super::All) and [`Invalidate`](super::Invalidate) hold these.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an entity or a union",
    note = "a resource's `schema` (and a Collection's item) must `#[derive(Entity)]` or `#[derive(Union)]`"
)]
pub trait EntitySchema: Schema<Output = Self, Stored: Eq + Hash> + Clone {
    /// The table holding collections of this schema (`[K]`, or `[K1;K2;…]` for a union).
    fn collection_key() -> &'static str;

    /// Appends every valid stored entity, in table order (R-ALL-2). Returns whether any of the
    /// schema's tables exists (R-ALL-4).
    #[doc(hidden)]
    fn read_all(ctx: &mut DenormalizeCtx<'_>, out: &mut Vec<Self>) -> bool;

    /// Writes INVALID marks for an `Invalidate` input (R-INV-1) and returns the pk; an input
    /// with no pk is an error.
    #[doc(hidden)]
    fn invalidate<'de, D: Deserializer<'de>>(de: D) -> Result<String, D::Error>;

    /// The name resource members are named after (`K` in `K.get`): the entity key, or the
    /// union's name.
    fn resource_name() -> &'static str {
        let name = std::any::type_name::<Self>();
        name.rsplit("::").next().unwrap_or(name)
    }

    /// The table and pk of the entity a normalized value refers to; `None` when the schema
    /// cannot tell (a union's reference), so a move decides by the call's args and body alone
    /// (R-COL-8).
    #[doc(hidden)]
    fn row_of(stored: &Self::Stored) -> Option<(&'static str, &str)> {
        let _ = stored;
        None
    }

    /// Reports every table of this schema as referenced whole (what `All` reads); the default
    /// cannot tell.
    #[doc(hidden)]
    fn tables(sink: &mut RefSink<'_>) {
        sink.unknown();
    }

    /// Whether a normalized value is a reference to an entity, not an input a union's `other`
    /// variant kept.
    #[doc(hidden)]
    fn is_entity(stored: &Self::Stored) -> bool {
        let _ = stored;
        true
    }
}

/// The pk a bare string or number names: its text.
pub(crate) fn bare_pk_text(input: &Value) -> Option<String> {
    string_form(input).map(|s| s.into_owned())
}

/// The pk an `Invalidate` input names: a string or number is the pk itself (`bare` reads it as
/// a row holds it); an object goes through the pk rule (`pk`).
pub(crate) fn invalidated_pk(
    input: &Value,
    ctx: &Normalizing,
    key: &str,
    pk: impl Fn(&Value) -> Option<String>,
    bare: impl Fn(&Value) -> Option<String>,
) -> Result<String, Error> {
    let found = match input {
        Value::String(_) | Value::Number(_) => bare(input),
        // At the top of a delete response, an object with no usable pk falls back to the args
        // (R-RESP-6).
        Value::Object(_) => pk(input).or_else(|| if ctx.path.is_empty() { pk(&ctx.args) } else { None }),
        other => return Err(ctx.invalid(Some(key), format!("expected a pk or an object, found {}", kind(other)))),
    };
    found
        .filter(|pk| !pk.is_empty())
        .ok_or_else(|| ctx.invalid(Some(key), "missing or empty primary key"))
}
