//! A store's state as serde data, and the store again from it (R-SNAP).
//!
//! [`Store::snapshot`] exports every table, result and endpoint meta with times on the wall
//! clock; [`Store::hydrate`] checks a whole snapshot against the [`Schemas`] it is given, builds
//! the new state apart, and only then replaces the store's, so a bad snapshot writes nothing.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{EndpointMeta, KeyMap, Store, StoredResult};
use crate::error::Error;
use crate::json::{MAX_INPUT_DEPTH, shallow};
use crate::rows::Row;
use crate::schema::{Decoder, Registry, Schema};
use crate::tables::{EntityMeta, Record, RowMeta, Slot, Stamp, TableId, Tables};

/// The snapshot format this version writes and reads.
pub(super) const FORMAT: u32 = 1;

/// A store's state as serde data: what [`Store::snapshot`] exports and [`Store::hydrate`]
/// reads back, in JSON or any self-describing serde format.
///
/// It holds every entity, collection and INVALID mark with its meta, every endpoint's result,
/// and the meta of every endpoint whose last fetch succeeded or was invalidated; times are on
/// the wall clock, so a snapshot taken on a server keeps its expiry on a client (R-SNAP-1).
/// Pending optimistic updates and recorded fetch errors are left out: a hydrated store
/// retries what failed.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::store::{Schemas, Snapshot};
/// use serde_json::json;
///
/// #[derive(Clone, Debug, Default, PartialEq, Entity)]
/// struct Todo { #[entity(pk)] id: u64, title: String }
/// type Todos = Collection<Vec<Todo>>;
///
/// let mut server = Store::new();
/// server.set_response::<Todos>("GET /todos", &(), &json!([{"id": 1, "title": "ship"}]))?;
/// let text = server.snapshot().to_json();
///
/// let mut client = Store::new();
/// client.hydrate(Snapshot::from_json(&text)?, &Schemas::new().with::<Todos>())?;
/// let todos = client.get_response::<Todos>("GET /todos", &())?.data.unwrap();
/// assert_eq!(todos[0].title, "ship");
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    pub(super) format: u32,
    pub(super) tables: Vec<TableSnapshot>,
    pub(super) results: Vec<ResultSnapshot>,
    pub(super) endpoints: Vec<EndpointSnapshot>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TableSnapshot {
    pub name: String,
    pub rows: Vec<RowSnapshot>,
}

/// One row; times are wall-clock nanoseconds since the UNIX epoch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RowSnapshot {
    pub pk: String,
    pub record: RecordSnapshot,
    pub fetched_at: i64,
    pub written_at: i64,
    pub expires_at: i64,
}

/// A record as a snapshot ([`RecordSnapshot`]) or a change ([`RecordText`](super::change::RecordText))
/// holds it: its JSON, or that JSON's text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum RecordOf<T> {
    /// An entity's fields, as its row writes them.
    Entity(T),
    /// A collection's references.
    List(T),
    /// An INVALID mark (R-INV-1).
    Invalid,
}

pub(super) type RecordSnapshot = RecordOf<Value>;

impl<T> RecordOf<T> {
    /// The same record with its JSON made into `f`'s.
    pub fn map<U>(&self, f: impl FnOnce(&T) -> U) -> RecordOf<U> {
        match self {
            RecordOf::Entity(t) => RecordOf::Entity(f(t)),
            RecordOf::List(t) => RecordOf::List(f(t)),
            RecordOf::Invalid => RecordOf::Invalid,
        }
    }
}

