//! A table's rows (R-STORE-1): each under its pk, in order of first insertion, at an index that
//! changes only when a row is removed (the last row takes the removed one's index), so reads can
//! name a row by its index.
//!
//! The rows are one vector of `(pk, value)`; beside it a hash index holds each row's index as a
//! `u32`, hashed by the pk with the tables' keyed hasher ([`PkHasher`]). The index keeps no
//! hash of its own: when it grows, it hashes the pks again, unless the caller keeps the rows'
//! hashes (a write's batch does, and passes them as `hashes`), which saves hashing each pk of a
//! growing batch once per doubling. A row costs its pk, its value and about 5 bytes of index.

use std::fmt;

use hashbrown::HashTable;

use crate::pk::{Pk, PkHasher};

/// Rows by pk, in order of first insertion, each at a stable index.
#[derive(Clone)]
pub(crate) struct RowMap<V> {
    rows: Vec<(Pk, V)>,
    index: HashTable<u32>,
}

impl<V> Default for RowMap<V> {
    fn default() -> Self {
        RowMap {
            rows: Vec::new(),
            index: HashTable::new(),
        }
    }
}

impl<V: fmt::Debug> fmt::Debug for RowMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The hash of row `i` of `rows`, for the index to place it again when it grows.
fn rehash<V>(rows: &[(Pk, V)]) -> impl Fn(&u32) -> u64 + '_ {
    move |&i| PkHasher::pk(rows[i as usize].0.as_str())
}

impl<V> RowMap<V> {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many rows fit without growing.
    #[cfg(test)]
    pub fn capacity(&self) -> usize {
        self.rows.capacity()
    }

    /// Makes room for `additional` more rows; `hashes` as in
    /// [`get_or_insert_hashed`](Self::get_or_insert_hashed).
    pub fn reserve(&mut self, additional: usize, hashes: &[u64]) {
        self.rows.reserve(additional);
        match hashes {
            [] => self.index.reserve(additional, rehash(&self.rows)),
            _ => self.index.reserve(additional, |&i| hashes[i as usize]),
        }
    }

    /// Gives back the room no row uses; `hashes` as in
    /// [`get_or_insert_hashed`](Self::get_or_insert_hashed).
    pub fn shrink_to_fit(&mut self, hashes: &[u64]) {
        self.rows.shrink_to_fit();
        match hashes {
            [] => self.index.shrink_to_fit(rehash(&self.rows)),
            _ => self.index.shrink_to_fit(|&i| hashes[i as usize]),
        }
    }

    /// The index of `pk`'s row, hashed as `hash`.
    fn find(&self, hash: u64, pk: &str) -> Option<usize> {
        let rows = &self.rows;
        self.index
            .find(hash, |&i| rows[i as usize].0.as_str() == pk)
            .map(|&i| i as usize)
    }

    /// The row of `pk`: its index and value.
    pub fn get_full(&self, pk: &str) -> Option<(usize, &V)> {
        let i = self.find(PkHasher::pk(pk), pk)?;
        Some((i, &self.rows[i].1))
    }

    pub fn get(&self, pk: &str) -> Option<&V> {
        self.get_full(pk).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, pk: &str) -> Option<&mut V> {
        let i = self.find(PkHasher::pk(pk), pk)?;
        Some(&mut self.rows[i].1)
    }

    pub fn contains_key(&self, pk: &str) -> bool {
        self.get_full(pk).is_some()
    }

    /// Row `i`: its pk and value.
    pub fn get_index(&self, i: usize) -> Option<(&Pk, &V)> {
        self.rows.get(i).map(|(pk, v)| (pk, v))
    }

    /// Adds a row at the end, under `pk` (hashed as `hash`), which no row has; returns its index.
    /// `hashes` as in [`get_or_insert_hashed`](Self::get_or_insert_hashed).
    fn push(&mut self, hash: u64, pk: Pk, value: V, hashes: &[u64]) -> usize {
        let i = self.rows.len();
        let at = u32::try_from(i).expect("fewer than 2^32 rows in a table");
        match hashes {
            [] => self.index.insert_unique(hash, at, rehash(&self.rows)),
            _ => self.index.insert_unique(hash, at, |&i| hashes[i as usize]),
        };
        self.rows.push((pk, value));
        i
    }

    /// The row of `pk`, added with `make()` at the end if there is none: its index, its value,
    /// and whether it was added.
    pub fn get_or_insert_with<K>(&mut self, pk: K, make: impl FnOnce() -> V) -> (usize, &mut V, bool)
    where
        K: AsRef<str> + Into<Pk>,
    {
        self.get_or_insert_hashed(PkHasher::pk(pk.as_ref()), pk, &[], make)
    }

