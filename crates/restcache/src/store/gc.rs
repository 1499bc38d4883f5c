//! The collector (R-GC-1..5): removes the results nothing keeps and the rows no kept result
//! references, a bounded amount of work at a time, and keeps the store within a byte budget.
//!
//! A cycle has two phases.
//!
//! - **Mark.** The keys are taken in order: those of live views ([`Store::retain`]) first, then
//!   the others, most recently read or written first. A key is kept when it is retained, when it
//!   was read or written within [`GcPolicy::max_age`] (or since the cycle started), and, in a
//!   cycle started over budget, while the bytes kept so far stay under half the budget; any
//!   other key is removed with its result and meta. The rows a kept result references are
//!   marked, and so are the rows those rows reference, through each schema's
//!   [`refs`](crate::schema::Schema::refs): a worklist of rows, list slices and whole tables.
//!   In a cycle started within budget, the rows the sweep keeps for their age are marked from
//!   too (each table is looked through once), so what they reference stays.
//! - **Sweep.** Each table is walked from its last row down; a row left unmarked is removed
//!   when it is older than `max_age`, or at once in a cycle started over budget (but for a
//!   young INVALID mark); a row written since the cycle started never is. The last row takes
//!   the removed row's index (reads that depended on either see a new version).
//!
//! Writes made while a cycle runs are kept: every row a commit writes is marked and what it
//! references followed (in the sweep phase before the commit ends), and a key written is
//! marked from like a kept key. A marked list written in the mark phase is walked again.
//!
//! The cycle removes no row when it cannot tell what a kept value references: a schema that
//! does not say, a read from a snapshot whose rows moved since, a list the mark had not reached
//! written in place during the sweep, a key retained after the cycle chose its keys.

use std::any::Any;
use std::time::Duration;

use super::change::Change;
use super::{EndpointMeta, Store, StoredResult};
use crate::pk::Pk;
use crate::refs::{AnyStored, RefSink, RefWalk, Visit};
use crate::rt::Instant;
use crate::schema::Schema;
use crate::schema::denormalize::SlotDep;
use crate::tables::{Layered, Record, Slot, Stamp, TableId, Tables};

/// When a store collects (R-GC-1..5): how old an unreferenced result or row must be, the byte
/// budget, and how much work one step does.
///
/// ```
/// use restcache::store::GcPolicy;
/// use std::time::Duration;
/// let policy = GcPolicy::new().max_age(Duration::from_secs(120)).max_bytes(10 << 20);
/// assert_eq!(policy.max_bytes, Some(10 << 20));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct GcPolicy {
    /// How long a result no live view retains is kept after it was last read or written, and
    /// how old an unreferenced row must be to be removed. Default: 5 minutes.
    pub max_age: Duration,
    /// The byte budget: once the store's bytes pass three quarters of it, a cycle evicts the
    /// least recently read results beyond half of it, and the rows only they referenced.
    /// Default: none.
    pub max_bytes: Option<usize>,
    /// The work of one step: rows marked or swept, list references followed, keys decided (a
    /// key removed counts a unit per KiB it held). Default: 1024, at most about half a millisecond
    /// on a 2020s laptop core.
    pub step_work: usize,
    /// How often a [`Controller`](crate::Controller) starts a cycle. Default: 30 seconds.
    pub interval: Duration,
}

impl Default for GcPolicy {
    fn default() -> Self {
        Self::new()
    }
}

impl GcPolicy {
    /// Five minutes, no byte budget, 1024 units of work a step, a cycle every 30 seconds.
    pub fn new() -> Self {
        GcPolicy {
            max_age: Duration::from_secs(300),
            max_bytes: None,
            step_work: 1024,
            interval: Duration::from_secs(30),
        }
    }

    /// Sets [`max_age`](Self::max_age).
    pub fn max_age(mut self, age: Duration) -> Self {
        self.max_age = age;
        self
    }

    /// Sets the byte budget ([`max_bytes`](Self::max_bytes)).
    pub fn max_bytes(mut self, bytes: usize) -> Self {
        self.max_bytes = Some(bytes);
        self
    }

    /// Sets [`interval`](Self::interval).
    pub fn interval(mut self, every: Duration) -> Self {
        self.interval = every;
        self
    }

    /// Sets the work of one step (at least 1).
    pub fn step_work(mut self, work: usize) -> Self {
        self.step_work = work.max(1);
        self
    }
}

/// What one [`Store::gc_step`] did.
///
/// ```
/// use restcache::Store;
/// use restcache::store::GcPolicy;
/// let mut store = Store::new();
/// store.set_gc(GcPolicy::new());
/// let report = store.gc();
/// assert!(report.done);
/// assert_eq!((report.keys, report.rows), (0, 0));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GcReport {
    /// Keys removed (with their result and meta).
    pub keys: usize,
    /// Rows removed.
    pub rows: usize,
    /// Whether the cycle ended with this step.
    pub done: bool,
    /// No step could run: optimistic layers are pending (the cycle goes on once they are not).
    pub blocked: bool,
}

/// The [`RefWalk`] of results written by `S`: its schema's [`Schema::refs_from`].
pub(crate) fn walk_result<S: Schema>(value: &dyn Any, from: usize, to: usize, sink: &mut RefSink<'_>) -> usize {
    match value.downcast_ref::<S::Stored>() {
        Some(stored) => S::refs_from(stored, from, to, sink),
        None => {
            sink.unknown();
            0
        }
    }
}