impl RecordSnapshot {
    /// A stored record's JSON.
    pub fn of(record: &Record) -> Self {
        match record {
            Record::Entity(row) => RecordOf::Entity(Value::Object(row.to_json())),
            Record::List(items) => RecordOf::List(items.json()),
            Record::Invalid => RecordOf::Invalid,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ResultSnapshot {
    pub key: String,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EndpointSnapshot {
    pub key: String,
    pub fetched_at: i64,
    pub written_at: i64,
    /// `None`: expired.
    pub expires_at: Option<i64>,
    pub invalidated: bool,
}

impl Snapshot {
    /// The snapshot as JSON text.
    ///
    /// ```
    /// let text = restcache::Store::new().snapshot().to_json();
    /// assert!(text.starts_with(r#"{"format":1,"#));
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a snapshot is JSON")
    }

    /// A snapshot from JSON text; `Error::InvalidSnapshot` when the text is not one.
    ///
    /// ```
    /// use restcache::{Error, store::Snapshot};
    /// assert!(matches!(Snapshot::from_json("{}"), Err(Error::InvalidSnapshot { .. })));
    /// ```
    pub fn from_json(text: &str) -> Result<Snapshot, Error> {
        serde_json::from_str(text).map_err(|e| invalid(format!("not a snapshot: {e}")))
    }

    /// A row as a snapshot holds it.
    fn row(pk: &str, slot: &Slot) -> RowSnapshot {
        RowSnapshot {
            pk: pk.to_owned(),
            record: RecordSnapshot::of(&slot.record),
            fetched_at: slot.meta.fetched_at.wall_nanos(),
            written_at: slot.meta.written_at.wall_nanos(),
            expires_at: slot.meta.expires_at.wall_nanos(),
        }
    }
}

/// The schemas a snapshot is read back with ([`Store::hydrate`]): every table the snapshot
/// holds must belong to one of them, nested ones included. An entity's schema brings the
/// tables of its lists and maps with it.
///
/// ```
/// use restcache::prelude::*;
/// use restcache::store::Schemas;
///
/// #[derive(Clone, Debug, Default, Entity)]
/// struct User { #[entity(pk)] id: u64 }
/// #[derive(Clone, Debug, Default, Entity)]
/// struct Todo { #[entity(pk)] id: u64, #[entity(schema)] owner: Option<User> }
///
/// // The Todo table, the User table its owners are in, and the Todo collections.
/// let schemas = Schemas::new().with::<Collection<Vec<Todo>>>();
/// # drop(schemas);
/// ```
#[derive(Clone, Default)]
pub struct Schemas {
    registry: Registry,
}

impl Schemas {
    /// No schema yet.
    pub fn new() -> Self {
        Schemas::default()
    }

    /// These schemas and `S` (its entities, collections and nested schemas).
    pub fn with<S: Schema>(mut self) -> Self {
        S::register(&mut self.registry);
        self
    }
}

impl fmt::Debug for Schemas {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Schemas").finish_non_exhaustive()
    }
}

/// A key's meta as a snapshot holds it; `None` for the meta of a failed fetch, which is left out.
pub(super) fn endpoint(key: &str, m: &EndpointMeta) -> Option<EndpointSnapshot> {
    let at = |i| Stamp::of(i).wall_nanos();
    m.error.is_none().then(|| EndpointSnapshot {
        key: key.to_owned(),
        fetched_at: at(m.fetched_at),
        written_at: at(m.written_at),
        expires_at: m.expires_at.map(at),
        invalidated: m.invalidated,
    })
}

pub(super) fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidSnapshot { reason: reason.into() }
}

/// A store's state read from a snapshot, not yet installed.
#[derive(Default)]
pub(crate) struct Hydrated {
    tables: Tables,
    results: KeyMap<StoredResult>,
    meta: KeyMap<EndpointMeta>,
}

impl Store {
    /// The store's state as a [`Snapshot`] (R-SNAP-1), to serialize with serde and
    /// [`hydrate`](Self::hydrate) a store with, here or in another process.
    ///
    /// ```
    /// # use restcache::prelude::*;
    /// # use serde_json::json;
    /// # #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// # struct Todo { #[entity(pk)] id: u64, title: String }
    /// use restcache::store::Snapshot;
    ///
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({ "id": 1, "title": "a" }))?;
    /// let text = store.snapshot().to_json(); // what a server hands to the page
    /// assert_eq!(Snapshot::from_json(&text)?, store.snapshot());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn snapshot(&self) -> Snapshot {
        let tables = self
            .tables
            .iter()
            .map(|(name, table)| TableSnapshot {
                name: name.to_owned(),
                rows: table
                    .rows
                    .iter()
                    .map(|(pk, slot)| Snapshot::row(pk.as_str(), slot))
                    .collect(),
            })
            .collect();
        // Keys in the order of their text: a map of keys has no order of its own to keep.
        let mut results: Vec<ResultSnapshot> = self
            .results
            .iter()
            .map(|(key, r)| ResultSnapshot {
                key: key.clone(),
                value: r.value.json(),
            })
            .collect();
        results.sort_by(|a, b| a.key.cmp(&b.key));
        let mut endpoints: Vec<EndpointSnapshot> = self.meta.iter().filter_map(|(key, m)| endpoint(key, m)).collect();
        endpoints.sort_by(|a, b| a.key.cmp(&b.key));
        Snapshot {
            format: FORMAT,
            tables,
            results,
            endpoints,
        }
    }

    /// Replaces the store's state with `snapshot`'s, read back with `schemas` (R-SNAP-2): reads
    /// are then served from it, and go stale when its meta says. Pending optimistic updates
    /// are dropped, and a request that started before writes nothing, as after
    /// [`clear`](Self::clear).
    ///
    /// A snapshot that does not read back (another format, a table none of `schemas` has, a
    /// record that is not its table's type, a repeated table, pk or key, a value nested
    /// deeper than 128 levels) is `Error::InvalidSnapshot`; two schemas with one entity key
    /// are `Error::InvalidConfig`. Either way nothing is written.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::store::Schemas;
    /// use serde_json::json;
    ///
    /// #[derive(Clone, Debug, Default, PartialEq, Entity)]
    /// struct Todo { #[entity(pk)] id: u64, title: String }
    ///
    /// let mut store = Store::new();
    /// store.set_response::<Todo>("GET /todos/1", &(), &json!({"id": 1, "title": "ship"}))?;
    /// let snapshot = store.snapshot();
    /// store.clear();
    /// store.hydrate(snapshot.clone(), &Schemas::new().with::<Todo>())?;
    /// assert_eq!(store.snapshot(), snapshot);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn hydrate(&mut self, snapshot: Snapshot, schemas: &Schemas) -> Result<(), Error> {
        let hydrated = Store::read_snapshot(snapshot, schemas)?;
        self.install(hydrated);
        Ok(())
    }

    /// Reads a whole snapshot into a state apart from any store.
    pub(crate) fn read_snapshot(snapshot: Snapshot, schemas: &Schemas) -> Result<Hydrated, Error> {
        let Snapshot {
            format,
            tables,
            results,
            endpoints,
        } = snapshot;
        if format != FORMAT {
            return Err(invalid(format!("format {format}; this version reads format {FORMAT}")));
        }
        let mut replay = Replay::new(schemas)?;
        let mut names = HashSet::new();
        let check = |json| shallow(json).map_err(|at| format!("nests deeper than {MAX_INPUT_DEPTH} levels at {at:?}"));
        for TableSnapshot { name, rows } in tables {
            let (name, decoder) = replay.table(&name)?;
            if !names.insert(name) {
                return Err(invalid(format!("the table {name:?} appears twice")));
            }
            replay.state.tables.get_or_create(name).1.rows.reserve(rows.len(), &[]);
            for row in rows {
                let times = [row.fetched_at, row.written_at, row.expires_at];
                let record = read_record(
                    (name, &row.pk),
                    row.record,
                    decoder,
                    |json, decode, _| Ok(decode(&check(json)?)),
                    |json| check(json).map(Some),
                )?;
                replay.row(name, row.pk, record, times, false)?;
            }
        }
        for ResultSnapshot { key, value } in results {
            let value = shallow(value).map_err(|at| {
                invalid(format!(
                    "the result of {key:?} nests deeper than {MAX_INPUT_DEPTH} levels at {at:?}"
                ))
            })?;
            replay.result(key, value)?;
        }
        for e in endpoints {
            replay.meta(e)?;
        }
        Ok(replay.finish())
    }

    /// Replaces the store's state with `hydrated`, each record and result at a new version.
    pub(crate) fn install(&mut self, hydrated: Hydrated) {
        self.clear();
        let Hydrated {
            mut tables,
            mut results,
            meta,
        } = hydrated;
        for (_, table) in tables.iter_mut() {
            for slot in table.rows.values_mut() {
                slot.version = Store::bump(&mut self.next_version);
                table.version = slot.version;
            }
        }
        for result in results.values_mut() {
            result.version = Store::bump(&mut self.next_version);
        }
        self.tables = tables;
        self.results = results;
        self.meta = meta;
        if let Some(gc) = self.gc.take() {
            self.set_gc(gc.policy);
        }
        if let Some(journal) = self.journal.as_mut() {
            for (id, (_, table)) in self.tables.iter().enumerate() {
                table.rows.iter().for_each(|(pk, _)| journal.row(id as TableId, pk));
            }
            self.results
                .keys()
                .chain(self.meta.keys())
                .for_each(|key| journal.key(key));
        }
    }
}

