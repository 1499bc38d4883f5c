//! Response → table writes + normalized result (R-NORM).
//!
//! One path for every input: a schema normalizes what a serde `Deserializer` gives it, the JSON
//! parser over a response's bytes or a `serde_json::Value` (which is a `Deserializer` too). An
//! entity's row is filled by serde itself (its derive's companion type); its nested schemas are
//! normalized while serde fills it.
//!
//! The state of a normalization ([`Normalizing`]: args, body, position, the pending writes)
//! lives in a thread-local for as long as [`run`] runs, because serde's derive has no way to pass
//! a context to a field's deserializer: schemas reach it with [`with`], in short borrows never
//! held across a nested `deserialize`. A normalization never reads the store: every write goes
//! into a [`Pending`] batch, which the store commits in one step only if the whole normalization
//! succeeded (R-NORM-2), and what depends on the stored tables (the lists a created entity
//! joins, which tables hold a deleted pk) is worked out by the commit.

use std::any::Any;
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::json::{MAX_INPUT_DEPTH, as_map};
use crate::pk::PkHasher;
use crate::row_map::RowMap;
use crate::rows::{MergeOutcome, Row, RowData};
use crate::schema::{Join, Schema, SchemaKind};
use crate::tables::{List, ListEdit, Record, RowMeta, Slot};

/// One step of a JSON Pointer.
#[derive(Clone, Debug)]
pub(crate) enum Seg {
    /// A field: a schema's field name, or an owned key of a `Values` map.
    Key(Cow<'static, str>),
    Index(usize),
}

/// The writes of one normalization into one table, in document order of first occurrence.
///
/// Its rows have the table's own type, so that a commit into a table that has no rows yet
/// takes the whole map as the table (setting each row's meta and version), without copying or
/// hashing a row again.
#[derive(Clone, Debug, Default)]
pub(crate) struct PendingTable {
    pub name: &'static str,
    /// `pk → record`: an entity's record (all the response's fields for this pk, repeats
    /// combined), an INVALID mark, a collection's new list, or the references to add to a
    /// stored one ([`edits`](Self::edits)). Meta and version are set by the commit.
    pub rows: RowMap<Slot>,
    /// Each row's pk hash ([`PkHasher::pk`]), in row order, from [`KEEP_HASHES_FROM`] rows on
    /// (a small batch hashes its few pks again instead): the index grows and the commit finds
    /// each row with them, so a large write hashes each pk once.
    pub hashes: Vec<u64>,
    /// The rows (by index) whose list edits the stored one instead of replacing it: the commit
    /// adds the references the stored record lacks (push, unshift, get_page), or removes them
    /// (remove, move), whether the write is newer than the record or older (R-NORM-7).
    pub edits: Vec<(usize, ListEdit)>,
}

impl PendingTable {
    /// The row of `pk`, added (as INVALID) if new; and its index.
    fn row(&mut self, pk: &str) -> (usize, &mut Record, bool) {
        let hash = PkHasher::pk(pk);
        self.keep_hashes(1);
        let make = || Slot {
            record: Record::Invalid,
            meta: RowMeta::default(),
            version: 0,
        };
        let (index, slot, new) = self.rows.get_or_insert_hashed(hash, pk, &self.hashes, make);
        if new && !self.hashes.is_empty() {
            self.hashes.push(hash);
        }
        (index, &mut slot.record, new)
    }

