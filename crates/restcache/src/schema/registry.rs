//! Which Rust type owns which entity key (two types with one key are a configuration error),
//! and how each table's records read back from a snapshot.

use std::any::TypeId;
use std::collections::HashMap;

use serde_json::Value;

use crate::error::Error;
use crate::refs::RefWalk;
use crate::rows::Row;
use crate::tables::List;

/// How the records of one table read back from their JSON (a snapshot's): `None` when the JSON
/// is not such a record.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Decoder {
    /// An entity table's rows, from a `Value` or from JSON text.
    Row {
        json: fn(&Value) -> Option<Box<dyn Row>>,
        text: fn(&str) -> Option<Box<dyn Row>>,
    },
    /// A collection table's lists, and how the collector walks their references.
    List(fn(&Value) -> Option<Box<dyn List>>, RefWalk),
}

/// The entity keys a store has seen, with the Rust type that uses each.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct Registry {
    keys: HashMap<&'static str, (TypeId, &'static str)>,
    clash: Option<String>,
    decoders: HashMap<&'static str, Decoder>,
}

impl Registry {
    /// Records that `type_name` uses `key`. Returns `true` the first time the type is seen, so
    /// recursive schemas are walked once.
    pub fn visit(&mut self, key: &'static str, type_id: TypeId, type_name: &'static str) -> bool {
        match self.keys.get(key) {
            Some((seen, _)) if *seen == type_id => false,
            Some((_, other)) => {
                self.clash.get_or_insert_with(|| {
                    format!("the entity key {key:?} is used by two types: {other} and {type_name}")
                });
                false
            }
            None => {
                self.keys.insert(key, (type_id, type_name));
                true
            }
        }
    }

    /// Records how the records of `table` read back from a snapshot.
    pub(crate) fn decoder(&mut self, table: &'static str, decoder: Decoder) {
        self.decoders.insert(table, decoder);
    }

    /// The table named `name`, by its static name, and how its records read back.
    pub(crate) fn table(&self, name: &str) -> Option<(&'static str, Decoder)> {
        self.decoders.get_key_value(name).map(|(k, d)| (*k, *d))
    }

    /// How the lists of collection table `name` report their references, once a schema that
    /// writes them has been seen.
    pub(crate) fn list_walk(&self, name: &str) -> Option<RefWalk> {
        match self.decoders.get(name)? {
            Decoder::List(_, walk) => Some(*walk),
            Decoder::Row { .. } => None,
        }
    }

    /// The first clash found, as `Error::InvalidConfig`.
    pub(crate) fn check(&self) -> Result<(), Error> {
        match &self.clash {
            Some(reason) => Err(Error::InvalidConfig { reason: reason.clone() }),
            None => Ok(()),
        }
    }
}
