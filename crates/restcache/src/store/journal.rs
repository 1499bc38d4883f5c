//! What changed in a store since it was last asked: the rows and keys its commits touched, for
//! a persister to save one entity at a time (R-PERS-1).

use std::collections::HashSet;

use super::Store;
use super::change::Change;
use crate::tables::TableId;

/// The rows and keys touched since the last [`Store::take_changes`], and whether the store was
/// cleared in between. Duplicates are dropped when the changes are taken.
#[derive(Debug, Default)]
pub(crate) struct Journal {
    cleared: bool,
    rows: Vec<(TableId, u32)>,
    keys: Vec<String>,
}

impl Journal {
    /// Row `row` of table `table` was written (its record, its meta, or both).
    pub fn row(&mut self, table: TableId, row: usize) {
        self.rows.push((table, row as u32));
    }

    /// The result or meta of `key` was written or removed.
    pub fn key(&mut self, key: &str) {
        self.keys.push(key.to_owned());
    }

    /// Everything was removed: what was touched before goes with it.
    pub fn clear(&mut self) {
        *self = Journal {
            cleared: true,
            ..Journal::default()
        };
    }
}

impl Store {
    /// Starts recording what commits change, for [`take_changes`](Self::take_changes).
    pub(crate) fn track_changes(&mut self) {
        self.journal.get_or_insert_with(Journal::default);
    }

    /// What changed since the last call (or since tracking started), as the current state of
    /// each row and key touched, in the order they were first touched; a `Clear` first if the
    /// store was cleared (R-PERS-1). Empty when nothing is tracked.
    pub(crate) fn take_changes(&mut self) -> Vec<Change> {
        let Some(journal) = self.journal.as_mut() else {
            return Vec::new();
        };
        let Journal { cleared, rows, keys } = std::mem::take(journal);
        let mut changes = Vec::with_capacity(usize::from(cleared) + rows.len() + keys.len());
        if cleared {
            changes.push(Change::clear());
        }
        let mut seen = HashSet::with_capacity(rows.len());
        for (table, row) in rows {
            if !seen.insert((table, row)) {
                continue;
            }
            let Some(name) = self.tables.name(table) else {
                continue;
            };
            let Some((pk, slot)) = self.tables.table(table).rows.get_index(row as usize) else {
                continue;
            };
            changes.push(Change::row(name, pk.as_str(), slot));
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

    /// Records into the journal, if changes are tracked.
    pub(super) fn journal(&mut self) -> Option<&mut Journal> {
        self.journal.as_mut()
    }
}