/// How many rows of a whole table, or references of a list or result, one item of work covers
/// at most. The rest of it waits beneath the rows the slice found, which are followed first:
/// the worklist stays within a few slices.
const SLICE: usize = 256;

/// A store's collector: its policy, the bytes it measures, and the cycle running.
#[derive(Debug)]
pub(crate) struct Gc {
    pub policy: GcPolicy,
    /// Every row's and key's bytes.
    bytes: usize,
    /// Per table, per row: the row's bytes.
    sizes: Vec<Vec<u32>>,
    cycle: Option<Cycle>,
    /// What the mark phase finds. Kept from cycle to cycle and sized as rows are written, so
    /// that no step allocates or frees a large block (with glibc, one makes `malloc` first sort
    /// every small block freed since: milliseconds after a large write).
    marks: Marks,
}

#[derive(Debug)]
enum Grey {
    /// An entity row whose references are still to follow.
    Row(TableId, u32),
    /// A list row whose references from `.3` on are still to follow.
    List(TableId, u32, RefWalk, usize),
    /// A table whose rows from `.1` on are still to mark.
    Table(TableId, usize),
    /// A table whose rows from `.1` on are still to look at for young ones.
    Young(TableId, usize),
    /// A list row written in the mark phase, which the sweep keeps.
    Keep(TableId, u32),
    /// A key whose result's references from `.1` on are still to follow.
    Result(String, usize),
    /// A key's memoized read (`.1`, by its place) whose dependencies from `.2` on are still to
    /// follow.
    Deps(String, usize, usize),
}

#[derive(Debug)]
struct Cycle {
    /// When the cycle started: what was read or written since is kept.
    started: Stamp,
    /// Results and rows read or written before this are old.
    old_before: Stamp,
    /// Started over budget: keys are evicted past `target` bytes, unmarked rows at once.
    budget: Option<usize>,
    /// The keys to decide, in order, with when each was last read or written, and the next one.
    keys: Vec<(String, Stamp)>,
    next: usize,
    /// Keys written in the mark phase, to mark from.
    written: Vec<String>,
    /// The sweep: the table and the row below which rows are still to look at.
    sweep: Option<(usize, usize)>,
    report: GcReport,
}

impl Cycle {
    /// Whether the sweep removes an unmarked row: not one written since the cycle started, nor a
    /// delete's INVALID mark younger than `max_age` (it keeps an answer started before the
    /// delete from bringing the entity back, R-NORM-7); in a cycle started over budget any
    /// other, else one written before `max_age` ago.
    fn removes(&self, slot: &Slot) -> bool {
        let written = slot.meta.written_at;
        let young = written >= self.old_before;
        written < self.started && !(young && (self.budget.is_none() || matches!(slot.record, Record::Invalid)))
    }
}

/// What the mark phase has found.
#[derive(Debug, Default)]
struct Marks {
    /// Per table, a bit per row.
    bits: Vec<Vec<u64>>,
    /// Per table, whether it is marked whole.
    whole: Vec<bool>,
    grey: Vec<Grey>,
    /// The list rows marked, with how their references are walked: a list written in the mark
    /// phase is walked again (a remove may have moved references into the part walked).
    lists: std::collections::HashMap<(TableId, u32), RefWalk>,
    /// A kept value cannot tell what it references.
    unknown: bool,
    /// The bytes of the kept keys and marked rows.
    kept: usize,
    /// In a cycle started within budget: rows written since this are young, and the sweep
    /// keeps them, so they are marked like the rows a kept key references.
    young: Option<Stamp>,
}

impl Marks {
    /// Room for a mark of row `row` of table `table`, made as rows are written (not in a step).
    fn fit(&mut self, table: TableId, row: usize) {
        at(&mut self.whole, table as usize);
        at(at(&mut self.bits, table as usize), row / 64);
    }

    /// No mark, for a new cycle; the room stays.
    fn reset(&mut self) {
        self.bits.iter_mut().for_each(|bits| bits.fill(0));
        self.whole.fill(false);
        self.grey.clear();
        self.lists.clear();
        self.unknown = false;
        self.kept = 0;
        self.young = None;
    }

    fn is_marked(&self, table: TableId, row: usize) -> bool {
        self.bits
            .get(table as usize)
            .and_then(|bits| bits.get(row / 64))
            .is_some_and(|word| word & (1 << (row % 64)) != 0)
    }

    /// Marks a row; whether it was not marked before.
    fn mark(&mut self, table: TableId, row: usize) -> bool {
        self.fit(table, row);
        let bits = &mut self.bits[table as usize];
        let bit = 1 << (row % 64);
        let new = bits[row / 64] & bit == 0;
        bits[row / 64] |= bit;
        new
    }

    /// Sets the mark of `row` to that of `from` (the row that moved there).
    fn set(&mut self, table: TableId, row: usize, marked: bool) {
        if marked {
            self.mark(table, row);
        } else if let Some(word) = self.bits.get_mut(table as usize).and_then(|b| b.get_mut(row / 64)) {
            *word &= !(1 << (row % 64));
        }
    }
}

/// Element `i` of `v`, which grows to hold it.
fn at<T: Default>(v: &mut Vec<T>, i: usize) -> &mut T {
    if v.len() <= i {
        v.resize_with(i + 1, T::default);
    }
    &mut v[i]
}

/// Marks what a [`RefSink`] reports.
struct Marker<'a> {
    tables: &'a Tables,
    sizes: &'a [Vec<u32>],
    marks: &'a mut Marks,
}

