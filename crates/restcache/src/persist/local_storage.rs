//! [`LocalStoragePersister`]: the cache kept in the browser's `localStorage`, one entry per
//! row and per key.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{Persister, failed};
use crate::error::Error;
use crate::store::Change;

/// Keeps the cache in the page's `localStorage` (R-PERS-4): one entry per row and per request
/// key, named `<prefix><slot>`, each written whole by one `setItem` as the cache changes it, so
/// a page closed at any moment keeps every entry written before. An entry holds its change and
/// the place its slot first took (a row the collector moved takes the place of the row it
/// replaced), so a restore gives the rows back in the order the cache had them.
/// `localStorage` holds a few MiB per origin: a change that does not fit is `Error::Persist`,
/// logged by the Controller, and the entries before it stay.
///
/// A prefix has one writer. Pages of one origin open at the same time (tabs, windows) that
/// persist under one prefix number their entries alike, and one page's reset or compaction
/// removes the other's entries: give each its own prefix, or let only one of them persist.
///
/// ```no_run
/// use restcache::Controller;
/// use restcache::persist::LocalStoragePersister;
/// use restcache::store::Schemas;
/// # #[derive(Clone, Debug, Default, restcache::Entity)]
/// # struct Todo { #[entity(pk)] id: u64 }
///
/// let ctrl = Controller::builder()
///     .persist(LocalStoragePersister::new("todos-app/"), Schemas::new().with::<restcache::prelude::Collection<Vec<Todo>>>())
///     .build()?;
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Debug)]
pub struct LocalStoragePersister {
    prefix: String,
    /// Each slot's place in the order of first writes, and the next place.
    places: HashMap<String, u64>,
    next: u64,
}

/// One `localStorage` entry: a `Change` as read back, a `&Change` as written.
#[derive(Serialize, Deserialize)]
struct Entry<C> {
    place: u64,
    change: C,
}

/// A failure `localStorage` reported.
fn js_err(e: impl std::fmt::Debug) -> Error {
    failed("localStorage", format!("{e:?}"))
}

impl LocalStoragePersister {
    /// Entries named `<prefix><slot>`: a prefix of its own for each cache an origin keeps.
    pub fn new(prefix: impl Into<String>) -> Self {
        LocalStoragePersister {
            prefix: prefix.into(),
            places: HashMap::new(),
            next: 0,
        }
    }

    fn storage() -> Result<web_sys::Storage, Error> {
        let window = web_sys::window().ok_or_else(|| failed("localStorage", "no window"))?;
        match window.local_storage() {
            Ok(Some(storage)) => Ok(storage),
            Ok(None) => Err(failed("localStorage", "not available")),
            Err(e) => Err(js_err(e)),
        }
    }

    /// The names of this persister's entries: its prefix, then a slot (`row/…` or `key/…`), so
    /// the prefix `app` leaves the entries of `app2` alone.
    fn names(storage: &web_sys::Storage, prefix: &str) -> Result<Vec<String>, Error> {
        let len = storage.length().map_err(js_err)?;
        let ours = |name: &String| {
            name.strip_prefix(prefix)
                .is_some_and(|slot| slot.starts_with("row/") || slot.starts_with("key/"))
        };
        Ok((0..len)
            .filter_map(|i| storage.key(i).ok().flatten())
            .filter(ours)
            .collect())
    }

    /// Removes every entry of this persister.
    fn clear(&mut self, storage: &web_sys::Storage) -> Result<(), Error> {
        for name in Self::names(storage, &self.prefix)? {
            storage.remove_item(&name).map_err(js_err)?;
        }
        self.places.clear();
        Ok(())
    }

    /// Gives `slot` the place `place`: its entry, if saved, and the entry it is saved to next.
    fn move_to(&mut self, storage: &web_sys::Storage, slot: &str, place: u64) -> Result<(), Error> {
        self.places.insert(slot.to_owned(), place);
        let Some(text) = storage.get_item(&format!("{}{slot}", self.prefix)).ok().flatten() else {
            return Ok(());
        };
        let Ok(entry) = serde_json::from_str::<Entry<Change>>(&text) else {
            return Ok(());
        };
        self.put(storage, slot, place, &entry.change)
    }

