//! Entity tables: per entity key, an insertion-ordered map `pk → Slot` (SPEC R-STORE-1).
//!
//! Rows are never removed except by a reset, so a row's index is stable; reads record
//! `(table, row, version)` dependencies without cloning any key.

use std::collections::HashMap;

use indexmap::IndexMap;
use serde_json::Value;
use tokio::time::Instant;

pub(crate) type TableId = u32;

/// The stored form of one entity (or collection) record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Record {
    /// A JSON object (entities) or array of references (collections).
    Valid(Value),
    /// The INVALID mark written by `Invalidate` (R-INV-1).
    Invalid,
}

/// `{ fetched_at, written_at, expires_at }` of the write that won (R-STORE-1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EntityMeta {
    pub fetched_at: Instant,
    pub written_at: Instant,
    pub expires_at: Instant,
}

#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub record: Record,
    pub meta: EntityMeta,
    /// Changes exactly when `record` changes (R-NORM-9); never when only the meta does.
    pub version: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    pub rows: IndexMap<String, Slot>,
    /// Changes whenever any row's record changes or a row is added.
    pub version: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Tables {
    index: HashMap<&'static str, TableId>,
    tables: Vec<(&'static str, Table)>,
}

impl Tables {
    pub fn id(&self, name: &str) -> Option<TableId> {
        self.index.get(name).copied()
    }

    pub fn table(&self, id: TableId) -> &Table {
        &self.tables[id as usize].1
    }

    pub fn by_name(&self, name: &str) -> Option<&Table> {
        self.id(name).map(|id| self.table(id))
    }

    pub fn get_or_create(&mut self, name: &'static str) -> (TableId, &mut Table) {
        let id = match self.index.get(name) {
            Some(&id) => id,
            None => {
                let id = TableId::try_from(self.tables.len()).expect("fewer than 2^32 tables");
                self.tables.push((name, Table::default()));
                self.index.insert(name, id);
                id
            }
        };
        (id, &mut self.tables[id as usize].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Table)> {
        self.tables.iter().map(|(n, t)| (*n, t))
    }
}
