//! What changed in a store since it was last asked: the rows and keys its commits touched, for
//! a persister to save one entity at a time (R-PERS-1).

use std::collections::{HashMap, HashSet};

use super::Store;
use super::change::Change;
use crate::pk::Pk;
use crate::rt::Instant;
use crate::tables::{Stamp, TableId};

/// The rows and keys touched since the last [`Store::take_changes`], and whether the store was
/// cleared in between. Duplicates are dropped when the changes are taken.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    cleared: bool,
    /// By pk, not by row index: the collector moves rows (R-GC-1). A row removed is noted with
    /// the row that took its place, if another, and its state if it was written since `since`.
    rows: Vec<(TableId, Pk, Option<Removed>)>,
    keys: Vec<String>,
    /// When the changes were last taken.
    pub since: Stamp,
}

/// A row the collector removed: the row that took its place, and the state it had, if it was
/// written since the changes were last taken (it may be saved nowhere yet).
type Removed = (Option<Pk>, Option<Change>);

impl Journal {
    /// Row `pk` of table `table` was written (its record, its meta, or both).
    pub fn row(&mut self, table: TableId, pk: &Pk) {
        self.rows.push((table, pk.clone(), None));
    }

    /// Row `pk` of table `table`, last as `was` (if written since the changes were taken), was
    /// removed by the collector, the table's last row (`moved`, if another) taking its place.
    pub fn forget(&mut self, table: TableId, pk: &Pk, moved: Option<&Pk>, was: Option<Change>) {
        self.rows.push((table, pk.clone(), Some((moved.cloned(), was))));
    }

    /// The result or meta of `key` was written or removed.
    pub fn key(&mut self, key: &str) {
        self.keys.push(key.to_owned());
    }

    /// Everything was removed: what was touched before goes with it, and nothing written from
    /// now on is saved anywhere yet (a hydrate writes rows with their old times).
    pub fn clear(&mut self) {
        *self = Journal {
            cleared: true,
            since: Stamp::MIN,
            ..Journal::default()
        };
    }
}

/// For each row written, the entry of its next removal that noted its state, if any: found in
/// one pass from the end (nothing when no removal noted a state, as when no cycle removed a row
/// written since the changes were last taken).
fn removed_states(rows: &[(TableId, Pk, Option<Removed>)]) -> Vec<Option<usize>> {
    if !rows.iter().any(|(_, _, r)| matches!(r, Some((_, Some(_))))) {
        return Vec::new();
    }
    let mut next = HashMap::new();
    let mut states = vec![None; rows.len()];
    for (i, (table, pk, removed)) in rows.iter().enumerate().rev() {
        match removed {
            Some(_) => {
                next.insert((table, pk), i);
            }
            None => states[i] = next.get(&(table, pk)).copied(),
        }
    }
    states
}

impl Store {
    /// Starts recording what commits change, for [`take_changes`](Self::take_changes).
    pub(crate) fn track_changes(&mut self) {
        self.journal.get_or_insert_with(|| Journal {
            since: Stamp::MIN,
            ..Journal::default()
        });
    }

