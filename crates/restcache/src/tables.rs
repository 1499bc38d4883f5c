//! Entity tables: per entity key, the rows `pk → Slot` in order of first insertion
//! ([`RowMap`], R-STORE-1).
//!
//! A row keeps its index until the collector removes a row of its table (the table's last row
//! then takes the removed row's index, R-GC-1) or the store is reset. Versions are never reused,
//! so reads record `(table, row, version)` dependencies without cloning any key: a row moved or
//! removed no longer holds the version a read found there.

use std::any::Any;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::Deref;
use std::sync::Arc;
use std::sync::LazyLock;
use std::time::Duration;

use crate::rt::Instant;
use serde_json::Value;

pub(crate) use crate::pk::PkHasher;
use crate::refs::StoredValue;
use crate::row_map::RowMap;
use crate::rows::Row;

pub(crate) type TableId = u32;

/// The stored form of one entity (or collection) record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Record {
    /// An entity's row.
    Entity(Box<dyn Row>),
    /// A collection's references.
    List(Box<dyn List>),
    /// The INVALID mark written by `Invalidate` (R-INV-1).
    Invalid,
}

/// What a collection's reference is: the normalized form of its item schema (an
/// [`EntityRef`](crate::refs::EntityRef), or a [`UnionRef`](crate::refs::UnionRef)).
pub(crate) trait Member: StoredValue + Eq + Hash {}

impl<T: StoredValue + Eq + Hash> Member for T {}

/// A collection record's references, in order (R-COL-1), and, on a list that writes add to
/// (push, unshift, get_page), the set of them: an addition then skips the references the list
/// holds (R-COL-4, R-PAGE-3) with one hash each, whatever the length of the list, and appends
/// in place. A list that only ever replaced (get_list, R-COL-3) keeps no set; the first addition
/// builds it. The set hashes with the tables' keyed hasher: the references are the server's.
#[derive(Clone, Debug)]
pub(crate) struct Members<R: Member> {
    refs: Vec<R>,
    /// Every reference of `refs`, once, when built.
    set: Option<HashSet<R, PkHasher>>,
}

impl<R: Member> Members<R> {
    /// A list as a response gave it, repeats included.
    pub fn new(refs: Vec<R>) -> Self {
        Members { refs, set: None }
    }

    /// The list of `refs` without their repeats: each at its first place.
    pub fn unique(refs: Vec<R>) -> Self {
        let mut members = Members {
            refs: Vec::with_capacity(refs.len()),
            set: Some(HashSet::with_capacity_and_hasher(refs.len(), PkHasher)),
        };
        members.add(refs, false);
        members
    }

    /// The references, in order.
    pub fn refs(&self) -> &[R] {
        &self.refs
    }

    /// Adds the references of `incoming` that the list does not hold, in their order, at its
    /// end, or at its start with `front`. Returns whether any was added.
    pub fn add(&mut self, incoming: impl IntoIterator<Item = R>, front: bool) -> bool {
        let refs = &mut self.refs;
        let set = self.set.get_or_insert_with(|| refs.iter().cloned().collect());
        let len = refs.len();
        for r in incoming {
            if !set.contains(&r) {
                set.insert(r.clone());
                refs.push(r);
            }
        }
        let added = refs.len() - len;
        if front {
            refs.rotate_right(added);
        }
        added > 0
    }

    /// Removes every reference of `removed` the list holds; the rest keep their order. Returns
    /// whether any was removed.
    pub fn remove(&mut self, removed: &[R]) -> bool {
        let len = self.refs.len();
        self.refs.retain(|r| !removed.contains(r));
        if let Some(set) = &mut self.set {
            for r in removed {
                set.remove(r);
            }
        }
        self.refs.len() < len
    }
}

/// How a pending list changes the stored list of its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ListEdit {
    /// Adds the references the stored list lacks at its end (push, get_page).
    Append,
    /// Adds them at its start (unshift).
    Prepend,
    /// Removes the references from it (remove, and move out of a list).
    Remove,
    /// Sets the entries of a map (assign): each key takes its reference, the other keys stay.
    Assign,
}

impl<R: Member> PartialEq for Members<R> {
    fn eq(&self, other: &Self) -> bool {
        self.refs == other.refs
    }
}

