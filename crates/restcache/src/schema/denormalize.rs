//! Normalized result + tables → typed output (R-READ).
//!
//! A read the memo keeps records what it touched — `(table, row, version)` for records it found,
//! the pk of references it could not resolve, and the tables it enumerated — so the store can
//! tell, without rebuilding anything, whether a memoized output is still current (R-READ-5).
//! Other reads record nothing ([`DenormalizeCtx::untracked`]).

use std::any::Any;

use serde_json::Value;

use crate::schema::{Entity, Schema};
use crate::tables::{Layered, Record, Slot, TableId};

/// A reference that does not resolve: its record is missing or INVALID (R-READ-1).
///
/// Propagated by `?` until a list drops the element or an `Option` turns it into `None`
/// (R-READ-2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unresolved;

/// Entities nested this deep are built shallow (R-READ-3).
const MAX_ENTITY_DEPTH: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SlotDep {
    pub table: TableId,
    pub row: u32,
    pub version: u64,
}

/// What one read depended on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Deps {
    pub slots: Vec<SlotDep>,
    /// References to records that did not exist.
    pub missing: Vec<(&'static str, String)>,
    /// Tables enumerated by `All`, with their [`Layered::version`].
    pub tables: Vec<(&'static str, (u64, u64))>,
}

impl Deps {
    /// Whether every dependency still has the version it had when it was recorded.
    pub fn current(&self, tables: Layered<'_>) -> bool {
        self.slots
            .iter()
            .all(|d| tables.holds(d.table, d.row as usize, d.version))
            && self.missing.iter().all(|(t, pk)| tables.find(t, pk).is_none())
            && self.tables.iter().all(|(t, v)| tables.version(t) == *v)
    }
}

/// The state of one read: the tables it reads and what it has touched.
///
/// Passed to [`Schema::denormalize`]; user code meets it only in hand-written schema impls.
pub struct DenormalizeCtx<'s> {
    pub(crate) tables: Layered<'s>,
    pub(crate) args: &'s Value,
    /// The rows of the entities being built, outermost first: `stack[..depth]`. A fixed array,
    /// so a read allocates nothing for it.
    stack: [(TableId, u32); MAX_ENTITY_DEPTH],
    depth: usize,
    /// Per table (by `id % HINTS`): the row after the last one found there, where the next
    /// lookup is tried before the pk is hashed (see [`slot`](Self::slot)).
    next_rows: [u32; HINTS],
    /// Whether lookups are recorded in `deps` (an untracked read leaves it empty): only a read
    /// whose output the memo keeps needs to know what it depended on
    /// ([`untracked`](Self::untracked)).
    tracked: bool,
    deps: Deps,
    /// Rows read in place of the stored ones: `(table, pk, slot)` ([`pages`](Self::pages)).
    pages: &'s [(&'static str, String, Slot)],
}

/// How many tables' next-row hints a read keeps.
const HINTS: usize = 8;

impl<'s> DenormalizeCtx<'s> {
    /// A read that records what it depends on in `deps`, for the memo.
    pub(crate) fn new(tables: Layered<'s>, args: &'s Value) -> Self {
        DenormalizeCtx {
            tables,
            args,
            stack: [(0, 0); MAX_ENTITY_DEPTH],
            depth: 0,
            next_rows: [0; HINTS],
            tracked: true,
            pages: &[],
            deps: Deps::default(),
        }
    }

    /// A read whose output no memo keeps (what a fetched response describes, the optimistic
    /// layers' existence checks, reads without the memo): it records no dependencies, which
    /// only the memo reads, to check that an entry is current and, in query mode, for the
    /// earliest expiry of the rows it touched (a list of todos notes each todo and its user).
    pub(crate) fn untracked(tables: Layered<'s>, args: &'s Value) -> Self {
        DenormalizeCtx {
            tracked: false,
            ..Self::new(tables, args)
        }
    }

