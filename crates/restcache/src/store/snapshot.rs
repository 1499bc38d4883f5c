//! A store's state as serde data, and the store again from it (R-SNAP).
//!
//! [`Store::snapshot`] exports every table, result and endpoint meta with times on the wall
//! clock; [`Store::hydrate`] checks a whole snapshot against the [`Schemas`] it is given, builds
//! the new state apart, and only then replaces the store's, so a bad snapshot writes nothing.

use std::collections::HashSet;
use std::fmt;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::write::too_deep;
use super::{EndpointMeta, KeyMap, Store, StoredResult};
use crate::error::Error;
use crate::json::{MAX_INPUT_DEPTH, dispose};
use crate::schema::{Decoder, Registry, Schema};
use crate::tables::{EntityMeta, Record, RowMeta, Slot, Stamp, TableId, Tables};

/// The snapshot format this version writes and reads.
const FORMAT: u32 = 1;

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
    format: u32,
    tables: Vec<TableSnapshot>,
    results: Vec<ResultSnapshot>,
    endpoints: Vec<EndpointSnapshot>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TableSnapshot {
    name: String,
    rows: Vec<RowSnapshot>,
}

/// One row; times are wall-clock nanoseconds since the UNIX epoch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RowSnapshot {
    pk: String,
    record: RecordSnapshot,
    fetched_at: i64,
    written_at: i64,
    expires_at: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RecordSnapshot {
    /// An entity's fields, as its row writes them.
    Entity(Value),
    /// A collection's references.
    List(Value),
    /// An INVALID mark (R-INV-1).
    Invalid,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ResultSnapshot {
    key: String,
    value: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct EndpointSnapshot {
    key: String,
    fetched_at: i64,
    written_at: i64,
    /// `None`: expired.
    expires_at: Option<i64>,
    invalidated: bool,
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
}

/// The schemas a snapshot is read back with ([`Store::hydrate`]): every table the snapshot
/// holds must belong to one of them, entity or collection, nested ones included.
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
fn endpoint(key: &str, m: &EndpointMeta) -> Option<EndpointSnapshot> {
    let at = |i| Stamp::of(i).wall_nanos();
    m.error.is_none().then(|| EndpointSnapshot {
        key: key.to_owned(),
        fetched_at: at(m.fetched_at),
        written_at: at(m.written_at),
        expires_at: m.expires_at.map(at),
        invalidated: m.invalidated,
    })
}

impl Snapshot {
    /// A row as a snapshot holds it.
    pub(super) fn row(pk: &str, slot: &Slot) -> RowSnapshot {
        RowSnapshot {
            pk: pk.to_owned(),
            record: match &slot.record {
                Record::Entity(row) => RecordSnapshot::Entity(Value::Object(row.json())),
                Record::List(items) => RecordSnapshot::List(items.json()),
                Record::Invalid => RecordSnapshot::Invalid,
            },
            fetched_at: slot.meta.fetched_at.wall_nanos(),
            written_at: slot.meta.written_at.wall_nanos(),
            expires_at: slot.meta.expires_at.wall_nanos(),
        }
    }

    /// The snapshot replayed from `changes`, oldest first (R-PERS-1): a later change of a row
    /// or key replaces an earlier one, a key with neither result nor meta is removed, and a
    /// `Clear` removes everything before it. Tables and rows keep the order they first
    /// appeared in.
    ///
    /// ```
    /// use restcache::store::Snapshot;
    /// let store = restcache::Store::new();
    /// assert_eq!(Snapshot::from_changes(store.snapshot().changes()), store.snapshot());
    /// ```
    pub fn from_changes(changes: impl IntoIterator<Item = Change>) -> Snapshot {
        let mut tables: IndexMap<String, IndexMap<String, RowSnapshot>> = IndexMap::new();
        let mut keys: IndexMap<String, (Option<Value>, Option<EndpointSnapshot>)> = IndexMap::new();
        for Change(change) in changes {
            match change {
                ChangeKind::Clear => {
                    tables.clear();
                    keys.clear();
                }
                ChangeKind::Row { table, row } => {
                    tables.entry(table).or_default().insert(row.pk.clone(), row);
                }
                ChangeKind::Key { key, result, meta } => match (result, meta) {
                    (None, None) => {
                        keys.shift_remove(&key);
                    }
                    kept => {
                        keys.insert(key, kept);
                    }
                },
            }
        }
        let mut results = Vec::new();
        let mut endpoints = Vec::new();
        for (key, (result, meta)) in keys {
            if let Some(value) = result {
                results.push(ResultSnapshot {
                    key: key.clone(),
                    value,
                });
            }
            endpoints.extend(meta);
        }
        Snapshot {
            format: FORMAT,
            tables: tables
                .into_iter()
                .map(|(name, rows)| TableSnapshot {
                    name,
                    rows: rows.into_values().collect(),
                })
                .collect(),
            results,
            endpoints,
        }
    }

    /// The snapshot as changes that [`from_changes`](Self::from_changes) replays into it: a
    /// `Clear`, then each row, then each key. What a persister compacts its log to.
    pub fn changes(&self) -> Vec<Change> {
        let mut changes = vec![Change::clear()];
        for t in &self.tables {
            changes.extend(t.rows.iter().map(|row| Change::row(&t.name, row.clone())));
        }
        let mut keys: IndexMap<&str, (Option<Value>, Option<EndpointSnapshot>)> = IndexMap::new();
        for r in &self.results {
            keys.entry(&r.key).or_default().0 = Some(r.value.clone());
        }
        for e in &self.endpoints {
            keys.entry(&e.key).or_default().1 = Some(e.clone());
        }
        for (key, (result, meta)) in keys {
            changes.push(Change(ChangeKind::Key {
                key: key.to_owned(),
                result,
                meta,
            }));
        }
        changes
    }
}

/// One change of a store's state, as a persister saves it (R-PERS-1): a row written, a key's
/// result and meta written or removed, or everything cleared. Serde data, like a
/// [`Snapshot`]; [`slot`](Self::slot) names what it overwrites.
///
/// ```
/// use restcache::store::{Change, Snapshot};
/// let changes = restcache::Store::new().snapshot().changes();
/// let text = serde_json::to_string(&changes).unwrap();
/// let back: Vec<Change> = serde_json::from_str(&text).unwrap();
/// assert_eq!(back, changes);
/// assert_eq!(back[0].slot(), "clear");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Change(ChangeKind);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum ChangeKind {
    Clear,
    Row {
        table: String,
        row: RowSnapshot,
    },
    Key {
        key: String,
        result: Option<Value>,
        meta: Option<EndpointSnapshot>,
    },
}

impl Change {
    pub(super) fn clear() -> Change {
        Change(ChangeKind::Clear)
    }

    pub(super) fn row(table: &str, row: RowSnapshot) -> Change {
        Change(ChangeKind::Row {
            table: table.to_owned(),
            row,
        })
    }

    pub(super) fn key(key: &str, result: Option<&StoredResult>, meta: Option<&EndpointMeta>) -> Change {
        Change(ChangeKind::Key {
            key: key.to_owned(),
            result: result.map(|r| r.value.json()),
            meta: meta.and_then(|m| endpoint(key, m)),
        })
    }

    /// What the change overwrites: a later change with the same slot replaces this one, so a
    /// key-value backend can keep one entry per slot. `"clear"` clears every slot.
    pub fn slot(&self) -> String {
        match &self.0 {
            ChangeKind::Clear => "clear".to_owned(),
            ChangeKind::Row { table, row } => format!("row/{}/{}", escape(table), escape(&row.pk)),
            ChangeKind::Key { key, .. } => format!("key/{}", escape(key)),
        }
    }

    /// Whether this change clears every slot.
    pub fn is_clear(&self) -> bool {
        matches!(self.0, ChangeKind::Clear)
    }
}

/// `/` and `%` percent-encoded, so a slot's parts never run into each other.
fn escape(part: &str) -> String {
    part.replace('%', "%25").replace('/', "%2F")
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidSnapshot { reason: reason.into() }
}

/// A store's state read from a snapshot, not yet installed.
pub(crate) struct Hydrated {
    tables: Tables,
    results: KeyMap<StoredResult>,
    meta: KeyMap<EndpointMeta>,
}

impl Store {
    /// The store's state as a [`Snapshot`] (R-SNAP-1), to serialize with serde and
    /// [`hydrate`](Self::hydrate) a store with, here or in another process.
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
        let results = self
            .results
            .iter()
            .map(|(key, r)| ResultSnapshot {
                key: key.clone(),
                value: r.value.json(),
            })
            .collect();
        let endpoints = self.meta.iter().filter_map(|(key, m)| endpoint(key, m)).collect();
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
            tables: table_snapshots,
            results: result_snapshots,
            endpoints,
        } = snapshot;
        if format != FORMAT {
            return Err(invalid(format!("format {format}; this version reads format {FORMAT}")));
        }
        schemas.registry.check()?;
        let mut tables = Tables::default();
        let mut names = HashSet::new();
        for TableSnapshot { name, rows } in table_snapshots {
            let Some((name, decoder)) = schemas.registry.table(&name) else {
                return Err(invalid(format!("no schema given holds the table {name:?}")));
            };
            if !names.insert(name) {
                return Err(invalid(format!("the table {name:?} appears twice")));
            }
            let (_, table) = tables.get_or_create(name);
            table.rows.reserve(rows.len());
            let mut meta: Option<Arc<EntityMeta>> = None;
            for row in rows {
                let RowSnapshot {
                    pk,
                    record,
                    fetched_at,
                    written_at,
                    expires_at,
                } = row;
                if pk.is_empty() {
                    return Err(invalid(format!("a row of {name:?} has an empty pk")));
                }
                if table.rows.contains_key(&pk) {
                    return Err(invalid(format!("the pk {pk:?} appears twice in {name:?}")));
                }
                let record =
                    read_record(record, decoder).map_err(|why| invalid(format!("row {pk:?} of {name:?} {why}")))?;
                let row_meta = EntityMeta {
                    fetched_at: Stamp::from_wall_nanos(fetched_at),
                    written_at: Stamp::from_wall_nanos(written_at),
                    expires_at: Stamp::from_wall_nanos(expires_at),
                };
                // Consecutive rows of one write share its meta, as they did when written.
                let shared = match meta.take() {
                    Some(m) if *m == row_meta => m,
                    _ => Arc::new(row_meta),
                };
                table.rows.insert(
                    pk,
                    Slot {
                        record,
                        meta: RowMeta::of(&shared),
                        version: 0,
                    },
                );
                meta = Some(shared);
            }
        }
        let mut results = KeyMap::default();
        for ResultSnapshot { key, value } in result_snapshots {
            if let Some(at) = too_deep(&value, 0) {
                dispose(value);
                return Err(invalid(format!(
                    "the result of {key:?} nests deeper than {MAX_INPUT_DEPTH} levels at {at:?}"
                )));
            }
            let value: Arc<dyn crate::refs::AnyStored> = Arc::new(value);
            if results
                .insert(key.clone(), StoredResult { value, version: 0 })
                .is_some()
            {
                return Err(invalid(format!("the key {key:?} has two results")));
            }
        }
        let mut meta = KeyMap::default();
        for e in endpoints {
            let at = |nanos: i64| Stamp::from_wall_nanos(nanos).instant();
            let m = EndpointMeta {
                fetched_at: at(e.fetched_at),
                written_at: at(e.written_at),
                expires_at: e.expires_at.map(at),
                error: None,
                invalidated: e.invalidated,
            };
            if meta.insert(e.key.clone(), m).is_some() {
                return Err(invalid(format!("the key {:?} has two metas", e.key)));
            }
        }
        Ok(Hydrated { tables, results, meta })
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
        if let Some(journal) = self.journal.as_mut() {
            for (id, (_, table)) in self.tables.iter().enumerate() {
                (0..table.rows.len()).for_each(|row| journal.row(id as TableId, row));
            }
            self.results
                .keys()
                .chain(self.meta.keys())
                .for_each(|key| journal.key(key));
        }
    }
}