    /// What changed since the last call (or since tracking started), as the current state of
    /// each row and key touched, in the order they were first touched; a `Clear` first if the
    /// store was cleared (R-PERS-1). Empty when nothing is tracked.
    pub(crate) fn take_changes(&mut self) -> Vec<Change> {
        let Some(journal) = self.journal.as_mut() else {
            return Vec::new();
        };
        let since = Stamp::of(Instant::now());
        let Journal {
            cleared, rows, keys, ..
        } = std::mem::replace(
            journal,
            Journal {
                since,
                ..Journal::default()
            },
        );
        let mut changes = Vec::with_capacity(usize::from(cleared) + rows.len() + keys.len());
        if cleared {
            changes.push(Change::clear());
        }
        // A row written twice is saved once, at its first place, as it is now; a removal is
        // saved where it happened (a restore moves rows as the store did), and a row written
        // again after it is saved again after it.
        let mut seen = HashSet::with_capacity(rows.len());
        let states = removed_states(&rows);
        for (i, (table, pk, removed)) in rows.iter().enumerate() {
            let Some(name) = self.tables.name(*table) else {
                continue;
            };
            if let Some((moved, _)) = removed {
                seen.remove(&(table, pk));
                changes.push(Change::forget(name, pk.as_str(), moved.as_ref().map(Pk::as_str)));
                continue;
            }
            if !seen.insert((table, pk)) {
                continue;
            }
            // A row gone since was removed by the collector: its removal is saved in its place.
            // One written since the changes were last taken took a place that its removal gives
            // away: it is saved as it was, and its removal then moves the right row into it.
            if let Some(slot) = self.tables.table(*table).rows.get(pk.as_str()) {
                changes.push(Change::row(name, pk.as_str(), slot));
            } else if let Some(Some((_, Some(was)))) = states.get(i).and_then(|j| j.map(|j| &rows[j].2)) {
                changes.push(was.clone());
            }
        }
        let mut seen_keys = HashSet::with_capacity(keys.len());
        for key in keys {
            if seen_keys.contains(&key) {
                continue;
            }
            changes.push(Change::key(&key, self.results.get(&key), self.meta.get(&key)));
            seen_keys.insert(key);
        }
        changes
    }

    /// Forgets what changed, the whole state being saved instead (a compaction).
    pub(crate) fn forget_changes(&mut self) {
        if let Some(journal) = self.journal.as_mut() {
            *journal = Journal {
                since: Stamp::of(Instant::now()),
                ..Journal::default()
            };
        }
    }