/// A collection's [`Members`] of any reference type, as a table holds them; reads downcast
/// them back to their item schema's.
pub(crate) trait List: Any + Debug + Send + Sync {
    /// [`Members::add`] or [`Members::remove`] of a list of the same type, as `edit` says (a
    /// list of another type changes nothing). A write `older` than the record only adds what it
    /// lacks: it removes nothing and replaces no entry (R-NORM-7). Returns whether the list
    /// changed.
    fn edit_list(&mut self, incoming: Box<dyn List>, edit: ListEdit, older: bool) -> bool;
    fn eq_list(&self, other: &dyn List) -> bool;
    fn clone_list(&self) -> Box<dyn List>;
    /// The references as JSON, for snapshots.
    fn json(&self) -> Value;
    /// The bytes the list holds: its size and its room for references (R-GC-4), not what a
    /// reference holds on the heap (a pk longer than 24 bytes): measured in O(1), so that a
    /// push into a long list stays O(pushed).
    fn bytes(&self) -> usize;
}

impl<R: Member> List for Members<R> {
    fn edit_list(&mut self, incoming: Box<dyn List>, edit: ListEdit, older: bool) -> bool {
        let Ok(incoming) = (incoming as Box<dyn Any>).downcast::<Members<R>>() else {
            return false;
        };
        match edit {
            ListEdit::Append | ListEdit::Assign => self.add(incoming.refs, false),
            ListEdit::Prepend => self.add(incoming.refs, true),
            ListEdit::Remove if older => false,
            ListEdit::Remove => self.remove(&incoming.refs),
        }
    }

    fn eq_list(&self, other: &dyn List) -> bool {
        (other as &dyn Any)
            .downcast_ref::<Members<R>>()
            .is_some_and(|o| o == self)
    }

    fn clone_list(&self) -> Box<dyn List> {
        Box::new(self.clone())
    }

    fn json(&self) -> Value {
        serde_json::to_value(&self.refs).unwrap_or(Value::Null)
    }

    fn bytes(&self) -> usize {
        let r = std::mem::size_of::<R>();
        let set = self.set.as_ref().map_or(0, |s| s.capacity() * (r + 1));
        std::mem::size_of::<Self>() + self.refs.capacity() * r + set
    }
}

/// A map collection's record (`Collection<Values<_>>`): its references by key, in key order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entries<R: Member> {
    map: BTreeMap<String, R>,
}

impl<R: Member> Entries<R> {
    pub fn new(map: BTreeMap<String, R>) -> Self {
        Entries { map }
    }

    /// The entries, in key order.
    pub fn map(&self) -> &BTreeMap<String, R> {
        &self.map
    }
}

/// The key a reference takes in a map it joins: its pk (an entity reference's JSON is its pk, a
/// union reference's the pair `[tag, pk]`); the text of its JSON for anything else.
fn key_of<R: Member>(r: &R) -> String {
    let Ok(json) = serde_json::to_value(r) else {
        return String::new();
    };
    let pair = json.as_array().filter(|pair| pair.len() == 2);
    match json.as_str().or_else(|| pair.and_then(|pair| pair[1].as_str())) {
        Some(pk) => pk.to_owned(),
        None => json.to_string(),
    }
}

impl<R: Member> List for Entries<R> {
    /// An assign sets the entries of another map; a push, unshift or move adds each reference
    /// of a list under its pk unless the map holds it; a remove drops every entry whose
    /// reference it names (R-COL-7..9).
    fn edit_list(&mut self, incoming: Box<dyn List>, edit: ListEdit, older: bool) -> bool {
        let refs: Vec<R> = match (incoming as Box<dyn Any>).downcast::<Entries<R>>() {
            Ok(entries) if edit == ListEdit::Assign => {
                let mut changed = false;
                for (k, r) in entries.map {
                    let stands = self.map.get(&k);
                    if stands != Some(&r) && !(older && stands.is_some()) {
                        self.map.insert(k, r);
                        changed = true;
                    }
                }
                return changed;
            }
            Ok(entries) => entries.map.into_values().collect(),
            Err(other) => match other.downcast::<Members<R>>() {
                Ok(members) => members.refs,
                Err(_) => return false,
            },
        };
        let len = self.map.len();
        match edit {
            ListEdit::Remove if older => false,
            ListEdit::Remove => {
                self.map.retain(|_, r| !refs.contains(r));
                self.map.len() < len
            }
            _ => {
                let held: HashSet<&R> = self.map.values().collect();
                let new: Vec<(String, R)> = refs
                    .into_iter()
                    .filter(|r| !held.contains(r))
                    .map(|r| (key_of(&r), r))
                    .collect();
                let mut changed = false;
                for (k, r) in new {
                    if let std::collections::btree_map::Entry::Vacant(e) = self.map.entry(k) {
                        e.insert(r);
                        changed = true;
                    }
                }
                changed
            }
        }
    }

