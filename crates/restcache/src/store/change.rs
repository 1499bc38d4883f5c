//! One change of a store's state, as a persister saves it, and the state again from a run of
//! them (R-PERS-1, R-PERS-2).
//!
//! A change holds its record as JSON text, which a restore reads straight into the table's typed
//! row ([`Store::hydrate_changes`]), with no `Value` in between.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::snapshot::{
    EndpointSnapshot, FORMAT, Hydrated, RecordOf, RecordSnapshot, Replay, ResultSnapshot, RowSnapshot, Schemas,
    Snapshot, TableSnapshot, endpoint, invalid, read_record,
};
use super::{EndpointMeta, Store, StoredResult};
use crate::error::Error;
use crate::schema::Decoder;
use crate::tables::Slot;

/// One change of a store's state, as a persister saves it (R-PERS-1): a row written, a key's
/// result and meta written or removed, or everything cleared. Serde data, in any serde format
/// (a record is held as its JSON text); [`slot`](Self::slot) names what it overwrites.
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
pub struct Change(pub(crate) ChangeKind);

/// What a [`Change`] is; persisters of this crate read and write it in their own form.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum ChangeKind {
    Clear,
    Row {
        table: String,
        pk: String,
        record: RecordText,
        /// When fetched, written and expiring: wall-clock nanoseconds since the UNIX epoch.
        times: [i64; 3],
    },
    Key {
        key: String,
        /// The result's JSON text.
        result: Option<String>,
        meta: Option<KeyMeta>,
    },
    /// A row removed by the collector (R-GC-1), and the row that took its place (the table's
    /// last), if another: a backend that keeps rows apart can keep their order.
    Forget {
        table: String,
        pk: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        moved: Option<String>,
    },
}

/// A record as JSON text.
pub(crate) type RecordText = RecordOf<String>;

/// A key's meta: wall-clock nanoseconds since the UNIX epoch; `expires_at` `None` is expired.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct KeyMeta {
    pub fetched_at: i64,
    pub written_at: i64,
    pub expires_at: Option<i64>,
    pub invalidated: bool,
}

impl KeyMeta {
    fn of(e: &EndpointSnapshot) -> KeyMeta {
        KeyMeta {
            fetched_at: e.fetched_at,
            written_at: e.written_at,
            expires_at: e.expires_at,
            invalidated: e.invalidated,
        }
    }

    fn snapshot(self, key: String) -> EndpointSnapshot {
        EndpointSnapshot {
            key,
            fetched_at: self.fetched_at,
            written_at: self.written_at,
            expires_at: self.expires_at,
            invalidated: self.invalidated,
        }
    }
}

fn text(json: &Value) -> String {
    serde_json::to_string(json).expect("a Value is JSON")
}

impl Change {
    pub(crate) fn clear() -> Change {
        Change(ChangeKind::Clear)
    }

    /// A row as it is stored now.
    pub(super) fn row(table: &str, pk: &str, slot: &Slot) -> Change {
        let m = &slot.meta;
        Change(ChangeKind::Row {
            table: table.to_owned(),
            pk: pk.to_owned(),
            record: RecordSnapshot::of(&slot.record).map(text),
            times: [m.fetched_at, m.written_at, m.expires_at].map(|t| t.wall_nanos()),
        })
    }

    /// A row the collector removed.
    pub(super) fn forget(table: &str, pk: &str, moved: Option<&str>) -> Change {
        Change(ChangeKind::Forget {
            table: table.to_owned(),
            pk: pk.to_owned(),
            moved: moved.map(str::to_owned),
        })
    }