    /// [`get_or_insert_with`](Self::get_or_insert_with) for a pk whose hash
    /// ([`PkHasher::pk`]) is known. `hashes` is empty, or holds the hash of every row, in order
    /// (the caller adds `hash` to it when the row is added): the index then takes them from
    /// there if it grows, and hashes no pk.
    pub fn get_or_insert_hashed<K>(
        &mut self,
        hash: u64,
        pk: K,
        hashes: &[u64],
        make: impl FnOnce() -> V,
    ) -> (usize, &mut V, bool)
    where
        K: AsRef<str> + Into<Pk>,
    {
        debug_assert!(
            hashes.is_empty() || hashes.len() == self.rows.len(),
            "a hash for every row"
        );
        let (i, added) = match self.find(hash, pk.as_ref()) {
            Some(i) => (i, false),
            None => (self.push(hash, pk.into(), make(), hashes), true),
        };
        (i, &mut self.rows[i].1, added)
    }

    /// Sets the row of `pk` to `value`, in its place or added at the end.
    pub fn insert(&mut self, pk: impl AsRef<str> + Into<Pk>, value: V) {
        let hash = PkHasher::pk(pk.as_ref());
        match self.find(hash, pk.as_ref()) {
            Some(i) => self.rows[i].1 = value,
            None => {
                self.push(hash, pk.into(), value, &[]);
            }
        }
    }

    /// Removes row `i` and moves the last row into its place (every other row keeps its
    /// index): its pk and value, `None` when there is no row `i`.
    pub fn swap_remove(&mut self, i: usize) -> Option<(Pk, V)> {
        let last = self.rows.len().checked_sub(1)?;
        if i > last {
            return None;
        }
        let rows = &self.rows;
        let hash = PkHasher::pk(rows[i].0.as_str());
        if let Ok(entry) = self.index.find_entry(hash, |&at| at as usize == i) {
            entry.remove();
        }
        if i != last {
            let hash = PkHasher::pk(rows[last].0.as_str());
            if let Some(at) = self.index.find_mut(hash, |&at| at as usize == last) {
                *at = i as u32;
            }
        }
        Some(self.rows.swap_remove(i))
    }

    /// The rows in order: pk and value.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Pk, &V)> {
        self.rows.iter().map(|(pk, v)| (pk, v))
    }

    /// The rows in order: pk and value to change.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = (&Pk, &mut V)> {
        self.rows.iter_mut().map(|(pk, v)| (&*pk, v))
    }

    pub fn values(&self) -> impl ExactSizeIterator<Item = &V> {
        self.rows.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut V> {
        self.rows.iter_mut().map(|(_, v)| v)
    }
}

