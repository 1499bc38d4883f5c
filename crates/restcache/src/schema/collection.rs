//! Collections: lists stored once per (entity type, args) and updated by push, unshift and
//! pages (R-COL, R-PAGE).

use std::any::Any;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::ops::DerefMut;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::normalize::{Pending, Seg, invalid, list, refuse_other_kinds, with, wrong_kind};
use super::registry::Decoder;
use super::{EntityField, EntityRef, EntitySchema, RefSink, Registry, Schema, forward_schema, output_wrapper, refs_in};
use crate::json::as_map;
use crate::pk::string_form;
use crate::schema::denormalize::{DenormalizeCtx, Unresolved};
use crate::tables::{Layered, List, ListEdit, Members, Record, Slot, Stamp};

/// Decides which lists a created entity joins, and how nested collections are keyed.
///
/// ```
/// use restcache::schema::CollectionPolicy;
///
/// /// `sort` and `limit` change the order or length of a list, not which items belong in it.
/// #[derive(Default)]
/// struct TodoLists;
/// impl CollectionPolicy for TodoLists {
///     fn non_filter_argument_keys(&self, key: &str) -> bool {
///         matches!(key, "sort" | "limit")
///     }
/// }
/// assert!(TodoLists.non_filter_argument_keys("sort"));
/// assert!(!TodoLists.non_filter_argument_keys("userId"));
/// ```
pub trait CollectionPolicy: Send + Sync + 'static {
    /// Whether the list argument `key` leaves the list's membership unchanged, so `push` and
    /// `unshift` add to lists whatever their value of it (R-COL-5). Default: keys that start
    /// with `"order"`.
    fn non_filter_argument_keys(&self, key: &str) -> bool {
        key.starts_with("order")
    }

    /// For a collection nested in an entity: the key object of the collection, computed from
    /// the parent's input object (R-COL-6). `None` keys it by the endpoint's args. It runs while
    /// a response is normalized: it must not call the `Controller` or write to the `Store`.
    fn nest_key(&self, parent: &Map<String, Value>) -> Option<Map<String, Value>> {
        let _ = parent;
        None
    }
}

/// The default [`CollectionPolicy`]: keys starting with `"order"` do not filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DefaultCollectionPolicy;

impl CollectionPolicy for DefaultCollectionPolicy {}

/// A list kept in the collection table of its item type: `Collection<Vec<Todo>>` reads as
/// `Vec<Todo>`. As a field of an entity or object schema it holds the list (`Deref` to `V`).
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
///
/// let mut store = Store::new();
/// store.set_response::<Collection<Vec<Todo>>>("GET /todos", &(), &json!([{"id": 1, "title": "a"}]))?;
/// store.set_response::<Push<Collection<Vec<Todo>>>>("POST /todos", &(), &json!({"id": 2, "title": "b"}))?;
/// let list = store.get_response::<Collection<Vec<Todo>>>("GET /todos", &())?.data.unwrap();
/// assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Collection<V, P = DefaultCollectionPolicy> {
    items: V,
    policy: PhantomData<fn() -> P>,
}

impl<V, P> Collection<V, P> {
    /// Wraps a list.
    pub fn new(items: V) -> Self {
        Collection {
            items,
            policy: PhantomData,
        }
    }
}

output_wrapper! {
    /// The list.
    impl[V, P] Collection<V, P> { items: V } = Collection::new
}

impl<V, P> DerefMut for Collection<V, P> {
    fn deref_mut(&mut self) -> &mut V {
        &mut self.items
    }
}

impl<V: PartialEq, P> PartialEq for Collection<V, P> {
    fn eq(&self, other: &Self) -> bool {
        self.items == other.items
    }
}

/// Where a schema's first collection lives (R-RES-3).
#[derive(Clone, Copy, Debug)]
pub struct CollectionInfo {
    /// The collection table (`[K]`).
    pub table: &'static str,
    /// The collection type's [`CollectionPolicy::non_filter_argument_keys`].
    pub non_filter_argument_keys: fn(&str) -> bool,
}

impl CollectionInfo {
    /// The collection in `table` whose policy is `P`.
    pub(super) fn of<P: CollectionPolicy + Default>(table: &'static str) -> Self {
        CollectionInfo {
            table,
            non_filter_argument_keys: |k| P::default().non_filter_argument_keys(k),
        }
    }
}