    /// The whole state as changes, as [`Snapshot::changes`](super::Snapshot::changes) gives
    /// them, built from the rows and keys directly: what a persister compacts to.
    pub(crate) fn changes(&self) -> Vec<Change> {
        let mut changes = vec![Change::clear()];
        for (name, table) in self.tables.iter() {
            changes.extend(table.rows.iter().map(|(pk, slot)| Change::row(name, pk.as_str(), slot)));
        }
        let keys = self
            .results
            .keys()
            .chain(self.meta.keys().filter(|k| !self.results.contains_key(*k)));
        changes.extend(keys.map(|key| Change::key(key, self.results.get(key), self.meta.get(key))));
        changes
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::store::Snapshot;

    #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
    struct Tag {
        #[entity(pk)]
        name: String,
    }

    /// R-PERS-1: the changes a persister compacts to replay into the store's snapshot, rows,
    /// results, a key with meta only and an INVALID mark included.
    #[test]
    fn r_pers_1_the_stores_changes_replay_into_its_snapshot() {
        let mut store = Store::new();
        store
            .set_response::<Vec<Tag>>("GET /tags", &(), &json!([{"name": "a"}, {"name": "b"}]))
            .unwrap();
        store
            .set_response::<crate::schema::Invalidate<Tag>>("DELETE /tags/b", &(), &json!({"name": "b"}))
            .unwrap();
        store
            .set_response::<Tag>("GET /tags/a", &(), &json!({"name": "a"}))
            .unwrap();
        store.invalidate("GET /tags/a");
        let changes = store.changes();
        assert!(changes[0].is_clear());
        assert_eq!(Snapshot::from_changes(changes), store.snapshot());
    }

    /// R-GC-1 with R-PERS-1: a row the collector removed is saved as removed, with the row that
    /// took its place (the table's last), so a backend that keeps rows apart keeps their order;
    /// the last row itself is saved removed alone.
    #[test]
    fn r_gc_1_a_removal_names_the_row_that_took_its_place() {
        let mut store = Store::new();
        store.set_gc(crate::store::GcPolicy::new().max_age(std::time::Duration::ZERO));
        for name in ["a", "b", "c", "d"] {
            let key = format!("GET /tags/{name}");
            store.set_response::<Tag>(&key, &(), &json!({ "name": name })).unwrap();
        }
        store.retain("GET /tags/c");
        store.track_changes();
        store.gc();
        let removed: Vec<(String, Option<String>)> = store
            .take_changes()
            .into_iter()
            .filter_map(|c| match c.0 {
                super::super::change::ChangeKind::Forget { pk, moved, .. } => Some((pk, moved)),
                _ => None,
            })
            .collect();
        // Swept from the last row down: d is last when removed; c is kept and takes the place
        // of b, then of a.
        let expected = [("d", None), ("b", Some("c")), ("a", Some("c"))];
        let expected: Vec<(String, Option<String>)> = expected
            .iter()
            .map(|(pk, moved)| (pk.to_string(), moved.map(str::to_owned)))
            .collect();
        assert_eq!(removed, expected);
    }

    /// R-GC-1 with R-PERS-1: a key only read (never fetched) holds nothing a persister saved:
    /// when the collector drops its memoized reads, nothing is saved.
    #[tokio::test(start_paused = true)]
    async fn r_gc_1_a_key_only_read_saves_nothing_when_collected() {
        let age = std::time::Duration::from_secs(60);
        let mut store = Store::new();
        store.set_gc(crate::store::GcPolicy::new().max_age(age));
        store
            .set_response::<Vec<Tag>>("GET /tags", &(), &json!([{"name": "a"}]))
            .unwrap();
        store.retain("GET /tags");
        store
            .get_response::<Tag>("GET /tags/a", &json!({ "name": "a" }))
            .unwrap();
        tokio::time::advance(std::time::Duration::from_secs(1)).await;
        store.gc();
        store.track_changes();
        tokio::time::advance(age * 2).await;
        store.gc();
        let changes = store.take_changes();
        assert!(changes.is_empty(), "{changes:?}");
    }

    /// R-PERS-1 with R-GC-1: rows written and then collected within one save window replay in
    /// the store's order: a row created and removed before the changes are taken still took a
    /// place, and the row the collector moved into it must end up there; so did a row a
    /// hydrate wrote with its snapshot's older times.
    #[tokio::test(start_paused = true)]
    async fn r_pers_1_a_row_created_and_collected_in_one_window_keeps_the_order() {
        let tags = |store: &mut Store| {
            for name in ["a", "b", "c"] {
                let key = format!("GET /tags/{name}");
                store.set_response::<Tag>(&key, &(), &json!({ "name": name })).unwrap();
            }
        };
        let mut source = Store::new();
        tags(&mut source);
        for hydrated in [false, true] {
            tokio::time::advance(std::time::Duration::from_secs(10)).await;
            let mut store = Store::new();
            store.set_gc(crate::store::GcPolicy::new().max_age(std::time::Duration::ZERO));
            store.track_changes();
            store
                .set_response::<Tag>("GET /tags/z", &(), &json!({ "name": "z" }))
                .unwrap();
            assert_eq!(store.take_changes().len(), 2, "a save before: row z and its key");
            tokio::time::advance(std::time::Duration::from_secs(1)).await;
            if hydrated {
                store
                    .hydrate(source.snapshot(), &crate::store::Schemas::new().with::<Tag>())
                    .unwrap();
            } else {
                store.clear();
                tags(&mut store);
            }
            for key in ["GET /tags/b", "GET /tags/c"] {
                store.retain(key);
                store.get_response::<Tag>(key, &()).unwrap();
            }
            tokio::time::advance(std::time::Duration::from_secs(1)).await;
            store.gc();
            // The store swept c into a's place: its order is c, b.
            let order: Vec<String> = store.snapshot().tables[0].rows.iter().map(|r| r.pk.clone()).collect();
            assert_eq!(order, ["c", "b"], "hydrated: {hydrated}");
            let changes = store.take_changes();
            assert_eq!(
                Snapshot::from_changes(changes),
                store.snapshot(),
                "hydrated: {hydrated}"
            );
        }
    }
}