    /// Writes `change`'s entry at `place`.
    fn put(&self, storage: &web_sys::Storage, slot: &str, place: u64, change: &Change) -> Result<(), Error> {
        let text = serde_json::to_string(&Entry { place, change }).expect("an entry is JSON");
        storage
            .set_item(&format!("{}{slot}", self.prefix), &text)
            .map_err(|e| failed("localStorage is full or refused the entry", format!("{e:?}")))
    }

    fn write<'c>(
        &mut self,
        storage: &web_sys::Storage,
        changes: impl IntoIterator<Item = &'c Change>,
    ) -> Result<(), Error> {
        for change in changes {
            if change.is_clear() {
                self.clear(storage)?;
                continue;
            }
            let slot = change.slot();
            if change.is_removal() {
                storage.remove_item(&format!("{}{slot}", self.prefix)).map_err(js_err)?;
                let place = self.places.remove(&slot);
                // The row that took a collected row's place takes its place here too.
                if let (Some(place), Some(moved)) = (place, change.moved_slot()) {
                    self.move_to(storage, &moved, place)?;
                }
                continue;
            }
            let place = match self.places.get(&slot) {
                Some(place) => *place,
                // Places come from the stored entries: one at the end of the counter (a
                // corrupt entry) fails the save, and the compaction that follows renumbers.
                None => {
                    let place = self.next.checked_add(1).ok_or_else(|| {
                        failed(
                            "localStorage",
                            "the entries' places ran out; compacting renumbers them".to_owned(),
                        )
                    })?;
                    self.next = place;
                    self.places.insert(slot.clone(), place);
                    place
                }
            };
            self.put(storage, &slot, place, change)?;
        }
        Ok(())
    }
}

impl Persister for LocalStoragePersister {
    fn restore(&mut self) -> Result<Vec<Change>, Error> {
        let storage = Self::storage()?;
        let mut entries = Vec::new();
        for name in Self::names(&storage, &self.prefix)? {
            let text = storage.get_item(&name).ok().flatten().unwrap_or_default();
            // An entry that does not read (another version's, say) is left out.
            if let Ok(entry) = serde_json::from_str::<Entry<Change>>(&text) {
                entries.push(entry);
            }
        }
        entries.sort_by_key(|e| e.place);
        self.places = entries.iter().map(|e| (e.change.slot(), e.place)).collect();
        self.next = entries.last().map_or(0, |e| e.place);
        Ok(entries.into_iter().map(|e| e.change).collect())
    }

    fn save(&mut self, changes: &[Change]) -> Result<(), Error> {
        let storage = Self::storage()?;
        self.write(&storage, changes)
    }

    /// Removes the entries of slots `state` does not hold, then writes every slot it does: no
    /// entry of the state is missing at any moment, and what the removed entries took is room
    /// for the state (storage a failed save left full). When the places left could not number
    /// the state (a stored place at the end of the counter), the entries take the places 1,
    /// 2, … in the state's order, which is the cache's.
    fn compact(&mut self, state: &[Change]) -> Result<(), Error> {
        let storage = Self::storage()?;
        if self.next.checked_add(state.len() as u64).is_none() {
            self.places.clear();
            self.next = 0;
        }
        let kept = state.iter().filter(|c| !c.is_clear());
        let slots: std::collections::HashSet<String> = kept.clone().map(Change::slot).collect();
        for name in Self::names(&storage, &self.prefix)? {
            let slot = &name[self.prefix.len()..];
            if !slots.contains(slot) {
                storage.remove_item(&name).map_err(js_err)?;
                self.places.remove(slot);
            }
        }
        self.write(&storage, kept)
    }
}