/// A list schema: one that holds a [`Collection`], so its members offer `push`, `unshift` and
/// `get_page` (R-RES-3). `Item` is the collection's item type.
///
/// Implemented by `Collection<Vec<T>, P>` and by `#[derive(Schema)]` objects with a collection
/// field.
#[diagnostic::on_unimplemented(
    message = "`{Self}` holds no Collection",
    note = "push, unshift and get_page need a list schema: a Collection, or an object schema with a Collection field"
)]
pub trait ListSchema: Schema {
    /// The collection's item type.
    type Item: EntitySchema;
}

impl<T: EntitySchema, P: CollectionPolicy + Default> ListSchema for Collection<Vec<T>, P> {
    type Item = T;
}

/// A list-args value in the form collection keys store: scalars as their string form, arrays
/// as arrays of string forms, `null` as nothing (R-COL-2).
fn key_value(v: &Value) -> Option<Value> {
    match v {
        Value::Null => None,
        Value::Array(items) => Some(Value::Array(items.iter().filter_map(key_value).collect())),
        Value::Object(_) => Some(v.clone()),
        scalar => string_form(scalar).map(|s| Value::String(s.into_owned())),
    }
}

/// The pk of the collection a list call's args select (R-COL-2): `null`s dropped, scalars as
/// strings, keys sorted bytewise, compact JSON. The caller removes the pagination field.
///
/// ```
/// use restcache::schema::collection_pk;
/// use serde_json::json;
/// let args = json!({"userId": 1, "completed": false, "a": "x", "skip": null});
/// assert_eq!(collection_pk(args.as_object().unwrap()), r#"{"a":"x","completed":"false","userId":"1"}"#);
/// ```
pub fn collection_pk(args: &Map<String, Value>) -> String {
    // A BTreeMap, so the keys are sorted even when serde_json's `preserve_order` keeps a `Map`
    // in insertion order.
    let key: BTreeMap<&str, Value> = args
        .iter()
        .filter_map(|(k, v)| Some((k.as_str(), key_value(v)?)))
        .collect();
    serde_json::to_string(&key).expect("string keys and JSON values serialize")
}

/// Whether a stored collection keyed by `filter` takes an entity the call's `args` and `body`
/// describe (R-COL-5): each key of the filter is a non-filter key, or the args or the body give
/// it the filter's value.
fn accepts(
    filter: &Map<String, Value>,
    args: &Map<String, Value>,
    body: &Map<String, Value>,
    non_filter: impl Fn(&str) -> bool,
) -> bool {
    let gives = |m: &Map<String, Value>, k: &str, want: &Value| m.get(k).and_then(key_value).as_ref() == Some(want);
    filter
        .iter()
        .all(|(k, want)| non_filter(k) || gives(args, k, want) || gives(body, k, want))
}

/// Whether a stored collection keyed by `filter` matches an entity whose fields are `layers`,
/// the first one that gives a key (not `null`) standing for it (R-COL-8).
fn fits(filter: &Map<String, Value>, layers: &[&Map<String, Value>], non_filter: impl Fn(&str) -> bool) -> bool {
    filter.iter().all(|(k, want)| {
        non_filter(k) || layers.iter().find_map(|m| m.get(k).and_then(key_value)).as_ref() == Some(want)
    })
}

/// The list of type `L` a collection's `slot` holds; `None` for a list of another type.
pub(super) fn list_record<L: 'static>(slot: &Slot) -> Result<Option<&L>, Unresolved> {
    match &slot.record {
        // A union of one variant and that variant's entity share a collection table (`[K]`): a
        // list the other wrote holds none of this schema's references (R-READ-2 drops them).
        Record::List(list) => Ok((&**list as &dyn Any).downcast_ref()),
        _ => Err(Unresolved),
    }
}

fn read_items<'s, T: EntitySchema>(slot: &'s Slot, ctx: &mut DenormalizeCtx<'s>) -> Result<Vec<T>, Unresolved> {
    let Some(members) = list_record::<Members<T::Stored>>(slot)? else {
        return Ok(Vec::new());
    };
    let refs = members.refs();
    let mut out = Vec::with_capacity(refs.len());
    for r in refs {
        out.extend(T::denormalize(r, ctx).ok());
    }
    Ok(out)
}

