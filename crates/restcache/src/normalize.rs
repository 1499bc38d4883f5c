//! Response → table writes + normalized result (R-NORM).
//!
//! A normalization never touches the store: it reads the committed tables and collects every
//! write in a [`Pending`] batch, which the store commits in one step only if the whole
//! normalization succeeded (R-NORM-2).

use std::borrow::Cow;

use indexmap::IndexMap;
use indexmap::map::raw_entry_v1::{RawEntryApiV1, RawEntryMut};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::Error;
use crate::record::{Fields, Name};
use crate::schema::{CollectionPolicy, Entity, Join, Schema, SchemaKind};
use crate::tables::{EntityMeta, Members, PkHasher, Record, Slot, Table, Tables};

/// How deep input may nest: serde_json's own recursion limit (R-NORM-8, R-RESP-4).
pub(crate) const MAX_INPUT_DEPTH: usize = 128;

/// Drops a value without recursion, however deep it nests.
pub(crate) fn dispose(value: Value) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
            _ => {}
        }
    }
}

/// One step of a JSON Pointer.
#[derive(Clone, Debug)]
pub(crate) enum Seg {
    /// A field: a schema's field name, or an owned key of a `Values` map.
    Key(Cow<'static, str>),
    Index(usize),
}

/// How collections at the top of the response are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CollectionMode {
    /// `get_list`: the response replaces the collection record (R-COL-3).
    Replace,
    /// `get_page`: new references are appended to the stored record (R-PAGE-3).
    Append,
}

/// The writes of one normalization into one table, in document order of first occurrence.
///
/// Its rows have the table's own type, so that a commit into a table that has no rows yet
/// takes the whole map as the table (setting each row's meta and version), without copying or
/// hashing a row again.
#[derive(Clone, Debug)]
pub(crate) struct PendingTable {
    pub name: &'static str,
    /// `pk → record`: an entity's record (all the response's fields for this pk, repeats
    /// combined), an INVALID mark, a collection's new list, or the references to add to a
    /// stored one ([`appended`](Self::appended)). Meta and version are set by the commit.
    pub rows: IndexMap<String, Slot, PkHasher>,
    /// The [`PkHasher`] hash of each row's pk, by row index, computed once and reused by a
    /// commit into a table that already has rows.
    pub hashes: Vec<u64>,
    /// The rows (by index) whose list adds to the stored one (push, unshift, get_page): the
    /// commit adds the references the stored record lacks, at its end, or at its start when the
    /// flag (`front`) is set, whether the write is newer than the record or older (R-NORM-7).
    pub appended: Vec<(usize, bool)>,
}

impl PendingTable {
    fn new(name: &'static str) -> Self {
        PendingTable {
            name,
            rows: IndexMap::default(),
            hashes: Vec::new(),
            appended: Vec::new(),
        }
    }

    /// The row of `pk`, added (as INVALID) if new; and its index.
    fn row(&mut self, pk: String) -> (usize, &mut Record, bool) {
        let hash = PkHasher::pk(&pk);
        match self.rows.raw_entry_mut_v1().from_key_hashed_nocheck(hash, pk.as_str()) {
            RawEntryMut::Occupied(o) => {
                let index = o.index();
                (index, &mut o.into_mut().record, false)
            }
            RawEntryMut::Vacant(v) => {
                let index = self.hashes.len();
                self.hashes.push(hash);
                let slot = Slot {
                    record: Record::Invalid,
                    meta: EntityMeta::UNSET,
                    version: 0,
                };
                (index, &mut v.insert_hashed_nocheck(hash, pk, slot).1.record, true)
            }
        }
    }
}

/// Whether row `index` of a [`PendingTable`] adds to the stored list (`Some(front)`), by its
/// `appended` rows.
pub(crate) fn appended_at(appended: &[(usize, bool)], index: usize) -> Option<bool> {
    appended.iter().find(|(i, _)| *i == index).map(|(_, front)| *front)
}