impl Marker<'_> {
    fn find(&self, table: &str, pk: &str) -> Option<(TableId, usize)> {
        Layered::committed(self.tables)
            .find(table, pk)
            .map(|(id, row, _)| (id, row))
    }

    fn kept(&mut self, table: TableId, row: usize) {
        let bytes = self.sizes.get(table as usize).and_then(|t| t.get(row)).copied();
        self.marks.kept = self.marks.kept.saturating_add(bytes.unwrap_or(0) as usize);
    }

    /// Marks an entity row; one not marked before is kept and its references followed.
    fn reach(&mut self, table: TableId, row: usize) {
        if self.marks.mark(table, row) {
            self.kept(table, row);
            self.marks.grey.push(Grey::Row(table, row as u32));
        }
    }

    /// Marks a list row; one not marked before is kept and its references walked.
    fn reach_list(&mut self, table: TableId, row: usize, walk: RefWalk) {
        if self.marks.mark(table, row) {
            self.kept(table, row);
            self.marks.lists.insert((table, row as u32), walk);
            self.marks.grey.push(Grey::List(table, row as u32, walk, 0));
        }
    }

    /// Follows a slice of what `value` references from `from` on; the rest waits, as
    /// `rest(from + SLICE)`, beneath what the slice found. Returns the work.
    fn walk_slice(&mut self, walk: RefWalk, value: &dyn Any, from: usize, rest: impl FnOnce(usize) -> Grey) -> usize {
        let at = self.marks.grey.len();
        let len = walk(value, from, from + SLICE, &mut RefSink::new(self));
        if from + SLICE < len {
            self.marks.grey.insert(at, rest(from + SLICE));
        }
        len.saturating_sub(from).clamp(1, SLICE)
    }
}

impl Visit for Marker<'_> {
    fn entity(&mut self, table: &str, pk: &str) {
        if let Some((id, row)) = self.find(table, pk) {
            self.reach(id, row);
        }
    }

    fn list(&mut self, table: &str, pk: &str, walk: RefWalk) {
        if let Some((id, row)) = self.find(table, pk) {
            self.reach_list(id, row, walk);
        }
    }

    fn table(&mut self, table: &str) {
        let Some(id) = self.tables.id(table) else { return };
        self.marks.fit(id, 0);
        if !std::mem::replace(&mut self.marks.whole[id as usize], true) {
            self.marks.grey.push(Grey::Table(id, 0));
        }
    }

    fn unknown(&mut self) {
        self.marks.unknown = true;
    }
}

/// The bytes a row holds: its entry in the table (pk, slot, index), a pk too long to be kept
/// inline, and its record.
fn row_bytes(pk: &Pk, slot: &Slot) -> u32 {
    let pk_heap = if pk.as_str().len() > std::mem::size_of::<Pk>() {
        pk.as_str().len()
    } else {
        0
    };
    let record = match &slot.record {
        Record::Entity(row) => row.bytes(),
        Record::List(list) => list.bytes(),
        Record::Invalid => 0,
    };
    let entry = std::mem::size_of::<(Pk, Slot)>() + std::mem::size_of::<u32>() * 2;
    u32::try_from(entry + pk_heap + record).unwrap_or(u32::MAX)
}

/// The bytes a key's result holds: the key's name, the result's entry and the result.
pub(super) fn key_bytes(key: &str, result: &dyn AnyStored) -> usize {
    key.len() + std::mem::size_of::<String>() + std::mem::size_of::<StoredResult>() + result.bytes()
}

/// The bytes a key's meta holds: the key's name, the meta, and its error's message.
fn meta_bytes(key: &str, meta: &EndpointMeta) -> usize {
    let error = meta.error.as_ref().map_or(0, |e| e.to_string().len());
    key.len() + std::mem::size_of::<String>() + std::mem::size_of::<EndpointMeta>() + error
}

impl Gc {
    /// A collector for the store's state as it is: every row, result (each noting its bytes)
    /// and meta measured.
    pub fn new(
        policy: GcPolicy,
        tables: &Tables,
        results: &mut super::KeyMap<StoredResult>,
        meta: &super::KeyMap<EndpointMeta>,
    ) -> Self {
        for (key, r) in results.iter_mut() {
            r.bytes = key_bytes(key, r.value.as_ref());
        }
        let sizes: Vec<Vec<u32>> = tables
            .iter()
            .map(|(_, t)| t.rows.iter().map(|(pk, slot)| row_bytes(pk, slot)).collect())
            .collect();
        let row_total: usize = sizes.iter().flatten().map(|b| *b as usize).sum();
        let key_total: usize = results.values().map(|r| r.bytes).sum::<usize>()
            + meta.iter().map(|(k, m)| meta_bytes(k, m)).sum::<usize>();
        let mut marks = Marks {
            grey: Vec::with_capacity(1024),
            ..Marks::default()
        };
        for (id, (_, t)) in tables.iter().enumerate() {
            marks.fit(id as TableId, t.rows.len());
        }
        Gc {
            policy,
            bytes: row_total + key_total,
            sizes,
            cycle: None,
            marks,
        }
    }