impl<V> IntoIterator for RowMap<V> {
    type Item = (Pk, V);
    type IntoIter = std::vec::IntoIter<(Pk, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.rows.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use std::hash::BuildHasher;

    use super::RowMap;
    use crate::pk::{Pk, PkHasher};

    /// A pk hashed in one pass ([`PkHasher::pk`]) has the hash the hasher gives it as a `str`, a
    /// `String` (the store's maps of request keys rely on it) or a `Pk`, kept inline (up to 24
    /// bytes) or not; each row is found by its pk, and every pk comes back as the text it was
    /// made from, multi-byte characters across the 24-byte boundary included.
    #[test]
    fn a_pk_hashed_in_one_pass_has_the_hashers_hash_and_finds_its_row() {
        let mut rows = RowMap::default();
        let digits = |n: usize| (0..n).map(|i| char::from(b'0' + (i % 10) as u8)).collect::<String>();
        let pks: Vec<String> = (0..=40)
            .map(digits)
            .chain((20..=26).map(|n| format!("{}é", digits(n))))
            .chain(["ü".repeat(12), "ü".repeat(13), "\u{0}\"'<>".to_owned()])
            .collect();
        for (i, pk) in pks.iter().enumerate() {
            assert_eq!(PkHasher::pk(pk), PkHasher.hash_one(Pk::from(pk.as_str())), "{pk:?}");
            assert_eq!(PkHasher::pk(pk), PkHasher.hash_one(pk.as_str()), "{pk:?}");
            assert_eq!(PkHasher::pk(pk), PkHasher.hash_one(pk), "{pk:?}");
            assert!(rows.get_or_insert_with(pk.as_str(), || i).2, "{pk:?} is new");
        }
        for (i, pk) in pks.iter().enumerate() {
            assert_eq!(rows.get_full(pk), Some((i, &i)), "{pk:?}");
            assert_eq!(rows.get_index(i).map(|(k, _)| k.as_str()), Some(pk.as_str()));
        }
    }

    /// R-STORE-1: rows keep their order of first insertion and their index; a row set again
    /// stays in its place; a pk is found whatever the index grew through, and an absent one is
    /// not; giving back the room keeps every row where it was.
    #[test]
    fn r_store_1_rows_keep_their_first_place_and_are_found_by_pk() {
        let mut rows = RowMap::default();
        for i in 0..1_000u32 {
            let (at, _, added) = rows.get_or_insert_with(&i.to_string(), || i);
            assert_eq!((at, added), (i as usize, true));
        }
        rows.insert("7", 70);
        rows.insert("new", 1_000);
        let (at, value, added) = rows.get_or_insert_with("7", || 0);
        assert_eq!((at, *value, added), (7, 70, false));
        rows.shrink_to_fit(&[]);
        assert_eq!(rows.len(), 1_001);
        assert_eq!(rows.capacity(), 1_001);
        for i in (0..1_000u32).filter(|i| *i != 7) {
            assert_eq!(rows.get_full(&i.to_string()), Some((i as usize, &i)));
        }
        assert_eq!(rows.get_full("new"), Some((1_000, &1_000)));
        assert_eq!(rows.get_index(7).map(|(pk, v)| (pk.as_str(), *v)), Some(("7", 70)));
        assert!(!rows.contains_key("1000") && rows.get("").is_none());
        let pks: Vec<String> = rows.into_iter().map(|(pk, _)| pk.into()).take(3).collect();
        assert_eq!(pks, ["0", "1", "2"]);
    }

    /// A write's batch keeps its rows' hashes: its index, growing through many doublings, by
    /// reserve or as rows are added, and shrinking, places every row by the hash it was given,
    /// never by hashing the pk again (here hashes unlike the pks' own, which a rehash of the
    /// pks would lose), and finds each row by it.
    #[test]
    fn rows_whose_hashes_are_known_are_placed_by_them_as_the_index_grows() {
        let given = |i: u64| i.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let (mut rows, mut hashes) = (RowMap::default(), Vec::new());
        let all_found = |rows: &mut RowMap<u64>, hashes: &[u64], step: &str| {
            for i in 0..hashes.len() as u64 {
                let (at, value, added) = rows.get_or_insert_hashed(given(i), i.to_string(), hashes, || 0);
                assert_eq!((at, *value, added), (i as usize, i, false), "{step}: {i}");
            }
        };
        let add = |rows: &mut RowMap<u64>, hashes: &mut Vec<u64>, to: u64| {
            for i in hashes.len() as u64..to {
                let (at, _, added) = rows.get_or_insert_hashed(given(i), i.to_string(), hashes, || i);
                assert_eq!((at, added), (i as usize, true));
                hashes.push(given(i));
            }
        };
        add(&mut rows, &mut hashes, 1_000);
        all_found(&mut rows, &hashes, "grown row by row");
        rows.reserve(5_000, &hashes);
        all_found(&mut rows, &hashes, "reserved");
        add(&mut rows, &mut hashes, 2_000);
        rows.shrink_to_fit(&hashes);
        all_found(&mut rows, &hashes, "shrunk");
    }

    /// R-GC-1: a removed row is no longer found; the last row takes its index and is found
    /// there; every other row keeps its index; removing the last row or a missing index moves
    /// nothing.
    #[test]
    fn r_gc_1_a_removed_rows_place_goes_to_the_last_row() {
        let mut rows = RowMap::default();
        for i in 0..100u32 {
            rows.get_or_insert_with(&i.to_string(), || i);
        }
        let (pk, v) = rows.swap_remove(10).unwrap();
        assert_eq!((pk.as_str(), v), ("10", 10));
        assert!(rows.get("10").is_none());
        assert_eq!(rows.get_full("99"), Some((10, &99)));
        assert_eq!(
            rows.swap_remove(98).map(|(pk, v)| (pk.as_str().to_owned(), v)),
            Some(("98".into(), 98))
        );
        assert!(rows.swap_remove(98).is_none(), "no row 98 is left");
        assert_eq!(rows.len(), 98);
        for i in (0..98u32).filter(|i| *i != 10) {
            assert_eq!(rows.get_full(&i.to_string()), Some((i as usize, &i)));
        }
        let (at, _, added) = rows.get_or_insert_with("10", || 1_000);
        assert_eq!((at, added), (98, true), "a collected pk comes back at the end");
    }
}