    /// Starts keeping [`hashes`](Self::hashes) when `more` rows would bring the batch to
    /// [`KEEP_HASHES_FROM`]. A batch with no row yet keeps none: it starts at its 16th row (a
    /// list reserves its rows after its first element is written).
    fn keep_hashes(&mut self, more: usize) {
        if self.hashes.is_empty() && self.rows.len().saturating_add(more) >= KEEP_HASHES_FROM {
            self.hashes.reserve(self.rows.len().saturating_add(more));
            self.hashes.extend(self.rows.iter().map(|(pk, _)| PkHasher::pk(pk)));
        }
    }
}

/// The size from which a [`PendingTable`] keeps its rows' hashes.
const KEEP_HASHES_FROM: usize = 16;

/// How row `index` of a [`PendingTable`] edits the stored list, by its `edits`; `None` when
/// it replaces the stored record.
pub(crate) fn edit_at(edits: &[(usize, ListEdit)], index: usize) -> Option<ListEdit> {
    edits.iter().find(|(i, _)| *i == index).map(|(_, edit)| *edit)
}

/// Every write of one normalization, table by table (tables in order of their first write).
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending {
    pub tables: Vec<PendingTable>,
    /// The index of the table written last.
    last: usize,
    /// The lists a page joined, as the page alone reads: `(table, pk, the page's references)`.
    /// A `get_page` fetch resolves to its page, not to the list it joined (R-FETCH-5).
    pub pages: Vec<(&'static str, String, Box<dyn List>)>,
    /// Created entities whose lists are found when the batch is committed: those of a
    /// normalization without the tables ([`crate::schema::join_lists`]).
    pub joins: Vec<Join>,
    /// INVALID marks that the commit writes only into a table that holds the pk then: a deleted
    /// union member named by its pk alone, in every variant table that holds it (R-INV-1).
    pub if_stored: Vec<(&'static str, String)>,
    /// While a field waits for its object to complete ([`nested`]).
    waiting: Option<Box<Waiting>>,
}

/// What keeps document order (R-NORM-6) for the fields normalized once their object is
/// complete ([`nested`]), while one waits.
#[derive(Clone, Debug, Default)]
struct Waiting {
    /// How many entity writes were made since a field began to wait.
    count: usize,
    /// When each entity was written since then, by table and pk: the writes' numbers, in order.
    writes: HashMap<&'static str, HashMap<String, Vec<usize>>>,
    /// While waiting fields are normalized (one inside another): for each, the writes of the
    /// fields after it, `from..to`. Its copies of those entities only add the fields they lack.
    later: Vec<(usize, usize)>,
}

impl Pending {
    /// The writes into `name`; consecutive writes mostly go to the table of the previous one.
    fn table(&mut self, name: &'static str) -> &mut PendingTable {
        let found = self
            .tables
            .iter()
            .rposition(|t| std::ptr::eq(t.name, name) || t.name == name);
        let i = found.unwrap_or_else(|| {
            self.tables.push(PendingTable {
                name,
                ..PendingTable::default()
            });
            self.tables.len() - 1
        });
        self.last = i;
        &mut self.tables[i]
    }

    /// The write of `(table, pk)`, if the batch has one.
    pub(crate) fn row(&self, table: &str, pk: &str) -> Option<&Slot> {
        self.tables.iter().find(|t| t.name == table)?.rows.get(pk)
    }

    /// Makes room for `n` more rows in the table written last (a list of entities writes one
    /// row per element into the table its first element wrote).
    pub(crate) fn reserve_last(&mut self, n: usize) {
        if let Some(t) = self.tables.get_mut(self.last) {
            t.keep_hashes(n);
            t.rows.reserve(n, &t.hashes);
            if !t.hashes.is_empty() {
                t.hashes.reserve(n);
            }
        }
    }

    /// Sets the write of `(table, pk)`, replacing an earlier one: an INVALID mark, or a
    /// collection's record (a list, a map) that replaces the stored one (get_list, R-COL-3) or,
    /// with an `edit` ([`PendingTable::edits`]), adds the references the stored one lacks (push,
    /// unshift, get_page) or removes them (remove, move).
    pub(crate) fn set(&mut self, table: &'static str, pk: &str, record: Record, edit: Option<ListEdit>) {
        let t = self.table(table);
        let (index, slot, _) = t.row(pk);
        *slot = record;
        t.edits.retain(|(i, _)| *i != index);
        if let Some(edit) = edit {
            t.edits.push((index, edit));
        }
    }

    /// Logs a write while a field waits; whether the fields after the one being normalized
    /// wrote `(table, pk)`.
    fn log_waiting(&mut self, table: &'static str, pk: &str) -> bool {
        let Some(w) = self.waiting.as_mut() else { return false };
        let writes = w.writes.entry(table).or_default().entry(pk.to_owned()).or_default();
        let earlier = w.later.iter().any(|&(from, to)| {
            let first = writes.partition_point(|&n| n < from);
            writes.get(first).is_some_and(|&n| n < to)
        });
        writes.push(w.count);
        w.count += 1;
        earlier
    }

    /// Adds an entity's row, combining it with an earlier occurrence of the same `(K, pk)` in
    /// document order: later fields win (R-NORM-6).
    pub(crate) fn entity(&mut self, table: &'static str, pk: &str, row: Box<dyn Row>) {
        let earlier = self.waiting.is_some() && self.log_waiting(table, pk);
        let t = self.table(table);
        let (index, slot, new) = t.row(pk);
        let row = match slot {
            Record::Entity(existing) if !new => match existing.merge_row(row, earlier) {
                MergeOutcome::Merged(_) => return,
                MergeOutcome::Replace(_) if earlier => return,
                MergeOutcome::Replace(row) => row,
            },
            _ => row,
        };
        *slot = Record::Entity(row);
        if !new {
            t.edits.retain(|(i, _)| *i != index);
        }
    }

    pub(crate) fn invalid(&mut self, table: &'static str, pk: &str) {
        self.set(table, pk, Record::Invalid, None);
    }
}

/// The state of one normalization: what it reads (the call's args and body), where it is in
/// the input, and what it will write. Reached with [`with`] while [`run`] runs.
#[derive(Default)]
pub(crate) struct Normalizing {
    pub args: Value,
    pub path: Vec<Seg>,
    pub pending: Pending,
    /// How many entities the value being normalized is inside.
    pub entity_depth: usize,
    /// Whether collections at the top of the response are pages (`get_page`), whose new
    /// references are appended to the stored record (R-PAGE-3), rather than lists that replace
    /// it (`get_list`, R-COL-3).
    pub page: bool,
    /// Whether the value is an element of a list (or a `Values` map): an unmatched union
    /// element is then skipped, not refused.
    pub in_list: bool,
    /// A `Values` map key, standing in for the pk of an entity that has none.
    pub pk_fallback: Option<String>,
    /// The object holding the value, for the schemas that read it ([`Schema::PARENT`]), and the
    /// field it is under.
    pub parent: Option<Value>,
    pub parent_key: Option<&'static str>,
    /// The key of the `Values` map entry the value is in, and the object the map is in (its
    /// [`frame`](Self::frame)): the key of the value and of a list's elements there.
    pub map_key: Option<(String, u64)>,
    /// Nested fields whose schemas read the object holding them: normalized once that object
    /// is complete.
    deferred: Vec<Deferred>,
    /// The object being filled, and how many objects were begun ([`in_object`]).
    pub frame: u64,
    frames: u64,
    /// The first normalization error; a placeholder serde error unwinds the parse meanwhile.
    error: Option<Error>,
    /// Where the first failure of any kind was met (the position of a serde error), and in
    /// which entity.
    failed_at: Option<String>,
    failed_entity: Option<&'static str>,
}

/// A nested field normalized once the object holding it is complete ([`nested`]).
struct Deferred {
    /// The object it waits for ([`in_object`]).
    frame: u64,
    name: &'static str,
    value: Value,
    /// Normalizes `value` with the field's schema; the normalized form is the schema's
    /// `Stored`, which the row downcasts ([`RowData::set_nested`]).
    normalize: fn(Value) -> Result<Box<dyn Any + Send>, Error>,
    /// The number of the first entity write after it ([`Waiting::count`]).
    written_from: usize,
}

thread_local! {
    static STATE: RefCell<Option<Normalizing>> = const { RefCell::new(None) };
}

/// What a normalization with [`run`] leaves: its result (a schema's normalized form) and its
/// writes.
pub(crate) struct Outcome<T> {
    pub result: T,
    pub pending: Pending,
}

impl<T> Outcome<T> {
    /// How many entities the commit will write, and how many INVALID marks (deletes).
    pub(crate) fn counts(&self) -> (usize, usize) {
        let rows = self.pending.tables.iter().flat_map(|t| t.rows.values());
        rows.fold((0, 0), |(entities, invalid), row| match &row.record {
            Record::Entity(_) => (entities + 1, invalid),
            Record::Invalid => (entities, invalid + 1),
            Record::List(_) => (entities, invalid),
        })
    }
}

/// Runs `normalize` as a normalization of a call with `args` (an object), and
/// returns its outcome; `syntax` turns a serde error that is not a normalization error (the
/// bytes are not JSON, or a field has the wrong type) into the error to give, with where it was
/// met (a JSON Pointer, and the entity). A normalization
/// that `normalize` starts inside this one gets a state of its own.
pub(crate) fn run<T, E>(
    args: Value,
    pk_fallback: Option<String>,
    normalize: impl FnOnce() -> Result<T, E>,
    syntax: impl FnOnce(E, String, Option<&'static str>) -> Error,
) -> Result<Outcome<T>, Error> {
    let state = Normalizing {
        args,
        pk_fallback,
        ..Normalizing::default()
    };
    /// Puts the enclosing state back, however `normalize` ends.
    struct Restore(Option<Normalizing>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let outer = self.0.take();
            STATE.with(|s| *s.borrow_mut() = outer);
        }
    }
    let restore = Restore(STATE.with(|s| s.borrow_mut().replace(state)));
    let result = normalize();
    let state = STATE.with(|s| s.borrow_mut().take()).expect("the state run installed");
    drop(restore);
    let Normalizing {
        mut pending,
        error,
        failed_at,
        failed_entity,
        ..
    } = state;
    match (result, error) {
        (_, Some(e)) => Err(e),
        (Ok(result), None) => {
            pending.joins.shrink_to_fit();
            Ok(Outcome { result, pending })
        }
        (Err(e), None) => Err(syntax(e, failed_at.unwrap_or_default(), failed_entity)),
    }
}

/// Runs `f` on the state of the normalization running on this thread.
///
/// Schemas normalize only inside [`run`]; outside one (a row type deserialized by hand) the
/// state is a throwaway, and the caller's own serde error ends the parse at its first nested
/// field ([`nested`]).
pub(crate) fn with<R>(f: impl FnOnce(&mut Normalizing) -> R) -> R {
    STATE.with(|s| {
        let mut state = s.borrow_mut();
        let state = state.get_or_insert_with(|| Normalizing {
            error: Some(Error::InvalidConfig {
                reason: "a schema normalized outside a store write".into(),
            }),
            ..Normalizing::default()
        });
        f(state)
    })
}

/// Reads one object with `read`, one level deeper (checked): an entity's row when `entity`
/// names the entity, else an object schema's. The nested fields that read the object wait for
/// it, not for an object around it, and are normalized once it is complete
/// ([`finish_object`]), or dropped when it fails. Returns the row, and the `Values` key that
/// stands in for an entity's missing pk. A row serde refused is where the normalization failed
/// (with the entity named).
pub(crate) fn in_object<R: RowData, E: de::Error>(
    entity: Option<&'static str>,
    read: impl FnOnce() -> Result<R, E>,
) -> Result<(R, Option<String>), E> {
    let (fallback, outer) = with(|n| {
        n.check_depth()?;
        n.entity_depth += usize::from(entity.is_some());
        n.frames += 1;
        Ok((n.pk_fallback.take(), std::mem::replace(&mut n.frame, n.frames)))
    })
    .map_err(fail)?;
    let mut row = read();
    let refused = entity.filter(|_| row.is_err());
    if refused.is_some() {
        note_failure(None);
    }
    let finished = match &mut row {
        Ok(row) => finish_object(row),
        Err(_) => Ok(()),
    };
    with(|n| {
        if row.is_err() || finished.is_err() {
            let frame = n.frame;
            n.deferred.retain(|d| d.frame != frame);
        }
        if let Some(entity) = refused {
            n.failed_entity.get_or_insert(entity);
        }
        n.entity_depth -= usize::from(entity.is_some());
        n.frame = outer;
    });
    finished.map_err(fail)?;
    Ok((row?, fallback))
}

/// Notes the current position (or its field `key`) as where the normalization failed, unless
/// a deeper failure was noted first: the position a serde error is reported at.
pub(crate) fn note_failure(key: Option<&str>) {
    with(|n| {
        if n.failed_at.is_none() {
            let mut at = n.pointer();
            key.inspect(|key| push_key(&mut at, key));
            n.failed_at = Some(at);
        }
    });
}

/// Keeps `error` as the normalization's error (the first one stands) and returns the serde
/// error that unwinds the parse to [`run`].
pub(crate) fn fail<E: de::Error>(error: Error) -> E {
    with(|n| {
        n.error.get_or_insert(error);
    });
    E::custom("normalization failed")
}

/// Appends one step, `key`, to the JSON Pointer `to`.
fn push_key(to: &mut String, key: &str) {
    to.push('/');
    to.push_str(&key.replace('~', "~0").replace('/', "~1"));
}

impl Normalizing {
    /// The key the value is under: its `Values` map key, else its field's name.
    pub fn key(&self) -> Option<&str> {
        match &self.map_key {
            Some((key, frame)) if *frame == self.frame => Some(key),
            _ => self.parent_key,
        }
    }

    /// The JSON Pointer of the value being normalized (`""` is the root).
    pub fn pointer(&self) -> String {
        let mut s = String::new();
        for seg in &self.path {
            match seg {
                Seg::Key(k) => push_key(&mut s, k),
                Seg::Index(i) => s.push_str(&format!("/{i}")),
            }
        }
        s
    }

    /// The args of the call being normalized (always an object).
    pub fn args(&self) -> &Map<String, Value> {
        as_map(&self.args)
    }

    /// An [`Error::InvalidResponse`] at the current position.
    pub fn invalid(&self, entity: Option<&str>, reason: impl Into<String>) -> Error {
        Error::InvalidResponse {
            url: String::new(),
            entity: entity.map(str::to_owned),
            position: self.pointer(),
            reason: reason.into(),
        }
    }

    /// Fails once the input nests deeper than [`MAX_INPUT_DEPTH`], so hostile input ends in an
    /// error rather than a stack overflow.
    pub(crate) fn check_depth(&self) -> Result<(), Error> {
        if self.path.len() >= MAX_INPUT_DEPTH {
            return Err(self.invalid(None, format!("input nested deeper than {MAX_INPUT_DEPTH} levels")));
        }
        Ok(())
    }
}

/// [`fail`] with [`Normalizing::invalid`] at the current position.
pub(crate) fn invalid<E: de::Error>(entity: Option<&str>, reason: impl Into<String>) -> E {
    let error = with(|n| n.invalid(entity, reason));
    fail(error)
}

/// Takes the normalization's error out of its state, to give it back with [`fail`] through
/// another deserializer's error type.
pub(crate) fn take_error() -> Option<Error> {
    with(|n| n.error.take())
}

/// Normalizes a deferred field's `value` with `S`, its normalized form boxed.
fn normalize_deferred<S: Schema>(value: Value) -> Result<Box<dyn Any + Send>, Error> {
    S::normalize(value)
        .map(|stored| Box::new(stored) as Box<dyn Any + Send>)
        .map_err(|e: serde_json::Error| take_error().unwrap_or_else(|| with(|n| n.invalid(None, e.to_string()))))
}

/// The `visit_*` methods of a visitor that accepts one JSON kind: every other kind is the error
/// `$refuse` gives for the kind `$found` names (`self` is passed in as `$self`, for hygiene),
/// mostly [`wrong_kind`]: an [`Error::InvalidResponse`] at the current position (R-NORM-1,
/// R-NORM-4), not serde's type error.
macro_rules! refuse_other_kinds {
    ($self:ident, |$found:ident| $refuse:expr) => {
        $crate::schema::normalize::refuse_other_kinds!(@ $self, $found, $refuse, visit_bool(bool) "a boolean",
            visit_i64(i64) "a number", visit_u64(u64) "a number", visit_f64(f64) "a number",
            visit_str(&str) "a string", visit_unit() "null", visit_none() "null");
    };
    (@ $self:ident, $found:ident, $refuse:expr, $($visit:ident($($ty:ty)?) $kind:literal),*) => {
        $(
            fn $visit<E: de::Error>($self $(, _: $ty)?) -> Result<Self::Value, E> {
                let $found = $kind;
                Err($refuse)
            }
        )*
    };
}
pub(crate) use refuse_other_kinds;

/// The error of a value of the wrong JSON kind (`found`) where a schema `expected` another.
pub(crate) fn wrong_kind<E: de::Error>(expected: &str, found: &str) -> E {
    invalid(None, format!("expected {expected}, found {found}"))
}

/// How many elements of a list room is made for before they are read.
const RESERVED_ITEMS: usize = 4096;

/// A list as the store keeps it: one that grew by doubling gives back its spare room when that
/// is more than a quarter of its length (a store holds its lists for as long as it lives).
pub(crate) fn kept<T>(mut list: Vec<T>) -> Vec<T> {
    if list.capacity() - list.len() > list.len() / 4 + 16 {
        list.shrink_to_fit();
    }
    list
}

/// Runs `f` over the elements of a list (or the values of a `Values` map) at the current
/// position: one level deeper (checked), each element in a list, none taking a pk from outside.
#[inline]
pub(crate) fn as_list<T, E: de::Error>(f: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let was = with(|n| {
        n.check_depth()?;
        n.pk_fallback = None;
        Ok(std::mem::replace(&mut n.in_list, true))
    })
    .map_err(fail)?;
    let result = f();
    with(|n| n.in_list = was);
    result
}

/// `Vec<S>`: each element normalized with `S`, `null` inputs and skipped results dropped.
pub(crate) fn list<'de, S: Schema, D: Deserializer<'de>>(de: D) -> Result<Vec<S::Stored>, D::Error> {
    de.deserialize_any(ListVisitor::<S>(std::marker::PhantomData))
}

struct ListVisitor<S>(std::marker::PhantomData<S>);

impl<'de, S: Schema> Visitor<'de> for ListVisitor<S> {
    type Value = Vec<S::Stored>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array")
    }

    refuse_other_kinds!(self, |found| wrong_kind("an array", found));

    fn visit_map<A: de::MapAccess<'de>>(self, _: A) -> Result<Self::Value, A::Error> {
        Err(wrong_kind("an array", "an object"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        as_list(|| {
            // A length the parser announces is a claim about input not yet read: room is made
            // for at most RESERVED_ITEMS up front, and a longer list grows as it is read.
            let announced = seq.size_hint().map(|n| n.min(RESERVED_ITEMS));
            let mut out = Vec::with_capacity(announced.unwrap_or(0));
            // Each element of an entity list writes a row: once the first has, its table grows
            // once for the rest, not by doubling.
            let mut reserve = announced.filter(|_| matches!(S::KIND, SchemaKind::Entity));
            let mut i = 0;
            loop {
                with(|n| n.path.push(Seg::Index(i)));
                let mut item = seq.next_element_seed(OptionSeed::<S>(std::marker::PhantomData));
                // Each element of a delete's list names a pk (R-RESP-6): a null names none.
                if matches!(S::KIND, SchemaKind::Invalidate) && matches!(item, Ok(Some(None))) {
                    item = Err(invalid(None, "missing or empty primary key"));
                }
                if item.is_err() {
                    note_failure(None);
                }
                with(|n| n.path.pop());
                let Some(item) = item? else {
                    return Ok(kept(out));
                };
                if let Some(v) = item.filter(|v| !S::skipped(v)) {
                    out.push(v);
                    if let Some(len) = reserve.take() {
                        with(|n| n.pending.reserve_last(len.saturating_sub(i + 1)));
                    }
                }
                i += 1;
            }
        })
    }
}

/// `S`, or `None` for a `null` input (a list element, an `Option`).
pub(crate) struct OptionSeed<S>(pub std::marker::PhantomData<S>);

impl<'de, S: Schema> DeserializeSeed<'de> for OptionSeed<S> {
    type Value = Option<S::Stored>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_option(self)
    }
}

impl<'de, S: Schema> Visitor<'de> for OptionSeed<S> {
    type Value = Option<S::Stored>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        S::normalize(de).map(Some)
    }
}

/// A nested-schema field `name` of an entity or object row, normalized with `S` while serde
/// fills the row (what `#[derive(Entity)]`'s row calls for each nested field): the row keeps
/// what it returns, the normalized form. A schema that reads the object holding it is parsed
/// into a `Value` now and normalized once that object is complete (`finish_object`), which
/// sets the field; until then it is `None`.
pub fn nested<'de, S: Schema, D: Deserializer<'de>>(de: D, name: &'static str) -> Result<Option<S::Stored>, D::Error> {
    if with(|n| S::PARENT.wanted(n.entity_depth)) {
        let value = Value::deserialize(de)?;
        with(|n| {
            let waiting = n.pending.waiting.get_or_insert_with(Box::default);
            n.deferred.push(Deferred {
                frame: n.frame,
                name,
                value,
                normalize: normalize_deferred::<S>,
                written_from: waiting.count,
            })
        });
        return Ok(None);
    }
    in_field(name, None, || {
        let r = S::normalize(de);
        if r.is_err() {
            note_failure(None);
        }
        r.map(Some)
    })
}

/// Runs `f` at the field `name` of the current object, with `parent` as the object holding it
/// ([`Schema::PARENT`]): not in a list, and taking no pk from outside.
#[inline]
fn in_field<R>(name: &'static str, parent: Option<Value>, f: impl FnOnce() -> R) -> R {
    let saved = with(|n| {
        n.path.push(Seg::Key(Cow::Borrowed(name)));
        (
            std::mem::replace(&mut n.parent, parent),
            n.parent_key.replace(name),
            std::mem::replace(&mut n.in_list, false),
            n.pk_fallback.take(),
        )
    });
    let r = f();
    with(|n| {
        n.path.pop();
        (n.parent, n.parent_key, n.in_list, n.pk_fallback) = saved;
    });
    r
}

/// Normalizes the nested fields of a just-completed object's `row` (the current object)
/// that were waiting for it ([`nested`]): each with the object as its parent, its result written
/// into the row.
fn finish_object(row: &mut dyn RowData) -> Result<(), Error> {
    // The fields of inner objects were taken when those completed: this object's are last.
    let waiting: Vec<Deferred> = with(|n| {
        let frame = n.frame;
        let at = n
            .deferred
            .iter()
            .position(|d| d.frame == frame)
            .unwrap_or(n.deferred.len());
        n.deferred.split_off(at)
    });
    if waiting.is_empty() {
        return Ok(());
    }
    let mut object = row.to_json();
    for d in &waiting {
        object.insert(d.name.to_owned(), d.value.clone());
    }
    let parent = Value::Object(object);
    // What the fields after each one wrote, up to now: not what the waiting fields before it
    // write next, which come before it in the document.
    let written_to = with(|n| n.pending.waiting.as_ref().map_or(0, |w| w.count));
    for d in waiting {
        with(|n| (n.pending.waiting.get_or_insert_with(Box::default).later).push((d.written_from, written_to)));
        let r = in_field(d.name, Some(parent.clone()), || (d.normalize)(d.value));
        with(|n| n.pending.waiting.as_mut().map(|w| w.later.pop()));
        row.set_nested(d.name, r?);
    }
    // Once no field waits, here or in an object around this one, nothing is logged.
    with(|n| {
        if n.deferred.is_empty() && n.pending.waiting.as_ref().is_some_and(|w| w.later.is_empty()) {
            n.pending.waiting = None;
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// R-ERR-2: a normalization's state is put back as it was when the normalization ends, by
    /// return, error or panic (a panicking `deserialize_with`), and a normalization run inside
    /// another gets a state of its own.
    #[test]
    fn r_err_2_the_normalization_state_is_put_back_however_a_normalization_ends() {
        let installed = || STATE.with(|s| s.borrow().as_ref().map(|n| n.args.clone()));
        let syntax = |_: Error, _: String, _: Option<&'static str>| Error::InvalidConfig { reason: String::new() };
        let panicked = std::panic::catch_unwind(|| {
            run(
                serde_json::json!({"a": 1}),
                None,
                || -> Result<Value, Error> { panic!("a user's deserializer") },
                syntax,
            )
        });
        assert!(panicked.is_err());
        assert_eq!(installed(), None, "nothing left installed after a panic");
        let outer = run(
            serde_json::json!({"outer": true}),
            None,
            || {
                let inner = run(
                    serde_json::json!({"inner": true}),
                    None,
                    || Ok(installed().unwrap()),
                    syntax,
                );
                assert_eq!(inner.unwrap().result, serde_json::json!({"inner": true}));
                Ok::<_, Error>(installed().unwrap())
            },
            syntax,
        );
        assert_eq!(
            outer.unwrap().result,
            serde_json::json!({"outer": true}),
            "the outer state is back"
        );
        assert_eq!(installed(), None);
        let failed = run(
            serde_json::json!({}),
            None,
            || Err::<(), _>(Error::InvalidConfig { reason: "x".into() }),
            syntax,
        );
        assert!(failed.is_err());
        assert_eq!(installed(), None, "nothing left installed after an error");
    }

    /// R-STORE-1: a list the store keeps gives back the room it grew into when that is more than
    /// a quarter of its length (and 16 elements); a list with little spare keeps it, as a copy
    /// would cost more than it saves.
    #[test]
    fn r_store_1_a_kept_list_has_at_most_a_quarter_of_its_length_spare() {
        let grown = |len: usize, capacity: usize| {
            let mut list = Vec::<u64>::with_capacity(capacity);
            list.extend(0..len as u64);
            kept(list)
        };
        let list = grown(100_000, 131_072);
        assert_eq!(list.len(), 100_000);
        assert!(list.capacity() <= 100_000 + 100_000 / 4, "{}", list.capacity());
        assert_eq!(list.iter().sum::<u64>(), (0..100_000).sum::<u64>(), "the elements stay");
        assert_eq!(grown(100_000, 120_000).capacity(), 120_000);
        assert_eq!(grown(3, 4).capacity(), 4);
        assert_eq!(grown(0, 16).capacity(), 16);
        assert!(grown(0, 17).capacity() < 17);
    }

    /// A list of entities grows the table its first element wrote last, once, wherever that
    /// table is in the batch (rows of other tables are reserved nowhere).
    #[test]
    fn a_list_reserves_rows_in_the_table_written_last() {
        let mut pending = Pending::default();
        for (table, pk) in [("Todo", "0"), ("User", "u"), ("Tag", "t"), ("User", "v")] {
            pending.entity(table, pk, Box::new(crate::rows::JsonRow::default()));
        }
        pending.reserve_last(1_000);
        let capacity = |name: &str| pending.tables.iter().find(|t| t.name == name).unwrap().rows.capacity();
        assert!(capacity("User") >= 1_002, "{}", capacity("User"));
        assert!(capacity("Todo") < 1_000 && capacity("Tag") < 1_000);
        let names: Vec<&str> = pending.tables.iter().map(|t| t.name).collect();
        assert_eq!(names, ["Todo", "User", "Tag"]);
    }
}