    /// Reads these rows in place of the stored rows of the same table and pk: the lists of a
    /// page as the page alone has them, for the result of its fetch (R-FETCH-5).
    pub(crate) fn pages(mut self, pages: &'s [(&'static str, String, Slot)]) -> Self {
        self.pages = pages;
        self
    }

    /// The args of the read, an object (used by query mode).
    pub fn args(&self) -> &'s Value {
        self.args
    }

    /// What a tracked read depended on, for the memo.
    pub(crate) fn into_deps(self) -> Deps {
        debug_assert!(
            self.tracked,
            "an untracked read's empty deps would look current forever"
        );
        self.deps
    }

    /// Looks a record up by table and pk, recording the dependency (when tracked).
    ///
    /// A list read back in the order it was written finds its entities in consecutive rows, and
    /// one entity often follows itself (ten todos of one user): so the committed row after the
    /// previous find in the same table, then that row itself, are compared with `pk` before the
    /// pk is hashed. A table holds a pk once, so a row whose key is `pk` is the one a hash lookup
    /// finds. A row a pending optimistic layer wrote hides the committed one.
    pub(crate) fn slot(&mut self, table: &'static str, pk: &str) -> Option<(TableId, usize, &'s Slot)> {
        let tables = self.tables;
        let committed = || {
            let id = tables.base.id(table)?;
            let rows = &tables.base.table(id).rows;
            let next = self.next_rows[id as usize % HINTS] as usize;
            let at = |row: usize| rows.get_index(row).filter(|(k, _)| *k == pk).map(|(_, s)| (row, s));
            at(next)
                .or_else(|| next.checked_sub(1).and_then(at))
                .or_else(|| rows.get_full(pk))
                .map(|(row, slot)| (id, row, slot))
        };
        let found = tables.find_layered(table, pk).or_else(committed);
        let found = match (found, self.pages.iter().find(|(t, p, _)| *t == table && p == pk)) {
            (Some((id, row, _)), Some((_, _, page))) => Some((id, row, page)),
            (found, _) => found,
        };
        match found {
            Some((id, row, slot)) => {
                self.next_rows[id as usize % HINTS] = row as u32 + 1;
                if self.tracked {
                    let version = slot.version;
                    self.deps.slots.push(SlotDep {
                        table: id,
                        row: row as u32,
                        version,
                    });
                }
                Some((id, row, slot))
            }
            None => {
                if self.tracked {
                    self.deps.missing.push((table, pk.to_owned()));
                }
                None
            }
        }
    }

    /// Records a dependency on a whole table (its set of rows, when tracked), for `All`. Returns
    /// whether it exists.
    pub(crate) fn enumerate(&mut self, table: &'static str) -> bool {
        if self.tracked {
            self.deps.tables.push((table, self.tables.version(table)));
        }
        self.tables.exists(table)
    }

    /// Builds an entity from a row, shallow when it is already on the path or too deep.
    pub(crate) fn read_slot<E: Entity>(&mut self, table: TableId, row: usize, slot: &'s Slot) -> Result<E, Unresolved> {
        let Record::Entity(stored) = &slot.record else {
            return Err(Unresolved);
        };
        let Some(stored) = (&**stored as &dyn Any).downcast_ref::<E::Row>() else {
            // The registry refuses two types with one key, so this is not reached.
            tracing::warn!(entity = E::KEY, "stored row is of another type");
            return Err(Unresolved);
        };
        let at = (table, row as u32);
        let shallow = self.depth >= MAX_ENTITY_DEPTH || self.stack[..self.depth].contains(&at);
        if !shallow {
            self.stack[self.depth] = at;
            self.depth += 1;
        }
        let r = E::read(stored, &mut EntityReader { ctx: self, shallow });
        self.depth -= usize::from(!shallow);
        r
    }

    /// Resolves an entity reference.
    pub(crate) fn read_entity<E: Entity>(&mut self, pk: &str) -> Result<E, Unresolved> {
        let (table, row, slot) = self.slot(E::KEY, pk).ok_or(Unresolved)?;
        self.read_slot(table, row, slot)
    }
}