/// A store's state being read back, from a snapshot or from a persister's changes, apart from
/// any store: [`finish`](Self::finish) gives it to [`Store::install`].
pub(super) struct Replay<'s> {
    registry: &'s Registry,
    state: Hydrated,
    /// The meta of the row read last: consecutive rows of one write share it, as they did.
    last: Option<Arc<EntityMeta>>,
}

impl<'s> Replay<'s> {
    pub fn new(schemas: &'s Schemas) -> Result<Self, Error> {
        schemas.registry.check()?;
        Ok(Replay {
            registry: &schemas.registry,
            state: Hydrated::default(),
            last: None,
        })
    }

    /// The table `name` of the schemas, and how its records read back.
    pub fn table(&self, name: &str) -> Result<(&'static str, Decoder), Error> {
        self.registry
            .table(name)
            .ok_or_else(|| invalid(format!("no schema given holds the table {name:?}")))
    }

    /// Sets row `pk` of `table`; a row already read is an error, or with `replace` is replaced
    /// where it stands.
    pub fn row(
        &mut self,
        table: &'static str,
        pk: String,
        record: Record,
        times: [i64; 3],
        replace: bool,
    ) -> Result<(), Error> {
        if pk.is_empty() {
            return Err(invalid(format!("a row of {table:?} has an empty pk")));
        }
        let [fetched_at, written_at, expires_at] = times.map(Stamp::from_wall_nanos);
        let meta = EntityMeta {
            fetched_at,
            written_at,
            expires_at,
        };
        let meta = match self.last.take() {
            Some(m) if *m == meta => m,
            _ => Arc::new(meta),
        };
        let slot = Slot {
            record,
            meta: RowMeta::of(&meta),
            version: 0,
        };
        self.last = Some(meta);
        let rows = &mut self.state.tables.get_or_create(table).1.rows;
        let mut new = Some(slot);
        let (_, stored, added) = rows.get_or_insert_with(pk.as_str(), || new.take().expect("made once"));
        match new {
            Some(slot) if replace => *stored = slot,
            Some(_) => return Err(invalid(format!("the pk {pk:?} appears twice in {table:?}"))),
            None => debug_assert!(added),
        }
        Ok(())
    }