    /// Row `row` (`pk`) of table `table` was written: measured again, and kept by a running
    /// cycle with what it references (in the sweep, an entity row's when the commit ends).
    ///
    /// `fresh`: the row was added, or started afresh (it held nothing before this write).
    pub fn row_written(&mut self, table: TableId, row: usize, pk: &Pk, slot: &Slot, fresh: bool) {
        let size = at(at(&mut self.sizes, table as usize), row);
        let new = row_bytes(pk, slot);
        self.bytes = (self.bytes - *size as usize).saturating_add(new as usize);
        *size = new;
        let marks = &mut self.marks;
        marks.fit(table, row);
        let Some(cycle) = self.cycle.as_mut() else { return };
        let list = matches!(slot.record, Record::List(_));
        match cycle.sweep {
            // The sweep keeps the list: one already marked is walked again, another marked.
            None if list => match marks.lists.get(&(table, row as u32)) {
                Some(walk) => marks.grey.push(Grey::List(table, row as u32, *walk, 0)),
                None => marks.grey.push(Grey::Keep(table, row as u32)),
            },
            // Followed even if marked before: the write may have given it new references.
            None => {
                if marks.mark(table, row) {
                    marks.kept = marks.kept.saturating_add(new as usize);
                }
                marks.grey.push(Grey::Row(table, row as u32));
            }
            // In the sweep, what an entity row references is followed when the commit ends. A
            // list row unmarked until now may hold references the mark did not follow: the
            // cycle removes nothing more.
            Some(_) => {
                let newly = marks.mark(table, row);
                if !list {
                    marks.grey.push(Grey::Row(table, row as u32));
                } else if newly && !fresh {
                    marks.unknown = true;
                }
            }
        }
    }

    /// Whether the sweep running will remove row `row` of table `table`: a write to it then
    /// starts the row afresh, as if it had been removed when the mark phase ended (its old
    /// references may point at rows already removed).
    pub fn is_garbage(&self, table: TableId, row: usize, slot: &Slot) -> bool {
        let Some(cycle) = self.cycle.as_ref().filter(|c| c.sweep.is_some() && !self.marks.unknown) else {
            return false;
        };
        !self.marks.is_marked(table, row)
            && !self.marks.whole.get(table as usize).copied().unwrap_or(false)
            && cycle.removes(slot)
    }

    /// `key` was written with a result of `new` bytes (it held `old`).
    pub fn key_written(&mut self, key: &str, old: usize, new: usize) {
        self.bytes = (self.bytes - old.min(self.bytes)).saturating_add(new);
        match self.cycle.as_mut().map(|c| (c.sweep.is_some(), c)) {
            Some((false, cycle)) => cycle.written.push(key.to_owned()),
            // In the sweep, what it references is followed when the commit ends.
            Some((true, _)) => self.marks.grey.push(Grey::Result(key.to_owned(), 0)),
            None => {}
        }
    }

    /// A key of `bytes` bytes was removed.
    pub fn key_removed(&mut self, bytes: usize) {
        self.bytes -= bytes.min(self.bytes);
    }

    /// Everything is gone (a clear): no cycle, nothing measured.
    pub fn reset(&mut self) {
        self.sizes.clear();
        self.bytes = 0;
        self.cycle = None;
        self.marks = Marks::default();
    }

    /// Whether the bytes have passed three quarters of the budget.
    fn over_trigger(&self) -> bool {
        self.policy.max_bytes.is_some_and(|max| self.bytes > max / 4 * 3)
    }
}

impl Store {
    /// Collects with `policy` from now on (R-GC-1): the store measures every row and result it
    /// holds and writes, and [`gc_step`](Self::gc_step) collects. With a byte budget, writes
    /// start cycles and help them along themselves, in proportion to what they write.
    ///
    /// ```
    /// use restcache::prelude::*;
    /// use restcache::store::GcPolicy;
    /// use serde_json::json;
    ///
    /// #[derive(Clone, Debug, Default, Entity)]
    /// struct Todo { #[entity(pk)] id: u64, title: String }
    ///
    /// let mut store = Store::new();
    /// store.set_gc(GcPolicy::new().max_age(std::time::Duration::ZERO));
    /// store.set_response::<Vec<Todo>>("GET /todos", &(), &json!([{"id": 1, "title": "a"}]))?;
    /// assert!(store.bytes().unwrap() > 0);
    /// store.retain("GET /todos");
    /// assert_eq!(store.gc().rows, 0, "a live view keeps its list and what it references");
    /// store.release("GET /todos");
    /// let report = store.gc();
    /// assert_eq!((report.keys, report.rows), (1, 1));
    /// assert_eq!(store.bytes(), Some(0));
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn set_gc(&mut self, policy: GcPolicy) {
        self.gc = Some(Box::new(Gc::new(policy, &self.tables, &mut self.results, &self.meta)));
    }

    /// How often a Controller starts a cycle: the policy's interval, if there is one.
    pub(crate) fn gc_interval(&self) -> Option<Duration> {
        self.gc.as_ref().map(|gc| gc.policy.interval)
    }