/// Reads the nested fields of a stored row; what an [`Entity::read`] (and an object schema's
/// [`Schema::denormalize`]) is written with.
///
/// `#[derive(Entity)]` writes `read` with it; by hand, over a row whose nested field holds its
/// normalized form (for an entity, an [`EntityRef`](crate::schema::EntityRef)):
///
/// ```
/// use restcache::schema::{Entity, EntityReader, EntityRef, Unresolved};
/// # #[derive(Clone, Debug, Default, restcache::Entity)]
/// # struct User { #[entity(pk)] id: String }
/// fn read_author<'s>(author: &'s Option<EntityRef>, r: &mut EntityReader<'_, 's>) -> Result<User, Unresolved> {
///     Ok(r.nested::<User>(author)?.unwrap_or_default())
/// }
/// ```
pub struct EntityReader<'r, 's> {
    pub(crate) ctx: &'r mut DenormalizeCtx<'s>,
    shallow: bool,
}

impl<'r, 's> EntityReader<'r, 's> {
    /// The reader of an object schema's row: never shallow.
    pub(crate) fn object(ctx: &'r mut DenormalizeCtx<'s>) -> Self {
        EntityReader { ctx, shallow: false }
    }

    /// The nested-schema field whose normalized form is `stored`, denormalized with `S`.
    /// `Ok(None)` when the row lacks it, or when this entity is built shallow (R-READ-3); an
    /// unresolved reference is `Err` (R-READ-2).
    pub fn nested<S: Schema>(&mut self, stored: &'s Option<S::Stored>) -> Result<Option<S::Output>, Unresolved> {
        match stored {
            Some(v) if !self.shallow => S::denormalize(v, self.ctx).map(Some),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Store;
    use crate::schema::{All, Entity};

    #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
    struct Owner {
        #[entity(pk)]
        id: u32,
        name: String,
    }

    #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
    struct Task {
        #[entity(pk)]
        id: u32,
        #[entity(schema)]
        owner: Option<Owner>,
    }

    /// Reads the tasks, every owner (`All`) and a pk no owner has, and returns what was read
    /// with what the context recorded.
    fn read_all<'s>(
        stored: &'s Vec<crate::schema::EntityRef>,
        mut ctx: DenormalizeCtx<'s>,
    ) -> (Vec<Task>, Vec<Owner>, Deps) {
        let list = <Vec<Task> as Schema>::denormalize(stored, &mut ctx).unwrap();
        let all = <All<Owner> as Schema>::query(&mut ctx).unwrap().unwrap();
        assert!(ctx.slot(Owner::KEY, "absent").is_none());
        (list, all, ctx.deps)
    }

    /// R-READ-5: a read the memo keeps records every row it depends on (each task and each
    /// task's owner), each pk it found no row for, and each table it enumerated (`All`), so that
    /// a change to any of them is seen; a read no memo keeps (`untracked`) builds the same output
    /// and records none of them.
    #[test]
    fn r_read_5_only_a_read_the_memo_keeps_records_what_it_depends_on() {
        let tasks: Vec<Value> = (0..4)
            .map(|i| json!({"id": i, "owner": {"id": i % 2, "name": format!("o{}", i % 2)}}))
            .collect();
        let mut store = Store::new();
        store
            .set_response::<Vec<Task>>("GET /tasks", &(), Value::Array(tasks))
            .unwrap();
        let (tables, args) = (store.read_tables(), json!({}));
        let stored = store.read_result("GET /tasks").unwrap().typed().unwrap();

        let (list, owners, deps) = read_all(stored, DenormalizeCtx::new(tables, &args));
        assert_eq!(list.len(), 4);
        assert_eq!(list[3].owner.as_ref().unwrap().name, "o1");
        assert_eq!(owners.len(), 2);
        assert_eq!(deps.slots.len(), 8, "each task and each task's owner");
        assert_eq!(deps.missing, vec![(Owner::KEY, "absent".to_owned())]);
        assert_eq!(deps.tables.len(), 1, "the owners' table, enumerated");
        assert!(deps.current(tables));

        let (untracked_list, untracked_owners, untracked_deps) =
            read_all(stored, DenormalizeCtx::untracked(tables, &args));
        assert_eq!(untracked_list, list);
        assert_eq!(untracked_owners, owners);
        assert_eq!(untracked_deps, Deps::default());

        store
            .set_response::<Owner>("GET /owners/1", &(), json!({"id": 1, "name": "O."}))
            .unwrap();
        assert!(
            !deps.current(store.read_tables()),
            "an owner the tasks reference changed"
        );
    }
}
