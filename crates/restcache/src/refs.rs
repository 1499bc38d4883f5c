//! The normalized form of a response, typed (R-STORE-1): what a schema's normalization returns
//! and the store keeps, as an endpoint's result or in a row's nested field. Entities are
//! replaced by references ([`EntityRef`], [`UnionRef`]); lists, options and maps of them keep
//! their Rust shape, so a read walks plain vectors and inline keys, not JSON.

use std::any::Any;
use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeTuple, Serializer};
use serde_json::Value;

use crate::pk::Pk;

/// What a schema's normalized form must be ([`Schema::Stored`](crate::schema::Schema::Stored)):
/// compared with the stored one (a result's version changes only when it does), cloned, and
/// written as JSON by [`Store::inspect`](crate::Store::inspect). Every type that is all of
/// these is one.
///
/// ```
/// fn stored<T: restcache::schema::StoredValue>(_: &T) {}
/// stored(&vec![restcache::schema::EntityRef::from("7")]);
/// stored(&Some(serde_json::json!({ "total": 3 })));
/// ```
pub trait StoredValue: Clone + PartialEq + fmt::Debug + Serialize + Send + Sync + 'static {}

impl<T: Clone + PartialEq + fmt::Debug + Serialize + Send + Sync + 'static> StoredValue for T {}

/// A reference to one row of a table: an entity's primary key (the normalized form of an
/// entity), or a collection's key. Written as JSON, it is the key as a string.
///
/// ```
/// use restcache::schema::EntityRef;
/// let r = EntityRef::from("42");
/// assert_eq!(r.as_str(), "42");
/// assert_eq!(serde_json::to_value(&r).unwrap(), "42");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct EntityRef(Pk);

impl EntityRef {
    /// The key.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The reference whose JSON is `json`: a pk by the pk rule (a non-empty string, or a
    /// number's string form).
    pub(crate) fn from_json(json: &Value) -> Option<Self> {
        crate::pk::pk_string(Some(json)).map(EntityRef::from)
    }
}

impl From<&str> for EntityRef {
    fn from(pk: &str) -> Self {
        EntityRef(Pk::from(pk))
    }
}

impl From<String> for EntityRef {
    fn from(pk: String) -> Self {
        EntityRef(Pk::from(pk))
    }
}

impl fmt::Debug for EntityRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for EntityRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// The normalized form of a [`Union`](crate::schema::Union): the entity of one variant, an
/// input kept as it was by the union's `other` variant, or a list element that matched no
/// variant (skipped: a list drops it). Written as JSON: `[tag, pk]`, the input, or `null`.
///
/// ```
/// use restcache::schema::{EntityRef, UnionRef};
/// let r = UnionRef::Entity { tag: "post", pk: EntityRef::from("1") };
/// assert_eq!(serde_json::to_value(&r).unwrap(), serde_json::json!(["post", "1"]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnionRef {
    /// The entity `pk` of the variant tagged `tag`.
    Entity {
        /// The variant's tag.
        tag: &'static str,
        /// The entity's pk in the variant's table.
        pk: EntityRef,
    },
    /// An input no variant matched, kept by the union's `other` variant.
    Other(Value),
    /// A list element no variant matched.
    Skipped,
}

impl Serialize for UnionRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            UnionRef::Entity { tag, pk } => {
                let mut pair = s.serialize_tuple(2)?;
                pair.serialize_element(tag)?;
                pair.serialize_element(pk)?;
                pair.end()
            }
            UnionRef::Other(value) => value.serialize(s),
            UnionRef::Skipped => s.serialize_unit(),
        }
    }
}

/// An endpoint's result as the store keeps it, whatever its schema: read back as the schema's
/// [`StoredValue`] by downcasting.
pub(crate) trait AnyStored: Any + fmt::Debug + Send + Sync {
    /// Whether `other` is the same result (of the same type).
    fn same(&self, other: &dyn AnyStored) -> bool;
    /// The result as JSON, for snapshots; `null` if its type cannot be written as JSON.
    fn json(&self) -> Value;
    /// The bytes the result holds: its size and its heap, estimated (R-GC-4).
    fn bytes(&self) -> usize;
}