/// Every write of one normalization, table by table (tables in order of their first write).
#[derive(Clone, Debug, Default)]
pub(crate) struct Pending {
    pub tables: Vec<PendingTable>,
    /// The index of the table written last.
    last: usize,
    /// The lists a page joined, as the page alone reads: `(table, pk, the page's references)`.
    /// A `get_page` fetch resolves to its page, not to the list it joined (R-FETCH-5).
    pub pages: Vec<(&'static str, String, Members)>,
    /// Created entities whose lists are found when the batch is committed: those of a
    /// normalization without the tables ([`crate::schema::join_lists`]).
    pub joins: Vec<Join>,
}

impl Pending {
    /// The writes into `name`; consecutive writes mostly go to the table of the previous one.
    fn table(&mut self, name: &'static str) -> &mut PendingTable {
        let found = self
            .tables
            .iter()
            .rposition(|t| std::ptr::eq(t.name, name) || t.name == name);
        let i = found.unwrap_or_else(|| {
            self.tables.push(PendingTable::new(name));
            self.tables.len() - 1
        });
        self.last = i;
        &mut self.tables[i]
    }

    /// Makes room for `n` more rows in the table written last (a list of entities writes one
    /// row per element into the table its first element wrote).
    pub(crate) fn reserve_last(&mut self, n: usize) {
        if let Some(t) = self.tables.get_mut(self.last) {
            t.rows.reserve(n);
            t.hashes.reserve(n);
        }
    }

    /// Sets the write of `(table, pk)`, replacing an earlier one; `appended` as
    /// [`PendingTable::appended`].
    fn set(&mut self, table: &'static str, pk: String, record: Record, appended: Option<bool>) {
        let t = self.table(table);
        let (index, slot, _) = t.row(pk);
        *slot = record;
        t.appended.retain(|(i, _)| *i != index);
        if let Some(front) = appended {
            t.appended.push((index, front));
        }
    }

    /// Adds an entity record, combining it with an earlier occurrence of the same `(K, pk)` in
    /// document order: later fields win (R-NORM-6).
    pub(crate) fn entity(&mut self, table: &'static str, pk: String, record: Fields) {
        let t = self.table(table);
        let (index, slot, new) = t.row(pk);
        match slot {
            Record::Entity(existing) if !new => {
                existing.merge(record, |_, _| false);
            }
            other => {
                *other = Record::Entity(record);
                if !new {
                    t.appended.retain(|(i, _)| *i != index);
                }
            }
        }
    }

    /// Adds `later`'s writes after these, as if they had been made here one by one.
    pub(crate) fn append(&mut self, later: Pending) {
        self.joins.extend(later.joins);
        for t in later.tables {
            let appended = t.appended;
            for (index, (pk, slot)) in t.rows.into_iter().enumerate() {
                match slot.record {
                    Record::Entity(record) => self.entity(t.name, pk, record),
                    record => {
                        self.set(t.name, pk, record, appended_at(&appended, index));
                    }
                }
            }
        }
    }

    pub(crate) fn invalid(&mut self, table: &'static str, pk: String) {
        self.set(table, pk, Record::Invalid, None);
    }

    /// A collection's new list, replacing the stored one (get_list, R-COL-3).
    pub(crate) fn collection(&mut self, table: &'static str, pk: String, items: Vec<Value>) {
        self.set(table, pk, Record::List(Members::new(items)), None);
    }

    /// References to add to a collection, at its end or its start (`front`), those the stored
    /// list holds skipped when the batch is committed (push, unshift, get_page).
    pub(crate) fn appended(&mut self, table: &'static str, pk: String, items: Members, front: bool) {
        self.set(table, pk, Record::List(items), Some(front));
    }
}

/// The state of one normalization: what it reads, where it is, and what it will write.
///
/// Passed to [`Schema::normalize`]; user code meets it only in hand-written schema impls.
///
/// Normalization consumes its input: a schema takes what it stores out of the value it is
/// given (`&mut Value`) instead of copying it, so a response's strings are moved into the
/// tables, never cloned.
pub struct NormalizeCtx<'a> {
    /// The committed tables, which push, unshift and `Invalidate` of a union read; `None` for a
    /// fetched body normalized before the store is locked ([`Self::committed`]).
    tables: Option<&'a Tables>,
    /// Set when a schema asked for the tables and there were none: the result is unusable
    /// and the normalization must be redone against the committed tables.
    pub(crate) needs_tables: bool,
    pub(crate) args: &'a Value,
    pub(crate) body: Option<&'a Value>,
    pub(crate) path: Vec<Seg>,
    /// The object holding the value being normalized, for schemas that ask for it
    /// ([`Schema::PARENT`]): a copy taken before the value was moved out of it.
    pub(crate) parent: Option<Value>,
    pub(crate) parent_key: Option<&'static str>,
    pub(crate) pending: Pending,
    pub(crate) entity_depth: usize,
    pub(crate) mode: CollectionMode,
    pub(crate) in_list: bool,
    pub(crate) pk_fallback: Option<String>,
    pub(crate) policy: Option<&'a dyn CollectionPolicy>,
    /// Whether the pass over bytes met JSON that does not fit the schema ([`crate::seed`]),
    /// told apart from a syntax error once serde has unwound.
    pub(crate) seed_failed: bool,
    /// Buffers for the fields of the records being parsed ([`crate::seed`]), one per level of
    /// nesting, reused from record to record.
    pub(crate) entries: Vec<Vec<(Name, Value)>>,
}

