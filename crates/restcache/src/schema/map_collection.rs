//! Collections of maps, `Collection<Values<T>>` (R-COL-9): lists keyed like any collection whose
//! record is a map of references, and `assign`, which sets entries of the stored ones.

use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;
use std::sync::{LazyLock, Mutex};

use serde::de::Deserializer;
use serde_json::Value;

use super::collection::{Join, JoinKind, list_record, write_list};
use super::denormalize::{DenormalizeCtx, Unresolved};
use super::normalize::with;
use super::registry::Decoder;
use super::{
    Collection, CollectionInfo, CollectionPolicy, EntityField, EntityRef, EntitySchema, ListSchema, RefSink, Registry,
    Schema, Values, forward_schema,
};
use crate::json::as_map;
use crate::schema::collection_pk;
use crate::tables::{Entries, List, ListEdit, Slot};

/// The table of `T`'s map collections: `{K}` beside the `[K]` of its lists. Made once per
/// entity key and kept for the process, as the entity keys themselves are.
pub(super) fn map_table<T: EntitySchema>() -> &'static str {
    static TABLES: LazyLock<Mutex<HashMap<&'static str, &'static str>>> = LazyLock::new(Default::default);
    let lists = T::collection_key();
    let mut tables = TABLES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    tables.entry(lists).or_insert_with(|| {
        let inner = lists
            .strip_prefix('[')
            .and_then(|k| k.strip_suffix(']'))
            .unwrap_or(lists);
        Box::leak(format!("{{{inner}}}").into_boxed_str())
    })
}

fn read_entries<'s, T: EntitySchema>(
    slot: &'s Slot,
    ctx: &mut DenormalizeCtx<'s>,
) -> Result<BTreeMap<String, T>, Unresolved> {
    let Some(entries) = list_record::<Entries<T::Stored>>(slot)? else {
        return Ok(BTreeMap::new());
    };
    Ok(entries
        .map()
        .iter()
        .filter_map(|(k, r)| Some((k.clone(), T::denormalize(r, ctx).ok()?)))
        .collect())
}

/// Registers how the map collections of `T` read back from a snapshot (its lists are
/// `Collection<Vec<T>>`'s to register).
pub(super) fn register_table<T: EntitySchema>(registry: &mut Registry) {
    registry.decoder(map_table::<T>(), Decoder::List(decode_entries::<T>, walk_entries::<T>));
}

/// A map collection's record from its JSON, an object of references (a snapshot's).
fn decode_entries<T: EntitySchema>(json: &Value) -> Option<Box<dyn List>> {
    let map = json
        .as_object()?
        .iter()
        .map(|(k, v)| Some((k.clone(), T::from_json(v)?)))
        .collect::<Option<BTreeMap<_, _>>>()?;
    Some(Box::new(Entries::new(map)))
}

/// A map of entities kept in the map-collection table of its item type (R-COL-9):
/// `Collection<Values<Todo>>` reads as a `BTreeMap<String, Todo>`. A response replaces the
/// stored map; a page (`get_page`) sets its entries over it; `push`, `unshift`, `remove`,
/// `move_item` and [`assign`](crate::rest::RestEndpoint::assign) edit the matching ones.
///
/// ```
/// use restcache::prelude::*;
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
/// type ById = Collection<Values<Todo>>;
///
/// let mut store = Store::new();
/// store.set_response::<ById>("GET /todos", &(), &json!({"1": {"id": 1, "title": "a"}}))?;
/// store.set_response::<Assign<ById>>("POST /todos", &(), &json!({"2": {"id": 2, "title": "b"}}))?;
/// let map = store.get_response::<ById>("GET /todos", &())?.data.unwrap();
/// assert_eq!(map.keys().collect::<Vec<_>>(), ["1", "2"]);
/// # Ok::<(), restcache::Error>(())
/// ```
impl<T: EntitySchema, P: CollectionPolicy + Default> Schema for Collection<Values<T>, P> {
    type Output = BTreeMap<String, T>;
    type Stored = EntityRef;

    const PARENT: super::ParentUse = super::ParentUse::InEntity.or(T::PARENT);

    fn normalize<'de, D: Deserializer<'de>>(de: D) -> Result<EntityRef, D::Error> {
        let map = <Values<T> as Schema>::normalize(de)?;
        Ok(write_list::<P>(map_table::<T>(), ListEdit::Assign, |_| {
            Box::new(Entries::new(map))
        }))
    }

    fn denormalize<'s>(stored: &'s EntityRef, ctx: &mut DenormalizeCtx<'s>) -> Result<Self::Output, Unresolved> {
        let (_, _, slot) = ctx.slot(map_table::<T>(), stored.as_str()).ok_or(Unresolved)?;
        read_entries(slot, ctx)
    }

    fn from_json(json: &Value) -> Option<EntityRef> {
        EntityRef::from_json(json)
    }

    fn query<'s>(ctx: &mut DenormalizeCtx<'s>) -> Option<Result<Self::Output, Unresolved>> {
        let pk = collection_pk(as_map(ctx.args()));
        let (_, _, slot) = ctx.slot(map_table::<T>(), &pk)?;
        Some(read_entries(slot, ctx))
    }

    fn collection() -> Option<CollectionInfo> {
        Some(CollectionInfo::of::<P>(map_table::<T>()))
    }

    fn register(registry: &mut Registry) {
        register_table::<T>(registry);
        T::register(registry);
    }

    fn refs(stored: &EntityRef, sink: &mut RefSink<'_>) {
        sink.list(map_table::<T>(), stored.as_str(), walk_entries::<T>);
    }
}

/// Reports every reference of a map collection of `T` ([`RefWalk`](crate::refs::RefWalk)):
/// a map is walked whole, whatever `from..to`; returns `0` once it has been (or for a record of
/// another type).
fn walk_entries<T: EntitySchema>(map: &dyn std::any::Any, from: usize, _: usize, sink: &mut RefSink<'_>) -> usize {
    match map.downcast_ref::<Entries<T::Stored>>() {
        Some(entries) if from == 0 => {
            entries.map().values().for_each(|r| T::refs(r, sink));
            entries.map().len()
        }
        _ => 0,
    }
}
impl<T: EntitySchema, P: CollectionPolicy + Default> EntityField for Collection<Values<T>, P> {}

impl<T: EntitySchema, P: CollectionPolicy + Default> ListSchema for Collection<Values<T>, P> {
    type Item = T;
}

/// The schema of `get_list().assign()` on a map collection: a map of entities, each stored, set
/// as entries of every stored map of their type whose filter accepts the call (R-COL-9): an
/// entry's key takes its new reference, and the other keys stay.
pub struct Assign<L>(PhantomData<fn() -> L>);

impl<T: EntitySchema, P: CollectionPolicy + Default> Schema for Assign<Collection<Values<T>, P>> {
    type Output = BTreeMap<String, T>;
    type Stored = BTreeMap<String, T::Stored>;

    fn normalize<'de, D: Deserializer<'de>>(de: D) -> Result<Self::Stored, D::Error> {
        let map = <Values<T> as Schema>::normalize(de)?;
        let entries = Box::new(Entries::new(map.clone()));
        let join = Join::of::<Collection<Values<T>, P>>(entries, JoinKind::Edit(ListEdit::Assign), None);
        with(|n| n.pending.joins.push(join));
        Ok(map)
    }

    forward_schema!(Values<T>: denormalize, from_json, refs);
    forward_schema!(Collection<Values<T>, P>: register);
}