    /// The slot of the row that took the place of the row this change removes, if any.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn moved_slot(&self) -> Option<String> {
        match &self.0 {
            ChangeKind::Forget {
                table,
                moved: Some(moved),
                ..
            } => Some(format!("row/{}/{}", escape(table), escape(moved))),
            _ => None,
        }
    }

    /// A key's result and meta as they are stored now (neither: the key is gone).
    pub(super) fn key(key: &str, result: Option<&StoredResult>, meta: Option<&EndpointMeta>) -> Change {
        Change(ChangeKind::Key {
            key: key.to_owned(),
            result: result.map(|r| text(&r.value.json())),
            meta: meta.and_then(|m| endpoint(key, m)).as_ref().map(KeyMeta::of),
        })
    }

    /// What the change overwrites: a later change with the same slot replaces this one, so a
    /// key-value backend can keep one entry per slot. `"clear"` clears every slot.
    pub fn slot(&self) -> String {
        match &self.0 {
            ChangeKind::Clear => "clear".to_owned(),
            ChangeKind::Row { table, pk, .. } | ChangeKind::Forget { table, pk, .. } => {
                format!("row/{}/{}", escape(table), escape(pk))
            }
            ChangeKind::Key { key, .. } => format!("key/{}", escape(key)),
        }
    }

    /// Whether this change clears every slot.
    pub fn is_clear(&self) -> bool {
        matches!(self.0, ChangeKind::Clear)
    }

    /// Whether this change removes its slot (a key with neither result nor meta left, or a
    /// row the collector removed).
    pub fn is_removal(&self) -> bool {
        matches!(
            &self.0,
            ChangeKind::Key {
                result: None,
                meta: None,
                ..
            } | ChangeKind::Forget { .. }
        )
    }
}

/// `/` and `%` percent-encoded, so a slot's parts never run into each other.
fn escape(part: &str) -> String {
    part.replace('%', "%25").replace('/', "%2F")
}