/// Writes the list `make` gives (told whether it is a page) as the collection being normalized
/// in `table`, and returns its pk: keyed by the policy's nest key of the entity holding it, if
/// any, else by the args (R-COL-2, R-COL-6). At the top of a `get_page` response the list is a
/// page, which `page_edit` adds to the stored one (R-PAGE-3).
pub(super) fn write_list<P: CollectionPolicy + Default>(
    table: &'static str,
    page_edit: ListEdit,
    make: impl FnOnce(bool) -> Box<dyn List>,
) -> EntityRef {
    with(|n| {
        let nested = n.entity_depth > 0;
        let key = match &n.parent {
            Some(Value::Object(parent)) if nested => P::default().nest_key(parent).map(Cow::Owned),
            _ => None,
        };
        let pk = collection_pk(&key.unwrap_or(Cow::Borrowed(n.args())));
        let page = !nested && n.page;
        let list = make(page);
        if page {
            // A page's fetch resolves to the page, not to the list it joins (R-FETCH-5).
            n.pending.pages.push((table, pk.clone(), list.clone()));
            n.pending.set(table, &pk, Record::List(list), Some(page_edit));
        } else {
            n.pending.set(table, &pk, Record::List(list), None);
        }
        EntityRef::from(pk)
    })
}

impl<T: EntitySchema, P: CollectionPolicy + Default> Schema for Collection<Vec<T>, P> {
    type Output = Vec<T>;
    type Stored = EntityRef;

    /// Its nest key reads the entity holding it; its items may read the parent too.
    const PARENT: super::ParentUse = super::ParentUse::InEntity.or(T::PARENT);

    fn normalize<'de, D: Deserializer<'de>>(de: D) -> Result<EntityRef, D::Error> {
        let refs = list::<T, D>(de)?;
        // A page's references each once: the commit appends those the stored list lacks.
        Ok(write_list::<P>(T::collection_key(), ListEdit::Append, |page| {
            if page {
                Box::new(Members::unique(refs))
            } else {
                Box::new(Members::new(refs))
            }
        }))
    }

    fn denormalize<'s>(stored: &'s EntityRef, ctx: &mut DenormalizeCtx<'s>) -> Result<Vec<T>, Unresolved> {
        let (_, _, slot) = ctx.slot(T::collection_key(), stored.as_str()).ok_or(Unresolved)?;
        read_items(slot, ctx)
    }

    fn from_json(json: &Value) -> Option<EntityRef> {
        EntityRef::from_json(json)
    }

    fn query<'s>(ctx: &mut DenormalizeCtx<'s>) -> Option<Result<Vec<T>, Unresolved>> {
        let pk = collection_pk(as_map(ctx.args()));
        let (_, _, slot) = ctx.slot(T::collection_key(), &pk)?;
        Some(read_items(slot, ctx))
    }

    fn collection() -> Option<CollectionInfo> {
        Some(CollectionInfo::of::<P>(T::collection_key()))
    }

    fn register(registry: &mut Registry) {
        register_tables::<T>(registry);
        T::register(registry);
    }

    fn refs(stored: &EntityRef, sink: &mut RefSink<'_>) {
        sink.list(T::collection_key(), stored.as_str(), walk_members::<T>);
    }
}
impl<T: EntitySchema, P: CollectionPolicy + Default> EntityField for Collection<Vec<T>, P> {}

/// Reports the references `from..to` of a list of `T` ([`RefWalk`](crate::refs::RefWalk)); returns its length (`0`
/// for a record of another type, which then references nothing).
pub(crate) fn walk_members<T: EntitySchema>(list: &dyn Any, from: usize, to: usize, sink: &mut RefSink<'_>) -> usize {
    let members = list.downcast_ref::<Members<T::Stored>>();
    members.map_or(0, |m| refs_in::<T>(m.refs(), from, to, sink))
}

/// Registers how the list and map collections of `T` read back from a snapshot, and how their
/// references are walked.
pub(crate) fn register_tables<T: EntitySchema>(registry: &mut Registry) {
    registry.decoder(T::collection_key(), Decoder::List(decode_list::<T>, walk_members::<T>));
    super::map_collection::register_table::<T>(registry);
}