impl<'a> NormalizeCtx<'a> {
    /// This normalization started over: nothing written, nothing pending, the same tables,
    /// args, body and policy (all that `normalize_bytes_in` sets up before a pass; what else
    /// a caller sets would be lost).
    pub(crate) fn restart(&mut self) {
        let policy = self.policy;
        *self = NormalizeCtx::new(self.tables, self.args, self.body);
        self.policy = policy;
    }

    /// A normalization reading `tables`, or no tables at all (`None`, see [`Self::committed`]).
    pub(crate) fn new(tables: Option<&'a Tables>, args: &'a Value, body: Option<&'a Value>) -> Self {
        NormalizeCtx {
            tables,
            needs_tables: false,
            args,
            body,
            path: Vec::new(),
            parent: None,
            parent_key: None,
            pending: Pending::default(),
            entity_depth: 0,
            mode: CollectionMode::Replace,
            in_list: false,
            pk_fallback: None,
            policy: None,
            seed_failed: false,
            entries: Vec::new(),
        }
    }

    /// The committed table `name`, for the schemas whose writes depend on what is stored.
    /// Without tables it is `None` and marks the normalization as needing them.
    pub(crate) fn committed(&mut self, name: &str) -> Option<&'a Table> {
        match self.tables {
            Some(tables) => tables.by_name(name),
            None => {
                self.needs_tables = true;
                None
            }
        }
    }

    /// The committed tables, if this normalization has them, for a schema that can leave its
    /// reading of them to the commit (push, unshift: [`crate::schema::Join`]).
    pub(crate) fn tables(&self) -> Option<&'a Tables> {
        self.tables
    }

    /// The JSON Pointer of the value being normalized (`""` is the root).
    pub fn pointer(&self) -> String {
        let mut s = String::new();
        for seg in &self.path {
            s.push('/');
            match seg {
                Seg::Key(k) => s.push_str(&k.replace('~', "~0").replace('/', "~1")),
                Seg::Index(i) => s.push_str(&i.to_string()),
            }
        }
        s
    }

    /// The args of the call being normalized (always an object).
    pub fn args(&self) -> &'a Map<String, Value> {
        as_map(self.args)
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

    /// Runs `f` one step deeper in the JSON Pointer.
    pub(crate) fn at<R>(&mut self, seg: Seg, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(seg);
        let r = f(self);
        self.path.pop();
        r
    }

    /// Fails once the input nests deeper than [`MAX_INPUT_DEPTH`], so hostile input ends in an
    /// error rather than a stack overflow.
    pub(crate) fn check_depth(&self) -> Result<(), Error> {
        if self.path.len() >= MAX_INPUT_DEPTH {
            return Err(self.invalid(None, format!("input nested deeper than {MAX_INPUT_DEPTH} levels")));
        }
        Ok(())
    }

    /// Normalizes each element of a JSON array with `S`, dropping `null` inputs and results.
    pub(crate) fn list<S: Schema>(&mut self, items: &mut [Value]) -> Result<Vec<Value>, Error> {
        self.check_depth()?;
        let was = std::mem::replace(&mut self.in_list, true);
        self.pk_fallback = None;
        let mut out = Vec::with_capacity(items.len());
        // Each element of an entity list writes a row: once the first has, its table grows
        // once for the rest, not by doubling.
        let mut reserve = matches!(S::KIND, SchemaKind::Entity);
        let len = items.len();
        let mut result = Ok(());
        for (i, item) in items.iter_mut().enumerate() {
            if item.is_null() {
                continue;
            }
            match self.at(Seg::Index(i), |ctx| S::normalize(item, ctx)) {
                Ok(Value::Null) => {}
                Ok(v) => {
                    out.push(v);
                    if std::mem::take(&mut reserve) {
                        self.pending.reserve_last(len - i - 1);
                    }
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.in_list = was;
        result.map(|()| out)
    }
}

/// The object inside an args value (`{}` for anything else).
pub(crate) fn as_map(args: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    args.as_object().unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

/// The JSON kind of a value, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The *string form* of a scalar (docs/behaviour.md): strings as-is, numbers as serde_json
/// writes them, `true`/`false`. `null`, arrays and objects have none.
pub fn string_form(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Number(n) => Some(Cow::Owned(number_string(n))),
        Value::Bool(b) => Some(Cow::Borrowed(if *b { "true" } else { "false" })),
        _ => None,
    }
}

/// The primary key a field value yields (R-NORM-3): a non-empty string, or a number's string
/// form. Anything else — missing, `null`, `""`, a boolean, an array or an object — is no pk.
///
/// ```
/// use restcache::schema::pk_string;
/// use serde_json::json;
/// assert_eq!(pk_string(Some(&json!(5))).as_deref(), Some("5"));
/// assert_eq!(pk_string(Some(&json!(""))), None);
/// assert_eq!(pk_string(Some(&json!(true))), None);
/// ```
pub fn pk_string(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(number_string(n)),
        _ => None,
    }
}

/// `n.to_string()`, with integers written by `itoa` instead of the formatting machinery.
/// Negative zero and non-integers take the general path, so the text is always serde_json's.
fn number_string(n: &serde_json::Number) -> String {
    if let Some(u) = n.as_u64() {
        itoa::Buffer::new().format(u).to_owned()
    } else if let Some(i) = n.as_i64().filter(|i| *i < 0) {
        itoa::Buffer::new().format(i).to_owned()
    } else {
        n.to_string()
    }
}

/// Builds an entity's (or object schema's) stored record from its input object.
///
/// The derives call [`plain`](Self::plain) for every plain field (checking that the value
/// deserializes into the field's type) and [`nested`](Self::nested) for every nested-schema
/// field, which replaces the field's value by its normalized form; every other field of the
/// input is kept as-is (R-NORM-5). The record is the input object itself, moved, not copied.
pub struct RecordWriter<'w, 'a> {
    obj: Target<'w>,
    /// Where the last field was found in an entity's record (see [`Fields::get_from`]).
    cursor: usize,
    /// Which of the entity's declared names (by index, sorted) the record was found to hold.
    present: u64,
    ctx: &'w mut NormalizeCtx<'a>,
    entity: Option<&'static str>,
}

/// What a [`RecordWriter`] writes: an entity's record (its fields sorted by name, found with a
/// cursor) or an object schema's JSON map.
enum Target<'w> {
    Fields(&'w mut Fields),
    Map(&'w mut Map<String, Value>),
}

impl<'w, 'a> RecordWriter<'w, 'a> {
    pub(crate) fn new(
        obj: &'w mut Map<String, Value>,
        ctx: &'w mut NormalizeCtx<'a>,
        entity: Option<&'static str>,
    ) -> Self {
        RecordWriter {
            obj: Target::Map(obj),
            cursor: 0,
            present: 0,
            ctx,
            entity,
        }
    }

    /// The field `name`, noting `bit` (its bit among the entity's declared names, sorted; `0`
    /// for none) in the names the record holds.
    fn get(&mut self, name: &str, bit: u64) -> Option<&Value> {
        let value = match &mut self.obj {
            Target::Fields(fields) => fields.get_from(name, &mut self.cursor),
            Target::Map(map) => map.get(name),
        };
        if value.is_some() {
            self.present |= bit;
        }
        value
    }

    /// [`get`](Self::get), for writing the value.
    fn get_mut(&mut self, name: &str, bit: u64) -> Option<&mut Value> {
        let value = match &mut self.obj {
            Target::Fields(fields) => fields.get_mut_from(name, &mut self.cursor),
            Target::Map(map) => map.get_mut(name),
        };
        if value.is_some() {
            self.present |= bit;
        }
        value
    }

    /// The object as the input had it, with `value` put back as the field `name`.
    fn parent_with(&self, name: &str, value: &Value) -> Value {
        let mut copy = match &self.obj {
            Target::Fields(fields) => fields.to_map(),
            Target::Map(map) => (*map).clone(),
        };
        copy.insert(name.to_owned(), value.clone());
        Value::Object(copy)
    }

    /// Checks that the field `name`, when present, deserializes into `T`.
    pub fn plain<T: DeserializeOwned>(&mut self, name: &'static str) -> Result<(), Error> {
        self.plain_with_at(name, 0, |v| T::deserialize(v).map(drop))
    }

    /// [`plain`](Self::plain) for the derives, which also pass the field's bit among the
    /// declared names (`1 << index`, `0` past the 64th): a record found to hold only declared
    /// names is read by index.
    #[doc(hidden)]
    pub fn plain_at<T: DeserializeOwned>(&mut self, name: &'static str, bit: u64) -> Result<(), Error> {
        self.plain_with_at(name, bit, |v| T::deserialize(v).map(drop))
    }

    /// Like [`plain`](Self::plain) with a custom check (`#[serde(deserialize_with = ...)]`).
    pub fn plain_with(
        &mut self,
        name: &'static str,
        check: impl FnOnce(&Value) -> Result<(), serde_json::Error>,
    ) -> Result<(), Error> {
        self.plain_with_at(name, 0, check)
    }

    /// [`plain_with`](Self::plain_with) for the derives (see [`plain_at`](Self::plain_at)).
    #[doc(hidden)]
    pub fn plain_with_at(
        &mut self,
        name: &'static str,
        bit: u64,
        check: impl FnOnce(&Value) -> Result<(), serde_json::Error>,
    ) -> Result<(), Error> {
        let Some(value) = self.get(name, bit) else {
            return Ok(());
        };
        check(value).map_err(|e| Error::Decode {
            url: String::new(),
            content_type: None,
            entity: self.entity.map(str::to_owned),
            position: self.ctx.at(Seg::Key(Cow::Borrowed(name)), |ctx| ctx.pointer()),
            message: e.to_string(),
        })
    }

    /// Normalizes the field `name`, when present, with the nested schema `S`, replacing its
    /// value by the normalized form.
    pub fn nested<S: Schema>(&mut self, name: &'static str) -> Result<(), Error> {
        self.nested_at::<S>(name, 0)
    }

    /// [`nested`](Self::nested) for the derives (see [`plain_at`](Self::plain_at)).
    #[doc(hidden)]
    pub fn nested_at<S: Schema>(&mut self, name: &'static str, bit: u64) -> Result<(), Error> {
        let Some(slot) = self.get_mut(name, bit) else {
            return Ok(());
        };
        let mut value = std::mem::take(slot);
        let parent = if S::PARENT.wanted(self.ctx.entity_depth) {
            Some(self.parent_with(name, &value))
        } else {
            None
        };
        let ctx = &mut *self.ctx;
        let saved = (
            std::mem::replace(&mut ctx.parent, parent),
            ctx.parent_key.replace(name),
            std::mem::replace(&mut ctx.in_list, false),
            ctx.pk_fallback.take(),
        );
        let r = ctx.at(Seg::Key(Cow::Borrowed(name)), |ctx| S::normalize(&mut value, ctx));
        (ctx.parent, ctx.parent_key, ctx.in_list, ctx.pk_fallback) = saved;
        self.cursor = self.cursor.saturating_sub(1);
        if let Some(slot) = self.get_mut(name, bit) {
            // On error, what is left of the value goes back, for the caller to drop.
            *slot = match r {
                Ok(normalized) => normalized,
                Err(e) => {
                    *slot = value;
                    return Err(e);
                }
            };
        }
        Ok(())
    }

    /// The context, for hand-written impls that need more than `plain` and `nested`.
    pub fn ctx(&mut self) -> &mut NormalizeCtx<'a> {
        self.ctx
    }
}

/// Builds the stored record of an object schema with `write` (the derive's field list), taking
/// the object out of `input` (entities use `write_entity_record`).
pub(crate) fn write_record(
    input: &mut Value,
    ctx: &mut NormalizeCtx<'_>,
    write: impl FnOnce(&mut RecordWriter<'_, '_>) -> Result<(), Error>,
) -> Result<Map<String, Value>, Error> {
    let Value::Object(obj) = input else {
        return Err(ctx.invalid(None, format!("expected an object, found {}", kind(input))));
    };
    ctx.check_depth()?;
    write(&mut RecordWriter::new(obj, ctx, None))?;
    Ok(std::mem::take(obj))
}

/// [`write_record`] for an entity: the object is moved into its stored form first, so the
/// derive's fields are found with a cursor over the sorted record instead of a map search each.
fn write_entity_record(
    input: &mut Value,
    ctx: &mut NormalizeCtx<'_>,
    (entity, shape): (&'static str, &'static [&'static str]),
    write: impl FnOnce(&mut RecordWriter<'_, '_>) -> Result<(), Error>,
) -> Result<Fields, Error> {
    let Value::Object(obj) = input else {
        return Err(ctx.invalid(
            Some(entity),
            format!("expected an object for entity {entity}, found {}", kind(input)),
        ));
    };
    ctx.check_depth()?;
    let mut fields = Fields::from_map(std::mem::take(obj));
    let mut writer = RecordWriter {
        obj: Target::Fields(&mut fields),
        cursor: 0,
        present: 0,
        ctx,
        entity: Some(entity),
    };
    let written = write(&mut writer);
    let present = writer.present;
    if let Err(e) = written {
        // What is left goes back, for the caller to drop (a deep remainder is dropped
        // without recursion at the top, not here on the way up).
        *obj = fields.into_map();
        return Err(e);
    }
    fields.mark_shape(shape, present);
    Ok(fields)
}

/// Normalizes one entity: checks its fields, normalizes its nested schemas, and adds its record
/// to the pending writes. Returns its pk.
pub(crate) fn normalize_entity<E: Entity>(input: &mut Value, ctx: &mut NormalizeCtx<'_>) -> Result<String, Error> {
    let fallback = ctx.pk_fallback.take();
    let mut pk = String::new();
    if input.is_object() {
        pk = E::pk(input)
            .filter(|pk| !pk.is_empty())
            // A `Values` map key stands in for a missing pk, but an empty key is no pk either (R-NORM-3).
            .or(fallback.filter(|k| !k.is_empty()))
            .ok_or_else(|| ctx.invalid(Some(E::KEY), "missing or empty primary key"))?;
    }
    ctx.entity_depth += 1;
    let record = write_entity_record(input, ctx, (E::KEY, E::NAMES), E::write_record);
    ctx.entity_depth -= 1;
    ctx.pending.entity(E::KEY, pk.clone(), record?);
    Ok(pk)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number's string form is exactly what serde_json writes for it.
    #[test]
    fn r_norm_3_a_number_pk_is_written_as_serde_json_writes_it() {
        let numbers = [
            "0",
            "7",
            "-1",
            "-0",
            "-0.0",
            "1.5",
            "1e3",
            "1e300",
            "-2.5e-7",
            "18446744073709551615",
            "-9223372036854775808",
            "9223372036854775808",
            "123456789012345678901234567890",
        ];
        for text in numbers {
            let v: Value = serde_json::from_str(text).unwrap();
            let Value::Number(n) = &v else {
                panic!("{text} is a number")
            };
            assert_eq!(number_string(n), n.to_string(), "{text}");
            assert_eq!(pk_string(Some(&v)).as_deref(), Some(n.to_string().as_str()), "{text}");
        }
    }

    /// A list of entities grows the table its first element wrote last, once, wherever that
    /// table is in the batch (rows of other tables are reserved nowhere).
    #[test]
    fn a_list_reserves_rows_in_the_table_written_last() {
        let mut pending = Pending::default();
        for (table, pk) in [("Todo", "0"), ("User", "u"), ("Tag", "t"), ("User", "v")] {
            pending.entity(table, pk.to_owned(), Fields::default());
        }
        pending.reserve_last(1_000);
        let capacity = |name: &str| pending.tables.iter().find(|t| t.name == name).unwrap().rows.capacity();
        assert!(capacity("User") >= 1_002, "{}", capacity("User"));
        assert!(capacity("Todo") < 1_000 && capacity("Tag") < 1_000);
        let names: Vec<&str> = pending.tables.iter().map(|t| t.name).collect();
        assert_eq!(names, ["Todo", "User", "Tag"]);
    }
}