impl Snapshot {
    /// The snapshot replayed from `changes`, oldest first (R-PERS-2): a later change of a row
    /// or key replaces an earlier one, a key with neither result nor meta is removed, and a
    /// clear removes everything before it. Tables and rows keep the order they first appeared
    /// in. A record whose text is not JSON reads as `null`, which no table takes.
    ///
    /// ```
    /// use restcache::store::Snapshot;
    /// let store = restcache::Store::new();
    /// assert_eq!(Snapshot::from_changes(store.snapshot().changes()), store.snapshot());
    /// ```
    pub fn from_changes(changes: impl IntoIterator<Item = Change>) -> Snapshot {
        let json = |text: &str| serde_json::from_str(text).unwrap_or(Value::Null);
        let mut tables: IndexMap<String, IndexMap<String, RowSnapshot>> = IndexMap::new();
        let mut keys: IndexMap<String, (Option<Value>, Option<KeyMeta>)> = IndexMap::new();
        for Change(change) in changes {
            match change {
                ChangeKind::Clear => {
                    tables.clear();
                    keys.clear();
                }
                ChangeKind::Row {
                    table,
                    pk,
                    record,
                    times,
                } => {
                    let [fetched_at, written_at, expires_at] = times;
                    let row = RowSnapshot {
                        pk: pk.clone(),
                        record: record.map(|text| json(text)),
                        fetched_at,
                        written_at,
                        expires_at,
                    };
                    tables.entry(table).or_default().insert(pk, row);
                }
                // The table's last row takes its place, as in the store.
                ChangeKind::Forget { table, pk, .. } => {
                    if let Some(rows) = tables.get_mut(&table) {
                        rows.swap_remove(&pk);
                    }
                }
                ChangeKind::Key {
                    key,
                    result: None,
                    meta: None,
                } => {
                    keys.shift_remove(&key);
                }
                ChangeKind::Key { key, result, meta } => {
                    keys.insert(key, (result.as_deref().map(json), meta));
                }
            }
        }
        keys.sort_unstable_keys();
        let mut results = Vec::new();
        let mut endpoints = Vec::new();
        for (key, (result, meta)) in keys {
            endpoints.extend(meta.map(|m| m.snapshot(key.clone())));
            if let Some(value) = result {
                results.push(ResultSnapshot { key, value });
            }
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
    /// clear, then each row, then each key. What a persister compacts to.
    pub fn changes(&self) -> Vec<Change> {
        let mut changes = vec![Change::clear()];
        for t in &self.tables {
            changes.extend(t.rows.iter().map(|row| {
                Change(ChangeKind::Row {
                    table: t.name.clone(),
                    pk: row.pk.clone(),
                    record: row.record.map(text),
                    times: [row.fetched_at, row.written_at, row.expires_at],
                })
            }));
        }
        let mut keys: IndexMap<&str, (Option<String>, Option<KeyMeta>)> = IndexMap::new();
        for r in &self.results {
            keys.entry(&r.key).or_default().0 = Some(text(&r.value));
        }
        for e in &self.endpoints {
            keys.entry(&e.key).or_default().1 = Some(KeyMeta::of(e));
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

impl Store {
    /// Replaces the store's state with the one `changes` replay into (R-PERS-2), read back with
    /// `schemas`: what a persister's restore gives. The same as
    /// `hydrate(Snapshot::from_changes(changes), schemas)`, but each row is read from its JSON
    /// text straight into its typed row. A change that does not read back is
    /// `Error::InvalidSnapshot`, and nothing is written.
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
    /// let mut again = Store::new();
    /// again.hydrate_changes(store.snapshot().changes(), &Schemas::new().with::<Todo>())?;
    /// assert_eq!(again.snapshot(), store.snapshot());
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn hydrate_changes(&mut self, changes: Vec<Change>, schemas: &Schemas) -> Result<(), Error> {
        let (hydrated, _) = Store::replay_changes(changes, schemas, false)?;
        self.install(hydrated);
        Ok(())
    }

    /// What a persister's restore reads back (R-PERS-1): [`hydrate_changes`](Self::hydrate_changes),
    /// except that a change that does not read back (a row of a table none of `schemas` holds,
    /// one that is not its table's type, a result that is not JSON) is left out rather than
    /// refusing the rest: a cache keeps what it can. Returns how many were left out; schemas
    /// that give one entity key two types are still `Error::InvalidConfig`.
    pub(crate) fn restore_changes(&mut self, changes: Vec<Change>, schemas: &Schemas) -> Result<usize, Error> {
        let (hydrated, dropped) = Store::replay_changes(changes, schemas, true)?;
        self.install(hydrated);
        Ok(dropped)
    }

    /// The state `changes` replay into, and how many were left out; what comes before the
    /// last clear is not read. With `lenient`, a change that does not read back is left out
    /// instead of failing the whole.
    fn replay_changes(changes: Vec<Change>, schemas: &Schemas, lenient: bool) -> Result<(Hydrated, usize), Error> {
        let mut replay = Replay::new(schemas)?;
        let after_clear = changes.iter().rposition(Change::is_clear).unwrap_or(0);
        let mut dropped = 0;
        // Consecutive rows are mostly of one table: its decoder is looked up once for them.
        let mut last: Option<(&'static str, Decoder)> = None;
        for Change(change) in changes.into_iter().skip(after_clear) {
            let read = match change {
                ChangeKind::Clear => {
                    replay.clear();
                    Ok(())
                }
                ChangeKind::Row {
                    table,
                    pk,
                    record,
                    times,
                } => (|| {
                    let (table, decoder) = match last {
                        Some((name, decoder)) if name == table => (name, decoder),
                        _ => *last.insert(replay.table(&table)?),
                    };
                    // serde_json refuses text nested deeper than 128 levels.
                    let record = read_record(
                        (table, &pk),
                        record,
                        decoder,
                        |text, _, decode| Ok(decode(&text)),
                        |text| Ok(serde_json::from_str(&text).ok()),
                    )?;
                    replay.row(table, pk, record, times, true)
                })(),
                ChangeKind::Forget { table, pk, .. } => {
                    replay.forget(&table, &pk);
                    Ok(())
                }
                ChangeKind::Key { key, result, meta } => (|| {
                    // The key's whole state: what it lacks now, it lost.
                    replay.remove_key(&key);
                    if let Some(text) = result {
                        let value = serde_json::from_str(&text)
                            .map_err(|e| invalid(format!("the result of {key:?} is not JSON: {e}")))?;
                        replay.result(key.clone(), value)?;
                    }
                    if let Some(meta) = meta {
                        replay.meta(meta.snapshot(key))?;
                    }
                    Ok(())
                })(),
            };
            match read {
                Err(e) if lenient => {
                    tracing::debug!(error = %e, "left a persisted change out");
                    dropped += 1;
                }
                other => other?,
            }
        }
        Ok((replay.finish(), dropped))
    }
}