/// A collection record from its JSON, an array of references (a snapshot's).
fn decode_list<T: EntitySchema>(json: &Value) -> Option<Box<dyn List>> {
    let refs = json.as_array()?.iter().map(T::from_json).collect::<Option<Vec<_>>>()?;
    Some(Box::new(Members::new(refs)))
}

/// Normalizes the one entity of a push, unshift, remove or move answer (an object, or an
/// array of exactly one) and leaves its reference to be added to or removed from the stored
/// collections of its type when the batch is committed (R-COL-4/5/7/8, [`Join`]).
fn join_lists_of<'de, L: ListSchema, D: Deserializer<'de>>(
    de: D,
    kind: JoinKind,
) -> Result<<L::Item as Schema>::Stored, D::Error> {
    let r = de.deserialize_any(Created::<L::Item>(PhantomData))?;
    if !L::Item::is_entity(&r) {
        return Err(invalid(None, "the entity matches no variant"));
    }
    let row = match kind {
        JoinKind::Move(_) => L::Item::row_of(&r).map(|(table, pk)| (table, pk.to_owned())),
        JoinKind::Edit(_) => None,
    };
    let item = Box::new(Members::unique(vec![r.clone()]));
    with(|n| n.pending.joins.push(Join::of::<L>(item, kind, row)));
    Ok(r)
}

/// The created entity of a push or unshift response.
struct Created<T>(PhantomData<T>);

impl<'de, T: EntitySchema> Visitor<'de> for Created<T> {
    type Value = T::Stored;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("one entity object")
    }

    refuse_other_kinds!(self, |found| wrong_kind("one entity object", found));

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T::Stored, A::Error> {
        T::normalize(de::value::MapAccessDeserializer::new(map))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T::Stored, A::Error> {
        with(|n| n.path.push(Seg::Index(0)));
        let first = seq.next_element_seed(Element::<T>(PhantomData));
        with(|n| n.path.pop());
        let mut count = usize::from(first.as_ref().is_ok_and(Option::is_some));
        while seq.next_element::<IgnoredAny>()?.is_some() {
            count += 1;
        }
        match first? {
            Some(r) if count == 1 => Ok(r),
            _ => Err(invalid(
                None,
                format!("the answer must be one entity object, found an array of {count} items"),
            )),
        }
    }
}

/// `T` at an element of a list.
struct Element<T>(PhantomData<T>);

impl<'de, T: EntitySchema> DeserializeSeed<'de> for Element<T> {
    type Value = T::Stored;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<T::Stored, D::Error> {
        T::normalize(de)
    }
}

/// What a [`Join`] does to the stored collections of its table.
#[derive(Clone, Debug)]
pub(crate) enum JoinKind {
    /// push, unshift, remove: every collection whose key accepts the call's args and body is
    /// edited so (R-COL-4/5/7).
    Edit(ListEdit),
    /// move: the collections whose key accepted the entity before the write lose it, those
    /// whose key accepts it after gain it, as the edit says (at their end, or at their start;
    /// R-COL-8).
    Move(ListEdit),
}