    fn eq_list(&self, other: &dyn List) -> bool {
        (other as &dyn Any)
            .downcast_ref::<Entries<R>>()
            .is_some_and(|o| o == self)
    }

    fn clone_list(&self) -> Box<dyn List> {
        Box::new(self.clone())
    }

    fn json(&self) -> Value {
        serde_json::to_value(&self.map).unwrap_or(Value::Null)
    }

    /// A B-tree entry counted as its key, its reference and a node's share (16 bytes).
    fn bytes(&self) -> usize {
        let entry = std::mem::size_of::<String>() + std::mem::size_of::<R>() + 16;
        std::mem::size_of::<Self>() + self.map.len() * entry
    }
}

impl Clone for Box<dyn List> {
    fn clone(&self) -> Self {
        self.clone_list()
    }
}

impl PartialEq for Box<dyn List> {
    fn eq(&self, other: &Self) -> bool {
        self.eq_list(other.as_ref())
    }
}

/// `{ fetched_at, written_at, expires_at }` of the write that won (R-STORE-1), as [`Stamp`]s:
/// 24 bytes instead of the 48 of three `Instant`s.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct EntityMeta {
    pub fetched_at: Stamp,
    pub written_at: Stamp,
    pub expires_at: Stamp,
}

impl EntityMeta {
    /// The meta a pending row starts with; the commit replaces it.
    pub const UNSET: EntityMeta = EntityMeta {
        fetched_at: Stamp(0),
        written_at: Stamp(0),
        expires_at: Stamp(0),
    };

    pub fn new(fetched_at: Instant, written_at: Instant, expires_at: Instant) -> Self {
        EntityMeta {
            fetched_at: Stamp::of(fetched_at),
            written_at: Stamp::of(written_at),
            expires_at: Stamp::of(expires_at),
        }
    }
}

/// The instant every [`Stamp`] counts from, fixed once per process, and the wall clock's time
/// then (nanoseconds since the UNIX epoch), which snapshots translate stamps with.
static STAMP_BASE: LazyLock<(Instant, i64)> = LazyLock::new(|| (Instant::now(), crate::rt::wall_nanos_now()));

/// An instant as signed nanoseconds from [`STAMP_BASE`], ordered as the instants are. Instants
/// more than 292 years from it are clamped, so they keep their order against every instant
/// within that range.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Stamp(i64);

impl Stamp {
    /// Before every other stamp.
    pub const MIN: Stamp = Stamp(i64::MIN);

    pub fn of(at: Instant) -> Stamp {
        let (base, _) = *STAMP_BASE;
        let nanos = |d: Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
        match at.checked_duration_since(base) {
            Some(after) => Stamp(nanos(after)),
            None => Stamp(-nanos(base.duration_since(at))),
        }
    }

    /// The instant again (a clamped one comes back as the clamp).
    pub fn instant(self) -> Instant {
        let (base, _) = *STAMP_BASE;
        let offset = Duration::from_nanos(self.0.unsigned_abs());
        let at = if self.0 >= 0 {
            base.checked_add(offset)
        } else {
            base.checked_sub(offset)
        };
        at.unwrap_or(base)
    }

    /// The wall-clock time of this stamp, in nanoseconds since the UNIX epoch: the process's
    /// wall clock at [`STAMP_BASE`] plus the stamp (saturating), so that within one process a
    /// stamp and its wall time convert back and forth exactly.
    pub fn wall_nanos(self) -> i64 {
        STAMP_BASE.1.saturating_add(self.0)
    }

    /// The stamp of a wall-clock time given by [`wall_nanos`](Self::wall_nanos).
    pub fn from_wall_nanos(nanos: i64) -> Stamp {
        Stamp(nanos.saturating_sub(STAMP_BASE.1))
    }
}

/// A row's [`EntityMeta`], shared by every row of the write that set it: the meta is allocated
/// once a write, and a row holds 8 bytes of it, not 24. A row the batch has not committed yet
/// has none, and reads [`EntityMeta::UNSET`].
#[derive(Clone, Debug, Default)]
pub(crate) struct RowMeta(Option<Arc<EntityMeta>>);

impl RowMeta {
    /// The meta of a write, for each row it sets.
    pub fn of(meta: &Arc<EntityMeta>) -> Self {
        RowMeta(Some(Arc::clone(meta)))
    }
}

impl Deref for RowMeta {
    type Target = EntityMeta;