impl<T: StoredValue> AnyStored for T {
    fn same(&self, other: &dyn AnyStored) -> bool {
        (other as &dyn Any).downcast_ref::<T>().is_some_and(|o| o == self)
    }

    fn json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    fn bytes(&self) -> usize {
        std::mem::size_of::<T>().saturating_add(crate::heap_size::heap_bytes(self))
    }
}

/// Where a schema reports the rows a normalized value references, for the collector to keep
/// them ([`Schema::refs`](crate::schema::Schema::refs)): entities by table and pk, whole tables
/// (what `All` reads), or that it cannot tell.
///
/// A schema that cannot tell what it references says [`unknown`](Self::unknown): the collector
/// then removes no row while that value is kept (results are still collected).
///
/// ```
/// use restcache::prelude::*;
/// use restcache::schema::{RefSink, Schema};
///
/// #[derive(Clone, Debug, Default, Entity)]
/// struct Todo { #[entity(pk)] id: u64 }
///
/// let refs = RefSink::collect(|sink| {
///     <Vec<Todo> as Schema>::refs(&vec!["1".into(), "2".into()], sink)
/// });
/// assert_eq!(refs, ["Todo 1", "Todo 2"]);
/// ```
pub struct RefSink<'a> {
    visit: &'a mut dyn Visit,
}

/// How a stored value's references are walked in parts: `walk(value, from, to, sink)` reports
/// the references at `from..to` of `value` (a collection's record or a key's result, as `Any`;
/// a list's elements) and returns how many parts it has.
pub(crate) type RefWalk = fn(&dyn Any, usize, usize, &mut RefSink<'_>) -> usize;

/// What a [`RefSink`] reports to.
pub(crate) trait Visit {
    fn entity(&mut self, table: &str, pk: &str);
    fn list(&mut self, table: &str, pk: &str, walk: RefWalk);
    fn table(&mut self, table: &str);
    fn unknown(&mut self);
}

impl<'a> RefSink<'a> {
    pub(crate) fn new(visit: &'a mut dyn Visit) -> Self {
        RefSink { visit }
    }

    /// The entity `pk` of table `table` is referenced (its own references are followed).
    pub fn entity(&mut self, table: &str, pk: &str) {
        self.visit.entity(table, pk);
    }

    /// Every row of table `table` is referenced (what [`All`](crate::schema::All) reads).
    pub fn table(&mut self, table: &str) {
        self.visit.table(table);
    }

    /// What is referenced cannot be told: no row is removed while the value is kept.
    pub fn unknown(&mut self) {
        self.visit.unknown();
    }

    /// The list row `pk` of table `table` is referenced; `walk` reports its references.
    pub(crate) fn list(&mut self, table: &str, pk: &str, walk: RefWalk) {
        self.visit.list(table, pk, walk);
    }

    /// What `report` reports, as `"table pk"`, `"table *"` for a whole table and `"?"` for
    /// unknown, in order; a list row is reported as an entity (its references are not walked).
    pub fn collect(report: impl FnOnce(&mut RefSink<'_>)) -> Vec<String> {
        struct Collect(Vec<String>);
        impl Visit for Collect {
            fn entity(&mut self, table: &str, pk: &str) {
                self.0.push(format!("{table} {pk}"));
            }
            fn list(&mut self, table: &str, pk: &str, _: RefWalk) {
                self.entity(table, pk);
            }
            fn table(&mut self, table: &str) {
                self.0.push(format!("{table} *"));
            }
            fn unknown(&mut self) {
                self.0.push("?".to_owned());
            }
        }
        let mut out = Collect(Vec::new());
        report(&mut RefSink::new(&mut out));
        out.0
    }
}

impl fmt::Debug for RefSink<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RefSink")
    }
}