    /// Sets the result of `key`; a second is an error.
    pub fn result(&mut self, key: String, value: Value) -> Result<(), Error> {
        let value: Arc<dyn crate::refs::AnyStored> = Arc::new(value);
        let stored = StoredResult {
            value,
            version: 0,
            walk: None,
            bytes: 0,
        };
        if self.state.results.insert(key.clone(), stored).is_some() {
            return Err(invalid(format!("the key {key:?} has two results")));
        }
        Ok(())
    }

    /// Sets the meta of a key; a second is an error.
    pub fn meta(&mut self, e: EndpointSnapshot) -> Result<(), Error> {
        let at = |nanos: i64| Stamp::from_wall_nanos(nanos).instant();
        let m = EndpointMeta {
            fetched_at: at(e.fetched_at),
            written_at: at(e.written_at),
            expires_at: e.expires_at.map(at),
            error: None,
            invalidated: e.invalidated,
        };
        if self.state.meta.insert(e.key.clone(), m).is_some() {
            return Err(invalid(format!("the key {:?} has two metas", e.key)));
        }
        Ok(())
    }

    /// Removes row `pk` of table `table`, if there is one; the last row takes its place.
    pub fn forget(&mut self, table: &str, pk: &str) {
        if let Some(id) = self.state.tables.id(table) {
            let rows = &mut self.state.tables.table_mut(id).rows;
            if let Some((i, _)) = rows.get_full(pk) {
                rows.swap_remove(i);
            }
        }
    }

    /// Removes the result and meta of `key`.
    pub fn remove_key(&mut self, key: &str) {
        self.state.results.shift_remove(key);
        self.state.meta.shift_remove(key);
    }

    /// Removes everything read so far.
    pub fn clear(&mut self) {
        self.state = Hydrated::default();
        self.last = None;
    }

    pub fn finish(self) -> Hydrated {
        self.state
    }
}

/// Row `pk` of `table` by its table's decoder: an entity by `row` (given the decoder's
/// functions from JSON and from JSON text), a list from the JSON `list` gives (`None`: the text
/// is not JSON); the error says why it does not read back.
pub(super) fn read_record<T>(
    (table, pk): (&str, &str),
    record: RecordOf<T>,
    decoder: Decoder,
    row: impl FnOnce(T, RowFrom<Value>, RowFrom<str>) -> Result<Option<Box<dyn Row>>, String>,
    list: impl FnOnce(T) -> Result<Option<Value>, String>,
) -> Result<Record, Error> {
    let read = || match (record, decoder) {
        (RecordOf::Invalid, _) => Ok(Record::Invalid),
        (RecordOf::Entity(t), Decoder::Row { json, text }) => {
            (row(t, json, text)?.map(Record::Entity)).ok_or_else(|| "does not read back as its entity's row".to_owned())
        }
        (RecordOf::List(t), Decoder::List(decode, _)) => (list(t)?.and_then(|json| decode(&json)).map(Record::List))
            .ok_or_else(|| "is not a list of its collection's references".to_owned()),
        (RecordOf::Entity(_), Decoder::List(..)) => Err("is an entity in a collection table".to_owned()),
        (RecordOf::List(_), Decoder::Row { .. }) => Err("is a list in an entity table".to_owned()),
    };
    read().map_err(|why| invalid(format!("row {pk:?} of {table:?} {why}")))
}

type RowFrom<J> = fn(&J) -> Option<Box<dyn Row>>;