    /// The bytes the store holds (rows, results, meta), as the collector measures them; `None`
    /// without a [`GcPolicy`] (nothing is measured then).
    ///
    /// ```
    /// use restcache::store::GcPolicy;
    ///
    /// let mut store = restcache::Store::new();
    /// assert_eq!(store.bytes(), None);
    /// store.set_gc(GcPolicy::new());
    /// store.set_response::<serde_json::Value>("GET /motd", &(), &serde_json::json!("hello"))?;
    /// assert!(store.bytes().unwrap() > 0);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn bytes(&self) -> Option<usize> {
        self.gc.as_ref().map(|gc| gc.bytes)
    }

    /// Keeps `key` (its result and what it references) from the collector until as many
    /// [`release`](Self::release)s: what a live view does for the key it reads.
    ///
    /// ```
    /// use restcache::store::GcPolicy;
    ///
    /// let mut store = restcache::Store::new();
    /// store.set_gc(GcPolicy::new().max_age(std::time::Duration::ZERO)); // collects every key not retained
    /// store.set_response::<serde_json::Value>("GET /motd", &(), &serde_json::json!("hello"))?;
    /// store.retain("GET /motd");
    /// assert_eq!(store.gc().keys, 0);
    /// assert_eq!(store.keys().collect::<Vec<_>>(), ["GET /motd"]);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn retain(&mut self, key: &str) {
        let since = Stamp::of(Instant::now());
        self.retained.entry(key.to_owned()).or_insert((0, since)).0 += 1;
        // The cycle running decided its keys before: it cannot tell what this one will show
        // (a live view may read it in query mode), so it removes no row.
        if let Some(gc) = self.gc.as_mut()
            && gc.cycle.is_some()
        {
            gc.marks.unknown = true;
        }
    }

    /// Undoes one [`retain`](Self::retain) of `key`.
    ///
    /// ```
    /// use restcache::store::GcPolicy;
    ///
    /// let mut store = restcache::Store::new();
    /// store.set_gc(GcPolicy::new().max_age(std::time::Duration::ZERO)); // collects every key not retained
    /// store.set_response::<serde_json::Value>("GET /motd", &(), &serde_json::json!("hello"))?;
    /// store.retain("GET /motd");
    /// store.retain("GET /motd");
    /// store.release("GET /motd");
    /// assert_eq!(store.gc().keys, 0, "still retained once");
    /// store.release("GET /motd");
    /// assert_eq!(store.gc().keys, 1);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn release(&mut self, key: &str) {
        if let Some((n, _)) = self.retained.get_mut(key) {
            *n -= 1;
            if *n == 0 {
                self.retained.swap_remove(key);
            }
        }
    }

    /// One step of collection (R-GC-2): at most [`GcPolicy::step_work`] units of work,
    /// starting a cycle if none is running. Does nothing without a policy, and nothing while
    /// optimistic layers are pending (a cycle waits for them).
    ///
    /// ```
    /// # use restcache::Store;
    /// # use restcache::store::GcPolicy;
    /// let mut store = Store::new();
    /// store.set_gc(GcPolicy::new());
    /// while !store.gc_step().done {}
    /// ```
    pub fn gc_step(&mut self) -> GcReport {
        let Some(work) = self.gc.as_ref().map(|gc| gc.policy.step_work.max(1)) else {
            return GcReport {
                done: true,
                ..GcReport::default()
            };
        };
        self.gc_work(work, false)
    }

    /// A whole cycle, step by step: what [`gc_step`](Self::gc_step)s report together.
    ///
    /// ```
    /// use restcache::store::GcPolicy;
    /// use std::time::Duration;
    ///
    /// let mut store = restcache::Store::new();
    /// store.set_gc(GcPolicy::new()); // keys neither read nor written for five minutes go
    /// store.set_response::<serde_json::Value>("GET /motd", &(), &serde_json::json!("hello"))?;
    /// assert_eq!(store.gc().keys, 0);
    /// store.set_gc(GcPolicy::new().max_age(Duration::ZERO));
    /// let report = store.gc();
    /// assert!(report.done);
    /// assert_eq!(report.keys, 1);
    /// # Ok::<(), restcache::Error>(())
    /// ```
    pub fn gc(&mut self) -> GcReport {
        let mut total = GcReport::default();
        loop {
            let step = self.gc_step();
            total.keys += step.keys;
            total.rows += step.rows;
            if step.done || step.blocked {
                total.done = step.done;
                total.blocked = step.blocked;
                return total;
            }
        }
    }

    /// After a commit that wrote `rows` rows: with a byte budget, starts a cycle once past
    /// three quarters of it, and does 16 units of work per row written while one runs.
    pub(super) fn gc_assist(&mut self, rows: usize) {
        let Some(gc) = self.gc.as_ref().filter(|gc| gc.policy.max_bytes.is_some()) else {
            return;
        };
        if gc.cycle.is_none() && !gc.over_trigger() {
            return;
        }
        let step = gc.policy.step_work.max(1);
        let mut work = rows.saturating_mul(16).max(step);
        while work > 0 {
            let report = self.gc_work(step.min(work), true);
            work = work.saturating_sub(step);
            if report.done || report.blocked {
                break;
            }
        }
    }

    /// At the end of a commit in the sweep phase: follows at once what the rows and keys it
    /// wrote reference, so that the sweep removes none of it (work in proportion to the write).
    pub(super) fn gc_settle(&mut self) {
        let Some(mut gc) = self.gc.take() else { return };
        if gc.cycle.as_ref().is_some_and(|c| c.sweep.is_some()) {
            let Gc { sizes, marks, .. } = &mut *gc;
            while let Some(grey) = marks.grey.pop() {
                self.follow(grey, sizes, marks);
            }
        }
        self.gc = Some(gc);
    }

    /// Up to `work` units of collection; `after_commit` when a commit asks (what it wrote is
    /// then as new as the cycle).
    fn gc_work(&mut self, work: usize, after_commit: bool) -> GcReport {
        let Some(mut gc) = self.gc.take() else {
            return GcReport::default();
        };
        let report = if self.layers.is_empty() {
            let now = Stamp::of(Instant::now());
            // A read records the clock of the last commit or step: one that recorded the
            // clock as it is now was made since, and counts as made now.
            let since = std::mem::replace(&mut self.memo.get_mut().clock, now);
            let started = if after_commit { since } else { now };
            self.collect(&mut gc, work, since, started)
        } else {
            GcReport {
                blocked: true,
                ..GcReport::default()
            }
        };
        self.gc = Some(gc);
        report
    }

    fn collect(&mut self, gc: &mut Gc, mut work: usize, since: Stamp, started: Stamp) -> GcReport {
        if gc.cycle.is_none() {
            gc.marks.reset();
            let cycle = self.start_cycle(gc, since, started);
            // Within budget the sweep keeps young rows, and what they reference with them.
            if cycle.budget.is_none() {
                gc.marks.young = Some(cycle.old_before);
                let tables = self.tables.iter().count() as TableId;
                gc.marks.grey.extend((0..tables).map(|id| Grey::Young(id, 0)));
            }
            gc.cycle = Some(cycle);
        }
        if gc.cycle.as_ref().is_some_and(|c| c.sweep.is_none()) && self.mark(gc, &mut work) {
            let cycle = gc.cycle.as_mut().expect("a cycle runs");
            let tables = self.tables.iter().count();
            let start = if gc.marks.unknown { 0 } else { tables };
            cycle.sweep = Some(sweep_from(&self.tables, start));
        }
        let mut removed = 0;
        if gc.cycle.as_ref().is_some_and(|c| c.sweep.is_some()) {
            removed = self.sweep(gc, &mut work);
        }
        let cycle = gc.cycle.as_mut().expect("a cycle runs");
        cycle.report.rows += removed;
        let mut report = std::mem::take(&mut cycle.report);
        if cycle.sweep == Some((0, 0)) {
            gc.cycle = None;
            report.done = true;
        }
        if report.keys > 0 || report.rows > 0 {
            self.version += 1;
        }
        report
    }

    /// A cycle starting now: what is read or written from `started` on is kept (a commit that
    /// starts a cycle passes its own time, so it keeps what it wrote); reads that recorded
    /// `since` or later count as made now.
    fn start_cycle(&mut self, gc: &Gc, since: Stamp, started: Stamp) -> Cycle {
        let memo = self.memo.get_mut();
        // The clock the step set: what reads and writes from now on record, or later.
        let now = memo.clock;
        let old_before = now
            .instant()
            .checked_sub(gc.policy.max_age)
            .map_or(Stamp::MIN, Stamp::of);
        let last_used = |key: &str, meta: Option<&EndpointMeta>| {
            let read = memo.last_read(key).map(|r| if r >= since { now } else { r });
            let written = meta.map(|m| Stamp::of(m.written_at));
            read.max(written).unwrap_or(Stamp::MIN)
        };
        // Every key with meta or a result, and every retained key (one read in query mode has
        // neither, and is marked from its reads).
        let mut keys: Vec<(bool, Stamp, &String)> = self
            .meta
            .iter()
            .map(|(k, m)| (self.retained.contains_key(k), last_used(k, Some(m)), k))
            .chain(
                self.results
                    .keys()
                    .filter(|k| !self.meta.contains_key(*k))
                    .map(|k| (self.retained.contains_key(k), last_used(k, None), k)),
            )
            .chain(
                self.retained
                    .keys()
                    .filter(|k| !self.meta.contains_key(*k) && !self.results.contains_key(*k))
                    .map(|k| (true, now, k)),
            )
            .collect();
        // Keys only read (in query mode, never fetched) keep their memoized reads while young.
        let read_only = memo.entries.iter().filter(|(k, _)| {
            !self.meta.contains_key(*k) && !self.results.contains_key(*k) && !self.retained.contains_key(*k)
        });
        keys.extend(read_only.map(|(k, es)| {
            let read = es.iter().map(|e| e.last_read).max().unwrap_or(Stamp::MIN);
            (false, if read >= since { now } else { read }, k)
        }));
        keys.sort_unstable_by_key(|(retained, used, _)| std::cmp::Reverse((*retained, *used)));
        Cycle {
            started,
            old_before,
            budget: gc.over_trigger().then(|| gc.policy.max_bytes.unwrap_or(0) / 2),
            keys: keys.into_iter().map(|(_, used, k)| (k.clone(), used)).collect(),
            next: 0,
            written: Vec::new(),
            sweep: None,
            report: GcReport::default(),
        }
    }

    /// Decides keys and marks from the kept ones until `work` runs out; whether the mark phase
    /// is over.
    fn mark(&mut self, gc: &mut Gc, work: &mut usize) -> bool {
        let Gc {
            sizes,
            cycle,
            marks,
            bytes: measured,
            ..
        } = gc;
        let cycle = cycle.as_mut().expect("a cycle runs");
        // Whether this step has decided a key: a key costlier than the work left waits for the
        // next step only then, so that one always gets decided (a commit's assist spends work
        // on its own write first, and would otherwise defer a large key for ever).
        let mut decided = false;
        loop {
            if *work == 0 {
                return false;
            }
            if let Some(grey) = marks.grey.pop() {
                *work = work.saturating_sub(self.follow(grey, sizes, marks));
                continue;
            }
            if let Some(key) = cycle.written.pop() {
                self.mark_key(&key, cycle.old_before, marks);
                *work -= 1;
                continue;
            }
            let Some((key, used)) = cycle.keys.get(cycle.next).cloned() else {
                return true;
            };
            let (bytes, last_used) = self.key_use(&key);
            // Freeing a result costs about its size: a unit per KiB. A key that does not fit in
            // what is left of a step that has decided a key waits for the next step.
            let cost = 1 + bytes / 1024;
            if cost > *work && decided {
                return false;
            }
            decided = true;
            cycle.next += 1;
            *work -= 1;
            let kept = self.retained.contains_key(&key)
                || last_used >= cycle.started
                || (used >= cycle.old_before
                    && cycle
                        .budget
                        .is_none_or(|target| marks.kept.saturating_add(bytes) <= target));
            if kept {
                marks.kept = marks.kept.saturating_add(bytes);
                self.mark_key(&key, cycle.old_before, marks);
            } else {
                // A key with neither result nor meta held only memoized reads: not a key removed.
                let data = self.meta.contains_key(&key) || self.results.contains_key(&key);
                self.forget_key(&key);
                *measured -= bytes.min(*measured);
                *work = work.saturating_sub(cost - 1);
                cycle.report.keys += usize::from(data);
            }
        }
    }

    /// The bytes of `key` and when it was last read or written.
    fn key_use(&mut self, key: &str) -> (usize, Stamp) {
        let bytes = self.results.get(key).map_or(0, |r| r.bytes) + self.meta.get(key).map_or(0, |m| meta_bytes(key, m));
        let read = self.memo.get_mut().last_read(key);
        let written = self.meta.get(key).map(|m| Stamp::of(m.written_at));
        (bytes, read.max(written).unwrap_or(Stamp::MIN))
    }

    /// Sets the meta of `key`, measured while the store collects, and journaled while it is
    /// persisted.
    pub(super) fn set_meta(&mut self, key: &str, meta: EndpointMeta) {
        if let Some(journal) = self.journal.as_mut() {
            journal.key(key);
        }
        if let Some(gc) = self.gc.as_mut() {
            let old = self.meta.get(key).map_or(0, |m| meta_bytes(key, m));
            gc.bytes = (gc.bytes - old.min(gc.bytes)).saturating_add(meta_bytes(key, &meta));
        }
        self.meta.insert(key.to_owned(), meta);
    }

    /// Removes `key`: its result, meta and memoized reads (the collector, taken out of the
    /// store while it steps, counts the bytes freed).
    fn forget_key(&mut self, key: &str) {
        let result = self.results.swap_remove(key).is_some();
        let meta = self.meta.swap_remove(key).is_some();
        self.memo.get_mut().entries.swap_remove(key);
        // A key only read held nothing a persister saved.
        if let Some(journal) = self.journal.as_mut()
            && (result || meta)
        {
            journal.key(key);
        }
    }

    /// Marks what `key`'s result references, and, for a retained key or a result whose schema
    /// is not known (one read back from a snapshot), what its memoized reads depended on.
    fn mark_key(&self, key: &str, recent: Stamp, marks: &mut Marks) {
        let result = self.results.get(key);
        if result.is_some_and(|r| r.walk.is_some()) {
            marks.grey.push(Grey::Result(key.to_owned(), 0));
            return;
        }
        // A key with no result keeps no row, unless a live view reads it (in query mode).
        if result.is_none() && !self.retained.contains_key(key) {
            return;
        }
        // The memo is only read: a step holds the store mutably, so no read runs.
        let memo = self.memo.lock();
        match memo.entries.get(key) {
            Some(entries) => {
                let reads = (0..entries.len()).map(|entry| Grey::Deps(key.to_owned(), entry, 0));
                marks.grey.extend(reads);
            }
            // A result never read, or a key retained since `recent` and not read yet (a live
            // view that has just started): what its read uses is not known, so the cycle
            // removes no row. One retained before and never read (its reads fail) reads nothing.
            None if result.is_some() || self.retained.get(key).is_some_and(|(_, since)| *since >= recent) => {
                marks.unknown = true;
            }
            None => {}
        }
    }

    /// Follows one item of the worklist; returns its work.
    fn follow(&self, grey: Grey, sizes: &[Vec<u32>], marks: &mut Marks) -> usize {
        let tables = &self.tables;
        let slot = |id: TableId, row: usize| tables.get_table(id)?.rows.get_index(row).map(|(_, s)| s);
        let mut marker = Marker { tables, sizes, marks };
        match grey {
            Grey::Row(id, row) => {
                if let Some(Slot {
                    record: Record::Entity(r),
                    ..
                }) = slot(id, row as usize)
                {
                    r.refs(&mut RefSink::new(&mut marker));
                }
                1
            }
            Grey::List(id, row, walk, from) => match slot(id, row as usize) {
                Some(Slot {
                    record: Record::List(list),
                    ..
                }) => marker.walk_slice(walk, &**list as &dyn Any, from, |next| Grey::List(id, row, walk, next)),
                _ => 1,
            },
            Grey::Result(key, from) => match self.results.get(&key).and_then(|r| Some((r.walk?, r))) {
                Some((walk, r)) => marker.walk_slice(walk, &*r.value as &dyn Any, from, |next| Grey::Result(key, next)),
                None => 1,
            },
            Grey::Deps(key, entry, from) => {
                let memo = self.memo.lock();
                let Some(read) = memo.entries.get(&key).and_then(|es| es.get(entry)) else {
                    return 1;
                };
                if from == 0 {
                    read.deps.tables.iter().for_each(|(table, _)| marker.table(table));
                    // Rows the read found missing that are there now: the next read uses them.
                    for (table, pk) in &read.deps.missing {
                        marker.entity(table, pk);
                    }
                }
                let slots = &read.deps.slots;
                // Read again since with fewer dependencies: follow the new ones from the start.
                let from = if from > slots.len() { 0 } else { from };
                let to = slots.len().min(from + SLICE);
                let at = marker.marks.grey.len();
                mark_deps(&slots[from..to], &mut marker);
                if to < slots.len() {
                    marker.marks.grey.insert(at, Grey::Deps(key, entry, to));
                }
                (to - from).max(1)
            }
            Grey::Table(id, from) => {
                let len = tables.get_table(id).map_or(0, |t| t.rows.len());
                let to = len.min(from + SLICE);
                if to < len {
                    marker.marks.grey.push(Grey::Table(id, to));
                }
                (from..to).for_each(|row| marker.reach(id, row));
                (to - from).max(1)
            }
            Grey::Young(id, from) => {
                let (Some(young), Some(table)) = (marker.marks.young, tables.get_table(id)) else {
                    return 1;
                };
                let to = table.rows.len().min(from + SLICE);
                if to < table.rows.len() {
                    marker.marks.grey.push(Grey::Young(id, to));
                }
                for row in from..to {
                    if table
                        .rows
                        .get_index(row)
                        .is_some_and(|(_, s)| s.meta.written_at >= young)
                    {
                        self.keep_row(&mut marker, id, row);
                    }
                }
                (to - from).max(1)
            }
            Grey::Keep(id, row) => {
                self.keep_row(&mut marker, id, row as usize);
                1
            }
        }
    }

    /// Marks a row the sweep keeps whatever references it, to follow what it references: an
    /// entity's nested rows, or a list's members through its table's walk (the walk of a table
    /// no schema has written or read since the store started is not known: the cycle removes
    /// no row).
    fn keep_row(&self, marker: &mut Marker<'_>, id: TableId, row: usize) {
        let Some((_, slot)) = self.tables.get_table(id).and_then(|t| t.rows.get_index(row)) else {
            return;
        };
        match &slot.record {
            Record::Entity(_) => marker.reach(id, row),
            Record::List(_) => {
                let walk = self
                    .tables
                    .name(id)
                    .and_then(|name| self.memo.lock().registry.list_walk(name));
                match walk {
                    Some(walk) => marker.reach_list(id, row, walk),
                    None => marker.marks.unknown = true,
                }
            }
            Record::Invalid => {}
        }
    }

    /// Removes unmarked rows, from the last table's last row down, until `work` runs out;
    /// returns how many.
    fn sweep(&mut self, gc: &mut Gc, work: &mut usize) -> usize {
        let Gc {
            sizes,
            cycle,
            bytes,
            marks,
            ..
        } = gc;
        let cycle = cycle.as_mut().expect("a cycle runs");
        let mut removed = 0;
        while let Some((table, below)) = cycle.sweep {
            if table == 0 || marks.unknown {
                cycle.sweep = Some((0, 0));
                break;
            }
            if *work == 0 {
                break;
            }
            let id = (table - 1) as TableId;
            if below == 0 || marks.whole.get(id as usize).copied().unwrap_or(false) {
                cycle.sweep = Some(sweep_from(&self.tables, table - 1));
                *work -= 1;
                continue;
            }
            let row = below - 1;
            cycle.sweep = Some((table, row));
            *work -= 1;
            if marks.is_marked(id, row) {
                continue;
            }
            let name = self.tables.name(id);
            let t = self.tables.table_mut(id);
            let Some((pk, slot)) = t.rows.get_index(row) else {
                continue;
            };
            if !cycle.removes(slot) {
                continue;
            }
            let last = t.rows.len() - 1;
            let moved = match (&self.journal, row == last) {
                (Some(_), false) => t.rows.get_index(last).map(|(pk, _)| pk.clone()),
                _ => None,
            };
            // A row written since the changes were last taken may be saved nowhere yet: its
            // state goes with its removal, to give it the place the removal gives away.
            let was = match (&self.journal, name) {
                (Some(journal), Some(name)) if journal.since <= slot.meta.written_at => {
                    Some(Change::row(name, pk.as_str(), slot))
                }
                _ => None,
            };
            let Some((pk, _)) = t.rows.swap_remove(row) else {
                continue;
            };
            t.version = Store::bump(&mut self.next_version);
            if let Some(journal) = self.journal.as_mut() {
                journal.forget(id, &pk, moved.as_ref(), was);
            }
            let last_marked = marks.is_marked(id, last);
            marks.set(id, row, last_marked);
            if let Some(sizes) = sizes.get_mut(id as usize)
                && row < sizes.len()
            {
                *bytes -= (sizes[row] as usize).min(*bytes);
                sizes.swap_remove(row);
            }
            removed += 1;
        }
        removed
    }
}

/// Where the sweep starts in table `table` (counted from 1; 0 ends it): below its last row.
fn sweep_from(tables: &Tables, table: usize) -> (usize, usize) {
    match table {
        0 => (0, 0),
        t => (t, tables.table((t - 1) as TableId).rows.len()),
    }
}

/// Marks the rows a memoized read depended on: the committed ones that still hold what it read.
///
/// A row that no longer holds what the read found (written since, or moved by a sweep) cannot be
/// told from another: the cycle then removes no row (R-GC-3), until a read records them again.
fn mark_deps(deps: &[SlotDep], marker: &mut Marker<'_>) {
    for d in deps {
        if !Layered::committed(marker.tables).holds(d.table, d.row as usize, d.version) {
            marker.marks.unknown = true;
        } else {
            marker.reach(d.table, d.row as usize);
        }
    }
}
