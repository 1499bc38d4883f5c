//! Which Rust type owns which entity key (two types with one key are a
//! configuration error).

use std::any::TypeId;
use std::collections::HashMap;

use crate::error::Error;

/// The entity keys a store has seen, with the Rust type that uses each.
#[doc(hidden)]
#[derive(Clone, Debug, Default)]
pub struct Registry {
    keys: HashMap<&'static str, (TypeId, &'static str)>,
    clash: Option<String>,
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

    /// The first clash found, as `Error::InvalidConfig`.
    pub(crate) fn check(&self) -> Result<(), Error> {
        match &self.clash {
            Some(reason) => Err(Error::InvalidConfig { reason: reason.clone() }),
            None => Ok(()),
        }
    }
}