/// The entity of a push, unshift, remove or move and what it does to the collections of its
/// type stored when the batch is committed (R-COL-4/5/7/8).
#[derive(Clone, Debug)]
pub(crate) struct Join {
    table: &'static str,
    /// The entity's reference, as a list of one.
    item: Box<dyn List>,
    kind: JoinKind,
    /// A move's entity: its table and pk, whose fields before and after the write are compared
    /// (`None` for a union's, decided by the args and body alone).
    row: Option<(&'static str, String)>,
    /// The collection type's `non_filter_argument_keys`, unless the write's policy overrides it.
    non_filter: fn(&str) -> bool,
}

impl Join {
    /// `item`'s join of the collections of `L`'s table, as `kind` says; `row` as [`Join::row`].
    pub(super) fn of<L: ListSchema>(item: Box<dyn List>, kind: JoinKind, row: Option<(&'static str, String)>) -> Join {
        let info =
            L::collection().unwrap_or_else(|| CollectionInfo::of::<DefaultCollectionPolicy>(L::Item::collection_key()));
        Join {
            table: info.table,
            item,
            kind,
            row,
            non_filter: info.non_filter_argument_keys,
        }
    }

    /// Adds the edits, as writes of `pending`, to every collection of `tables` it changes.
    /// Lists are found in the committed tables; the entity's fields before the write are read
    /// through the layers, those after it from `pending`.
    fn settle(
        self,
        tables: Layered<'_>,
        pending: &mut Pending,
        args: &Map<String, Value>,
        body: Option<&Value>,
        policy: Option<&dyn CollectionPolicy>,
        fetched_at: Stamp,
    ) {
        let Some(t) = tables.base.by_name(self.table) else {
            return;
        };
        let non_filter = |k: &str| policy.map_or_else(|| (self.non_filter)(k), |p| p.non_filter_argument_keys(k));
        let empty = Map::new();
        let body = body.map_or(&empty, as_map);
        // A move compares the entity's fields before and after the write (R-COL-8).
        let fields = |slot: Option<&Slot>| match slot.map(|s| &s.record) {
            Some(Record::Entity(row)) => Some(row.to_json()),
            _ => None,
        };
        // Whether the stored entity is newer than the write: then it keeps its fields (R-NORM-7),
        // and they decide where it belongs after the write too.
        let (before, after, older) = match &self.row {
            Some((table, pk)) => {
                let stored = tables.find(table, pk).map(|(_, _, slot)| slot);
                let older = stored.is_some_and(|slot| slot.meta.fetched_at > fetched_at);
                (fields(stored), fields(pending.row(table, pk)), older)
            }
            None => (None, None, false),
        };
        let mut edits = Vec::new();
        for (pk, slot) in t.rows.iter() {
            if !matches!(slot.record, Record::List(_)) {
                continue;
            }
            let Ok(Value::Object(filter)) = serde_json::from_str::<Value>(pk) else {
                continue;
            };
            let edit = match &self.kind {
                JoinKind::Edit(edit) => accepts(&filter, args, body, non_filter).then_some(*edit),
                JoinKind::Move(join) => {
                    let new = after.as_ref().unwrap_or(&empty);
                    let (was, is) = match (&self.row, before.as_ref()) {
                        // A union's fields are not looked up: the args and body decide.
                        (None, _) => (
                            fits(&filter, &[args], non_filter),
                            fits(&filter, &[body, args], non_filter),
                        ),
                        (Some(_), None) => (false, fits(&filter, &[new, body, args], non_filter)),
                        (Some(_), Some(old)) if older => (
                            fits(&filter, &[old, args], non_filter),
                            fits(&filter, &[old, new, body, args], non_filter),
                        ),
                        (Some(_), Some(old)) => (
                            fits(&filter, &[old, args], non_filter),
                            fits(&filter, &[new, body, old, args], non_filter),
                        ),
                    };
                    match (was, is) {
                        (true, false) => Some(ListEdit::Remove),
                        (false, true) => Some(*join),
                        _ => None,
                    }
                }
            };
            if let Some(edit) = edit {
                edits.push((pk.as_str(), edit));
            }
        }
        for (pk, edit) in edits {
            pending.set(self.table, pk, Record::List(self.item.clone()), Some(edit));
        }
    }
}

/// Settles `pending`'s joins, left by a normalization without the tables, against `tables`
/// ([`Join`]); `args`, `body` and `policy` are the normalization's.
pub(crate) fn join_lists(
    pending: &mut Pending,
    tables: Layered<'_>,
    args: &Value,
    body: Option<&Value>,
    policy: Option<&dyn CollectionPolicy>,
    fetched_at: Stamp,
) {
    for join in std::mem::take(&mut pending.joins) {
        join.settle(tables, pending, as_map(args), body, policy, fetched_at);
    }
}

/// The schema of `get_list().push()`: the created `L::Item`, appended to every matching list
/// of the item type.
pub struct Push<L>(PhantomData<fn() -> L>);

/// The schema of `get_list().unshift()`: the created `L::Item`, prepended to every matching list
/// of the item type.
pub struct Unshift<L>(PhantomData<fn() -> L>);

/// The schema of `get_list().get_page()`: `L` with its collections extended by the page's new
/// items instead of replaced (R-PAGE-3).
pub struct Page<L>(PhantomData<fn() -> L>);

/// The schema of `get_list().remove()`: the entity `L::Item`, stored and taken out of every
/// matching list of its type (R-COL-7).
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
/// type Todos = Collection<Vec<Todo>>;
///
/// let mut store = Store::new();
/// store.set_response::<Todos>("GET /todos", &(), &json!([{"id": 1}, {"id": 2}]))?;
/// store.set_response::<Remove<Todos>>("PATCH /todos", &(), &json!({"id": 1, "title": "kept"}))?;
/// let list = store.get_response::<Todos>("GET /todos", &())?.data.unwrap();
/// assert_eq!(list.iter().map(|t| t.id).collect::<Vec<_>>(), [2]);
/// let todo = store.get_response::<Todo>("GET /todos/1", &json!({"id": 1}))?.data.unwrap();
/// assert_eq!(todo.title, "kept", "out of the list, not deleted");
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Remove<L>(PhantomData<fn() -> L>);

/// The schema of `get_list().move_item()`: the entity `L::Item`, stored, taken out of the lists
/// of its type it matched and no longer does, and added to those it matches now (R-COL-8).
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, #[serde(rename = "userId")] user_id: String }
/// type Todos = Collection<Vec<Todo>>;
///
/// let mut store = Store::new();
/// for user in ["u1", "u2"] {
///     let items = json!([{"id": if user == "u1" { 1 } else { 2 }, "userId": user}]);
///     store.set_response::<Todos>(&format!("GET /todos?userId={user}"), &json!({"userId": user}), &items)?;
/// }
/// store.set_response::<Move<Todos>>("PATCH /todos/1", &json!({"id": 1}), &json!({"id": 1, "userId": "u2"}))?;
/// let ids = |user: &str| -> Result<Vec<u64>, restcache::Error> {
///     let list = store.get_response::<Todos>(&format!("GET /todos?userId={user}"), &json!({"userId": user}))?;
///     Ok(list.data.unwrap().iter().map(|t| t.id).collect())
/// };
/// assert_eq!((ids("u1")?, ids("u2")?), (vec![], vec![2, 1]));
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct Move<L>(PhantomData<fn() -> L>);

/// [`Move`], with the lists the entity joins taking it at their start: the schema of
/// `get_list().move_item_to_front()` (Data Client's `moveWith(unshift)`, R-COL-8).
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, done: bool }
/// type Todos = Collection<Vec<Todo>>;
///
/// let mut store = Store::new();
/// store.set_response::<Todos>("GET /todos?done=true", &json!({"done": true}), &json!([{"id": 2, "done": true}]))?;
/// store.set_response::<MoveToFront<Todos>>("PATCH /todos/1", &json!({"id": 1}), &json!({"id": 1, "done": true}))?;
/// let done = store.get_response::<Todos>("GET /todos?done=true", &json!({"done": true}))?.data.unwrap();
/// assert_eq!(done.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2]);
/// # Ok::<(), restcache::Error>(())
/// ```
pub struct MoveToFront<L>(PhantomData<fn() -> L>);

macro_rules! list_member {
    ($name:ident, $kind:expr) => {
        impl<L: ListSchema> Schema for $name<L> {
            type Output = L::Item;
            type Stored = <L::Item as Schema>::Stored;

            fn normalize<'de, D: Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error> {
                join_lists_of::<L, D>(de, $kind)
            }

            forward_schema!(L::Item: denormalize, from_json, refs);
            forward_schema!(L: register);
        }
    };
}
list_member!(Push, JoinKind::Edit(ListEdit::Append));
list_member!(Unshift, JoinKind::Edit(ListEdit::Prepend));
list_member!(Remove, JoinKind::Edit(ListEdit::Remove));
list_member!(Move, JoinKind::Move(ListEdit::Append));
list_member!(MoveToFront, JoinKind::Move(ListEdit::Prepend));

impl<L: ListSchema> Schema for Page<L> {
    type Output = L::Output;
    type Stored = L::Stored;
    const KIND: super::SchemaKind = L::KIND;

    const PARENT: super::ParentUse = L::PARENT;

    fn normalize<'de, D: Deserializer<'de>>(de: D) -> Result<L::Stored, D::Error> {
        let was = with(|n| std::mem::replace(&mut n.page, true));
        let r = L::normalize(de);
        with(|n| n.page = was);
        r
    }

    forward_schema!(L: denormalize, query, from_json, collection, register, refs);
}

impl fmt::Debug for dyn CollectionPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("dyn CollectionPolicy")
    }
}