    fn deref(&self) -> &EntityMeta {
        self.0.as_deref().unwrap_or(&EntityMeta::UNSET)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub record: Record,
    pub meta: RowMeta,
    /// Changes exactly when `record` changes (R-NORM-9); never when only the meta does.
    pub version: u64,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Table {
    pub rows: RowMap<Slot>,
    /// Changes whenever any row's record changes or a row is added.
    pub version: u64,
}

/// The tables of a store, few (one per entity key and collection key), found by a scan that
/// compares the `&'static str` names by address before comparing their text.
#[derive(Clone, Debug, Default)]
pub(crate) struct Tables {
    tables: Vec<(&'static str, Table)>,
}

impl Tables {
    pub fn id(&self, name: &str) -> Option<TableId> {
        let found = |(n, _): &(&'static str, Table)| std::ptr::eq(*n, name) || *n == name;
        self.tables.iter().position(found).map(|i| i as TableId)
    }

    pub fn table(&self, id: TableId) -> &Table {
        &self.tables[id as usize].1
    }

    pub fn table_mut(&mut self, id: TableId) -> &mut Table {
        &mut self.tables[id as usize].1
    }

    pub fn by_name(&self, name: &str) -> Option<&Table> {
        self.id(name).map(|id| self.table(id))
    }

    pub fn get_or_create(&mut self, name: &'static str) -> (TableId, &mut Table) {
        let id = match self.id(name) {
            Some(id) => id,
            None => {
                let id = TableId::try_from(self.tables.len()).expect("fewer than 2^32 tables");
                self.tables.push((name, Table::default()));
                id
            }
        };
        (id, &mut self.tables[id as usize].1)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Table)> {
        self.tables.iter().map(|(n, t)| (*n, t))
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (&'static str, &mut Table)> {
        self.tables.iter_mut().map(|(name, t)| (*name, t))
    }

    /// The table `id`, if it exists here.
    pub fn get_table(&self, id: TableId) -> Option<&Table> {
        self.tables.get(id as usize).map(|(_, t)| t)
    }

    /// The name of table `id`, if it exists here.
    pub fn name(&self, id: TableId) -> Option<&'static str> {
        self.tables.get(id as usize).map(|(n, _)| *n)
    }

    /// After the layered rows were written again: every row that equals its row in `previous`
    /// takes the previous version, and so does a table whose rows all kept theirs. Reads that
    /// depend only on unchanged rows then keep their identity (R-READ-5).
    pub fn keep_versions_of(&mut self, previous: &Tables) {
        for (name, table) in &mut self.tables {
            let Some(prev) = previous.by_name(name) else {
                continue;
            };
            for (pk, slot) in table.rows.iter_mut() {
                if let Some(p) = prev.rows.get(pk)
                    && p.record == slot.record
                {
                    slot.version = p.version;
                }
            }
            let same_rows = table.rows.len() == prev.rows.len()
                && table
                    .rows
                    .iter()
                    .zip(prev.rows.iter())
                    .all(|((a, x), (b, y))| a == b && x.version == y.version);
            if same_rows {
                table.version = prev.version;
            }
        }
    }
}

/// The bit of a [`TableId`] that names a table of [`Layered::over`] rather than of
/// [`Layered::base`].
const LAYERED: TableId = 1 << 31;

/// The tables reads see (R-STORE-2): the committed tables, and over them the rows the pending
/// optimistic layers wrote, which hide the committed rows of the same table and pk. Layers hold
/// only what they write, so a read costs one more lookup while layers are pending and nothing
/// is ever copied from the committed tables but the rows a layer changes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layered<'s> {
    pub base: &'s Tables,
    pub over: Option<&'s Tables>,
}

impl<'s> Layered<'s> {
    /// The committed tables alone.
    pub fn committed(base: &'s Tables) -> Self {
        Layered { base, over: None }
    }

    /// The table `id`, a committed or a layered one, if it exists.
    pub fn get_table(self, id: TableId) -> Option<&'s Table> {
        match id & LAYERED {
            0 => self.base.get_table(id),
            _ => self.over?.get_table(id & !LAYERED),
        }
    }

    /// Whether table `name` exists, committed or layered.
    pub fn exists(self, name: &str) -> bool {
        self.base.id(name).is_some() || self.over.is_some_and(|o| o.id(name).is_some())
    }

    /// The row `pk` of table `name` as reads see it: its table id, row index and slot.
    pub fn find(self, name: &str, pk: &str) -> Option<(TableId, usize, &'s Slot)> {
        self.find_layered(name, pk).or_else(|| {
            let id = self.base.id(name)?;
            let (row, slot) = self.base.table(id).rows.get_full(pk)?;
            Some((id, row, slot))
        })
    }

    /// The row `pk` of table `name` if a layer wrote it.
    pub fn find_layered(self, name: &str, pk: &str) -> Option<(TableId, usize, &'s Slot)> {
        let over = self.over?;
        let id = over.id(name)?;
        let (row, slot) = over.table(id).rows.get_full(pk)?;
        Some((id | LAYERED, row, slot))
    }

    /// Whether row `row` of table `id` still has `version` and no layer hides it.
    pub fn holds(self, id: TableId, row: usize, version: u64) -> bool {
        let Some((pk, slot)) = self.get_table(id).and_then(|t| t.rows.get_index(row)) else {
            return false;
        };
        slot.version == version
            && (id & LAYERED != 0
                || self.over.is_none()
                || self
                    .base
                    .name(id)
                    .is_none_or(|name| self.find_layered(name, pk).is_none()))
    }

    /// The versions of table `name`: the committed one's and the layered one's (`0` for a
    /// table that does not exist). Either changes when a row is added or changed.
    pub fn version(self, name: &str) -> (u64, u64) {
        let version = |t: &Tables| t.by_name(name).map_or(0, |t| t.version);
        (version(self.base), self.over.map_or(0, version))
    }

    /// Every row of table `name` as reads see it: the committed rows in order, a layered row in
    /// place of the committed row it hides, then the rows only the layers have.
    pub fn rows(self, name: &str) -> impl Iterator<Item = (TableId, usize, &'s str, &'s Slot)> {
        let base = self.base.id(name).map(|id| (id, &self.base.table(id).rows));
        let over = self.over.and_then(|o| o.id(name).map(|id| (id, &o.table(id).rows)));
        let committed = base.into_iter().flat_map(move |(id, rows)| {
            rows.iter().enumerate().map(move |(row, (pk, slot))| {
                self.find_layered(name, pk)
                    .map_or((id, row, pk.as_str(), slot), |(id, row, slot)| {
                        (id, row, pk.as_str(), slot)
                    })
            })
        });
        let added = over.into_iter().flat_map(move |(id, rows)| {
            rows.iter()
                .enumerate()
                .filter(move |(_, (pk, _))| base.is_none_or(|(_, b)| !b.contains_key(pk.as_str())))
                .map(move |(row, (pk, slot))| (id | LAYERED, row, pk.as_str(), slot))
        });
        committed.chain(added)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::rt::Instant;

    use super::Stamp;

    /// R-NORM-7 compares `fetched_at`s as stamps: they order as their instants do, before and
    /// after the process's base, and come back as the very instant; far instants are clamped.
    #[test]
    fn r_norm_7_stamps_order_as_their_instants_and_come_back_exact() {
        let now = Instant::now();
        let (base, _) = *super::STAMP_BASE;
        let earlier = base
            .checked_sub(Duration::from_nanos(1_500_000_001))
            .expect("an instant before the base");
        let instants = [
            earlier,
            now,
            now + Duration::from_nanos(1),
            now + Duration::from_secs(3_600),
        ];
        for pair in instants.windows(2) {
            assert!(Stamp::of(pair[0]) <= Stamp::of(pair[1]), "{pair:?}");
            assert_eq!(Stamp::of(pair[0]) < Stamp::of(pair[1]), pair[0] < pair[1], "{pair:?}");
        }
        for at in instants {
            assert_eq!(Stamp::of(at).instant(), at);
        }
        let far = now + Duration::from_secs(400 * 365 * 24 * 3_600);
        assert!(Stamp::of(far) > Stamp::of(now + Duration::from_secs(3_600)));
        assert_eq!(Stamp::of(far), Stamp::of(far + Duration::from_secs(1)), "clamped");
    }

    /// R-SNAP-1: a stamp's wall-clock time converts back to the very stamp, and wall times
    /// order and differ as their stamps do; the ends of the range saturate.
    #[test]
    fn r_snap_1_a_stamp_and_its_wall_time_convert_back_exactly() {
        let at = Instant::now();
        let (now, later) = (Stamp::of(at), Stamp::of(at + Duration::from_secs(5)));
        assert_eq!(Stamp::from_wall_nanos(now.wall_nanos()), now);
        assert_eq!(later.wall_nanos() - now.wall_nanos(), 5_000_000_000);
        let wall = crate::rt::wall_nanos_now();
        assert!(
            (now.wall_nanos() - wall).abs() < 60_000_000_000,
            "the wall clock's time"
        );
        assert_eq!(Stamp::from_wall_nanos(i64::MAX).wall_nanos(), i64::MAX);
        assert!(Stamp::from_wall_nanos(i64::MIN) < now);
    }
}