/// A record from its snapshot, by its table's decoder; the error says why it does not read back.
fn read_record(record: RecordSnapshot, decoder: Decoder) -> Result<Record, String> {
    // A value too deep to walk is dropped without recursion.
    let check = |json: Value| match too_deep(&json, 0) {
        Some(at) => {
            dispose(json);
            Err(format!("nests deeper than {MAX_INPUT_DEPTH} levels at {at:?}"))
        }
        None => Ok(json),
    };
    match (record, decoder) {
        (RecordSnapshot::Invalid, _) => Ok(Record::Invalid),
        (RecordSnapshot::Entity(json), Decoder::Row(decode)) => {
            let json = check(json)?;
            decode(&json)
                .map(Record::Entity)
                .ok_or_else(|| "does not read back as its entity's row".to_owned())
        }
        (RecordSnapshot::List(json), Decoder::List(decode)) => {
            let json = check(json)?;
            decode(&json)
                .map(Record::List)
                .ok_or_else(|| "is not a list of its collection's references".to_owned())
        }
        (RecordSnapshot::Entity(_), Decoder::List(_)) => Err("is an entity in a collection table".to_owned()),
        (RecordSnapshot::List(_), Decoder::Row(_)) => Err("is a list in an entity table".to_owned()),
    }
}
