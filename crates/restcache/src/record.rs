//! The stored form of an entity's fields: sorted by name, one allocation per record.
//!
//! A `serde_json::Map` (a `BTreeMap`) costs a ~630-byte node per record however few its fields,
//! and a heap key per field. [`Fields`] holds the fields in one allocation, in the order the map
//! would have them. A record parsed from bytes with exactly the fields its derive declares holds
//! only its values and shares the derive's sorted list of names; any other record holds
//! `(name, value)` pairs, whose declared names are `&'static str`, never allocated. (A record
//! moved in from a `Value` keeps the map's own key strings as its names: dropping them to share
//! the declared list was measured to slow normalization at 100,000 todos about twofold.)
//!
//! A record whose names are some of its derive's declared names and no other, in either form,
//! is read by index in the declared list ([`Fields::indexed`]): the derives' readers pass each
//! field's index, and no name is compared. A pairs record knows which of the list's names it
//! holds by a bit each, which its writer set as it found them.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::{Map, Value};

/// A field name: a derive's `&'static str`, or a name only the response had.
pub(crate) type Name = Cow<'static, str>;

/// Whether a stored name is `name`: by address first (a derive's name literal is usually the
/// very string its record was written with), then by text.
#[inline]
fn same_name(stored: &str, name: &str) -> bool {
    std::ptr::eq(stored, name) || stored == name
}

/// Whether a `serde_json::Map` iterates in name order: it does unless some crate in the build
/// turns on serde_json's `preserve_order` feature (insertion order), which is checked once.
fn map_is_sorted() -> bool {
    static SORTED: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        let mut probe = Map::new();
        probe.insert("b".to_owned(), Value::Null);
        probe.insert("a".to_owned(), Value::Null);
        probe.keys().next().is_some_and(|k| k == "a")
    });
    *SORTED
}

/// An entity record: its fields sorted by name, each name once.
#[derive(Clone, Debug)]
pub(crate) enum Fields {
    /// Exactly the fields a derive declares: `names` is the derive's sorted list, shared by
    /// every record that has all of them and no other, so the record holds only its values.
    Shaped {
        names: &'static [&'static str],
        values: Box<[Value]>,
    },
    /// Any other set of fields, as `(name, value)` pairs. When the pairs' names are some of a
    /// derive's declared names and no other (a record moved in from a `Value`, or one lacking an
    /// optional field), `shape` names that list and bit `i` of `present` says whether it holds
    /// the list's `i`-th name: a derive's reader then takes its fields by index
    /// ([`indexed`](Fields::indexed)). Otherwise `shape` is [`ShapeId::NONE`].
    Pairs {
        pairs: Box<[(Name, Value)]>,
        shape: ShapeId,
        present: u64,
    },
}

/// Which derive's list of declared names a record's pairs are some of, in 8 bytes (so a
/// `Record` stays 40 bytes, as before): the address of the list's first name. The derives make
/// each list a `static`, so one list has one address and two lists never share one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ShapeId(&'static &'static str);

/// What [`ShapeId::NONE`] points at.
static NO_SHAPE: &str = "";

impl ShapeId {
    /// No list: the pairs are read by name.
    const NONE: ShapeId = ShapeId(&NO_SHAPE);

    fn of(shape: &'static [&'static str]) -> ShapeId {
        shape.first().map_or(Self::NONE, ShapeId)
    }

    fn is_none(self) -> bool {
        std::ptr::eq(self.0, &NO_SHAPE)
    }

    /// Whether this names `shape` (never when `shape` is empty).
    fn is(self, shape: &'static [&'static str]) -> bool {
        shape.first().is_some_and(|first| std::ptr::eq(self.0, first))
    }
}

/// The values of a record whose names are some of a derive's declared names and no other, by
/// their index in that sorted list ([`Fields::indexed`]).
#[derive(Clone, Copy)]
pub(crate) enum Indexed<'a> {
    /// Every declared name.
    Values(&'a [Value]),
    /// The declared names whose bits are set in `present`; `0` when the pairs are every
    /// declared name (or none), so that they are found by index without counting bits.
    Pairs { pairs: &'a [(Name, Value)], present: u64 },
}

impl<'a> Indexed<'a> {
    /// The value of the `i`-th declared name, if the record holds it.
    #[inline(always)]
    pub fn get(self, i: usize) -> Option<&'a Value> {
        match self {
            Indexed::Values(values) => values.get(i),
            Indexed::Pairs { pairs, present: 0 } => pairs.get(i).map(|(_, v)| v),
            Indexed::Pairs { pairs, present } => {
                let bit = 1u64.checked_shl(i as u32)?;
                if present & bit == 0 {
                    return None;
                }
                // The pairs hold the present names in order: this one comes after as many
                // pairs as there are present names before it.
                pairs.get((present & (bit - 1)).count_ones() as usize).map(|(_, v)| v)
            }
        }
    }
}

/// The most names a record's `present` bits can follow.
const MAX_SHAPE: usize = u64::BITS as usize;

/// The `present` bits of every name of `shape`.
fn every(shape: &[&str]) -> u64 {
    u64::MAX >> (MAX_SHAPE - shape.len().clamp(1, MAX_SHAPE))
}

/// Which names of `shape` the sorted, distinct `names` are (bit `i`: `shape[i]`), when they are
/// some of those and no other; `None` when one is not, or when `shape` is empty. Of a list too
/// long for the bits, only all of it is told (as every bit).
fn subset_of<'n>(names: impl ExactSizeIterator<Item = &'n str>, shape: &[&str]) -> Option<u64> {
    if shape.is_empty() {
        return None;
    }
    if shape.len() > MAX_SHAPE {
        let exact = names.len() == shape.len() && names.zip(shape).all(|(k, s)| same_name(k, s));
        return exact.then_some(u64::MAX);
    }
    let mut present = 0;
    let mut at = 0;
    for name in names {
        // Both lists are sorted: `name` is at or after the previous one's place in `shape`.
        loop {
            let declared = shape.get(at)?;
            at += 1;
            if same_name(name, declared) {
                present |= 1 << (at - 1);
                break;
            }
        }
    }
    Some(present)
}

impl Default for Fields {
    fn default() -> Self {
        Fields::Pairs {
            pairs: Box::default(),
            shape: ShapeId::NONE,
            present: 0,
        }
    }
}

impl PartialEq for Fields {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Fields::Shaped { names: a, values: x }, Fields::Shaped { names: b, values: y })
                if std::ptr::eq(*a, *b) =>
            {
                x == y
            }
            (Fields::Pairs { pairs: a, .. }, Fields::Pairs { pairs: b, .. }) => a == b,
            _ => self.len() == other.len() && self.iter().eq(other.iter()),
        }
    }
}

impl Fields {
    /// The fields of `entries`, in any order; of a repeated name, the last value is kept. When
    /// they are exactly the names of `shape` (a derive's declared names, sorted), the record
    /// shares `shape` and holds only the values.
    pub fn from_entries(mut entries: Vec<(Name, Value)>, shape: &'static [&'static str]) -> Self {
        Self::from_buffer(&mut entries, shape)
    }

    /// [`from_entries`](Self::from_entries) of the pairs in `entries`, which is left empty
    /// (with its capacity) for the next record; the record is allocated at its size.
    pub fn from_buffer(entries: &mut Vec<(Name, Value)>, shape: &'static [&'static str]) -> Self {
        if !entries.is_sorted_by(|a, b| a.0 < b.0) {
            // Stable: repeats keep their document order; of each run the last value moves into
            // the first entry, which is the one `dedup_by` keeps.
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            entries.dedup_by(|later, kept| {
                let repeat = later.0 == kept.0;
                if repeat {
                    std::mem::swap(&mut later.1, &mut kept.1);
                }
                repeat
            });
        }
        let present = subset_of(entries.iter().map(|(k, _)| k.as_ref()), shape);
        if present == Some(every(shape)) {
            Fields::Shaped {
                names: shape,
                values: entries.drain(..).map(|(_, v)| v).collect(),
            }
        } else {
            // Moved into an allocation of their size; `entries` keeps its capacity.
            let mut pairs = Vec::with_capacity(entries.len());
            pairs.append(entries);
            Self::pairs(pairs, shape, present)
        }
    }

    /// Pairs that are the names `present` of `shape` (`None`: not known to be some of them).
    fn pairs(pairs: Vec<(Name, Value)>, shape: &'static [&'static str], present: Option<u64>) -> Self {
        // Every caller's pairs fill their allocation: boxing them reallocates nothing.
        let pairs = pairs.into_boxed_slice();
        match present {
            Some(present) => Fields::Pairs {
                pairs,
                shape: ShapeId::of(shape),
                present,
            },
            None => Fields::Pairs {
                pairs,
                shape: ShapeId::NONE,
                present: 0,
            },
        }
    }

    /// The fields of a JSON object, its keys moved.
    pub fn from_map(map: Map<String, Value>) -> Self {
        // At its size (`collect` would give a 2-field map room for 4, and boxing would then
        // reallocate).
        let mut entries = Vec::with_capacity(map.len());
        entries.extend(map.into_iter().map(|(k, v)| (Cow::Owned(k), v)));
        if map_is_sorted() {
            Self::pairs(entries, &[], None)
        } else {
            Self::from_entries(entries, &[])
        }
    }

    /// Marks pairs whose names a writer found to be the names `present` of `shape` (a derive's
    /// declared names, sorted; bit `i`: `shape[i]`) as those, so that reads find their fields by
    /// index ([`indexed`](Self::indexed)). A record moved in from a `Value` keeps the map's key
    /// strings: dropping them instead, to share `shape`, was measured to slow normalization
    /// about twofold. Nothing is marked unless the pairs are exactly that many.
    #[inline]
    pub fn mark_shape(&mut self, shape: &'static [&'static str], present: u64) {
        if let Fields::Pairs {
            pairs,
            shape: own,
            present: own_present,
        } = self
            && !shape.is_empty()
            && shape.len() <= MAX_SHAPE
            && present.count_ones() as usize == pairs.len()
        {
            (*own, *own_present) = (ShapeId::of(shape), present);
        }
    }

    /// The values by index into `shape` (a derive's declared names, sorted), when this record's
    /// names are known to be some of those and no other.
    #[inline]
    pub fn indexed(&self, shape: &'static [&'static str]) -> Option<Indexed<'_>> {
        match self {
            // One list, one address: the derives make it a `static` (as for `ShapeId`).
            Fields::Shaped { names, values } if std::ptr::eq(*names, shape) => Some(Indexed::Values(values)),
            Fields::Pairs {
                pairs,
                shape: own,
                present,
            } if own.is(shape) => Some(Indexed::Pairs {
                pairs,
                // As many as the declared names: all of them, in their order.
                present: if pairs.len() == shape.len() { 0 } else { *present },
            }),
            _ => None,
        }
    }

    /// The declared names this record's names are known to be some of, and which (none known
    /// of a list too long for `present`).
    fn shape(&self) -> (ShapeId, u64) {
        match self {
            Fields::Shaped { names, .. } if names.len() <= MAX_SHAPE => (ShapeId::of(names), every(names)),
            Fields::Shaped { .. } => (ShapeId::NONE, 0),
            Fields::Pairs { shape, present, .. } => (*shape, *present),
        }
    }

    fn len(&self) -> usize {
        match self {
            Fields::Shaped { values, .. } => values.len(),
            Fields::Pairs { pairs, .. } => pairs.len(),
        }
    }

    /// The fields in name order.
    fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        let (shaped, pairs) = match self {
            Fields::Shaped { names, values } => (Some(names.iter().copied().zip(values.iter())), None),
            Fields::Pairs { pairs, .. } => (None, Some(pairs.iter().map(|(k, v)| (k.as_ref(), v)))),
        };
        shaped.into_iter().flatten().chain(pairs.into_iter().flatten())
    }

    /// The index of field `name`: a scan that compares lengths before bytes, cheaper than a
    /// binary search over a record's few fields.
    fn position(&self, name: &str) -> Option<usize> {
        match self {
            Fields::Shaped { names, .. } => names.iter().position(|k| same_name(k, name)),
            Fields::Pairs { pairs, .. } => pairs.iter().position(|(k, _)| same_name(k, name)),
        }
    }

    fn value(&self, i: usize) -> &Value {
        match self {
            Fields::Shaped { values, .. } => &values[i],
            Fields::Pairs { pairs, .. } => &pairs[i].1,
        }
    }

    /// The fields as `(name, value)` pairs, moved.
    fn into_pairs(self) -> Vec<(Name, Value)> {
        match self {
            Fields::Shaped { names, values } => {
                names.iter().map(|n| Cow::Borrowed(*n)).zip(values.into_vec()).collect()
            }
            Fields::Pairs { pairs, .. } => pairs.into_vec(),
        }
    }

    /// The fields as a JSON object, copied.
    pub fn to_map(&self) -> Map<String, Value> {
        self.iter().map(|(k, v)| (k.to_owned(), v.clone())).collect()
    }

    /// The fields as a JSON object, moved.
    pub fn into_map(self) -> Map<String, Value> {
        self.into_pairs()
            .into_iter()
            .map(|(k, v)| (k.into_owned(), v))
            .collect()
    }

    /// The value of the field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.position(name).map(|i| self.value(i))
    }

    /// [`get`](Self::get) for a reader that asks for several fields in name order: the field
    /// at `cursor` (just after the previous find) is tried first, so reads in name order find
    /// each field at once. Any order still finds every field.
    #[inline(always)]
    pub fn get_from(&self, name: &str, cursor: &mut usize) -> Option<&Value> {
        match self {
            Fields::Shaped { names, values } => find_from(names, |k| k, name, cursor).map(|i| &values[i]),
            Fields::Pairs { pairs, .. } => find_from(pairs, |(k, _)| k, name, cursor).map(|i| &pairs[i].1),
        }
    }

    /// [`get_from`](Self::get_from), for writing the value.
    pub fn get_mut_from(&mut self, name: &str, cursor: &mut usize) -> Option<&mut Value> {
        match self {
            Fields::Shaped { names, values } => find_from(names, |k| k, name, cursor).map(|i| &mut values[i]),
            Fields::Pairs { pairs, .. } => find_from(pairs, |(k, _)| k, name, cursor).map(|i| &mut pairs[i].1),
        }
    }

    #[cfg(test)]
    fn is_sorted_by_name(&self) -> bool {
        self.iter().is_sorted_by(|a, b| a.0 < b.0)
    }

    /// Writes `later`'s fields over these: a field of `later` replaces the same-named one
    /// unless `keep(stored, later)` says to keep the stored value; a name these lack is always
    /// added. Returns whether anything changed. One ordered walk of both.
    pub fn merge(&mut self, later: Fields, keep: impl Fn(&Value, &Value) -> bool) -> bool {
        let later = match (&mut *self, later) {
            (
                Fields::Shaped { names, values },
                Fields::Shaped {
                    names: same,
                    values: new,
                },
            ) if std::ptr::eq(*names, same) => {
                // The same names: value by value.
                let mut changed = false;
                for (old, value) in values.iter_mut().zip(new.into_vec()) {
                    if !keep(old, &value) {
                        *old = value;
                        changed = true;
                    }
                }
                return changed;
            }
            (_, later) => later,
        };
        // Two records of some of one derive's names merge into a record of the names of either.
        let ((own, mine), (theirs, their)) = (self.shape(), later.shape());
        let same = !own.is_none() && std::ptr::eq(own.0, theirs.0);
        let mut pairs = std::mem::take(self).into_pairs();
        let changed = merge_pairs(&mut pairs, later.into_pairs(), keep);
        *self = match same {
            true => Fields::Pairs {
                pairs: pairs.into_boxed_slice(),
                shape: own,
                present: mine | their,
            },
            false => Self::pairs(pairs, &[], None),
        };
        changed
    }
}

/// The index of the field `name` among `fields` (named by `key`) for a reader that asks for
/// several in name order: the one at `cursor` (just after the previous find) is tried first;
/// `cursor` moves past the field found.
#[inline(always)]
fn find_from<T>(fields: &[T], key: impl Fn(&T) -> &str, name: &str, cursor: &mut usize) -> Option<usize> {
    let i = match fields.get(*cursor) {
        Some(f) if same_name(key(f), name) => *cursor,
        // A plain loop rather than `position`, which the compiler may leave out of line.
        _ => {
            let mut found = None;
            for (i, f) in fields.iter().enumerate() {
                if same_name(key(f), name) {
                    found = Some(i);
                    break;
                }
            }
            found?
        }
    };
    *cursor = i + 1;
    Some(i)
}

/// [`Fields::merge`] of two sorted pair lists.
fn merge_pairs(
    pairs: &mut Vec<(Name, Value)>,
    later: Vec<(Name, Value)>,
    keep: impl Fn(&Value, &Value) -> bool,
) -> bool {
    // Names already here are replaced in place; new ones are merged in at the end.
    let mut changed = false;
    let mut added: Vec<(Name, Value)> = Vec::new();
    let mut i = 0;
    for (name, value) in later {
        while i < pairs.len() && pairs[i].0.as_ref() < name.as_ref() {
            i += 1;
        }
        match pairs.get_mut(i) {
            Some((k, old)) if k.as_ref() == name.as_ref() => {
                if !keep(old, &value) {
                    *old = value;
                    changed = true;
                }
                i += 1;
            }
            _ => added.push((name, value)),
        }
    }
    if !added.is_empty() {
        changed = true;
        let old = std::mem::take(pairs);
        let mut merged = Vec::with_capacity(old.len() + added.len());
        let mut added = added.into_iter().peekable();
        for entry in old {
            while let Some(new) = added.next_if(|new| new.0.as_ref().cmp(entry.0.as_ref()) == Ordering::Less) {
                merged.push(new);
            }
            merged.push(entry);
        }
        merged.extend(added);
        *pairs = merged;
    }
    changed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(pairs: &[(&'static str, Value)]) -> Fields {
        Fields::from_entries(pairs.iter().map(|(k, v)| (Cow::Borrowed(*k), v.clone())).collect(), &[])
    }

    fn map(fields: &Fields) -> Value {
        Value::Object(fields.to_map())
    }

    /// R-NORM-6: of a name repeated in one object, the last value is kept; the record is the
    /// same map the JSON object would be, whatever order its fields came in.
    #[test]
    fn r_norm_6_a_repeated_name_keeps_its_last_value_in_name_order() {
        let f = fields(&[
            ("b", json!(1)),
            ("a", json!(2)),
            ("b", json!(3)),
            ("c", json!(4)),
            ("b", json!(5)),
        ]);
        assert_eq!(map(&f), json!({"a": 2, "b": 5, "c": 4}));
        let object = json!({"c": 4, "b": 5, "a": 2});
        let from_map = Fields::from_map(object.as_object().unwrap().clone());
        assert_eq!(f, from_map);
        // Sorted whatever order the map iterates in (serde_json's `preserve_order`).
        assert!(from_map.is_sorted_by_name());
        assert_eq!(f.get("b"), Some(&json!(5)));
        assert_eq!(f.get("d"), None);
        assert_eq!(f.get(""), None);
    }

    /// R-NORM-6/7/9: a merge adds new names in order, replaces unless `keep` says not to, and
    /// reports whether anything changed.
    #[test]
    fn r_norm_7_a_merge_adds_in_order_replaces_unless_kept_and_reports_a_change() {
        let mut f = fields(&[("b", json!(1)), ("d", json!(2))]);
        let changed = f.merge(
            fields(&[("a", json!(0)), ("b", json!(9)), ("c", json!(5)), ("e", json!(7))]),
            |_, _| false,
        );
        assert!(changed);
        assert_eq!(map(&f), json!({"a": 0, "b": 9, "c": 5, "d": 2, "e": 7}));
        assert!(f.is_sorted_by_name());

        // Older: existing names keep their values, but a name the record lacks is added.
        let changed = f.merge(fields(&[("b", json!(1)), ("f", json!(1))]), |_, _| true);
        assert!(changed);
        assert_eq!(map(&f), json!({"a": 0, "b": 9, "c": 5, "d": 2, "e": 7, "f": 1}));

        // Equal values change nothing.
        let same = f.clone();
        assert!(!f.merge(fields(&[("a", json!(0)), ("f", json!(1))]), |old, new| old == new));
        assert_eq!(f, same);
    }

    /// R-NORM-5: a read overlays every field the record holds, whatever order the reader asks
    /// for them in, and finds nothing for a name the record lacks (the cursor only decides
    /// where the search starts); a writer checking the fields finds them the same way.
    #[test]
    fn r_norm_5_a_read_finds_every_field_in_any_order() {
        let f = fields(&[("a", json!(1)), ("b", json!(2)), ("c", json!(3)), ("d", json!(4))]);
        let orders: [&[&str]; 4] = [
            &["a", "b", "c", "d"],
            &["d", "c", "b", "a"],
            &["b", "x", "d", "a", "c"],
            &["c", "a", "", "d", "b", "aa"],
        ];
        for order in orders {
            let (mut cursor, mut cursor_mut) = (0, 0);
            let mut g = f.clone();
            for name in order {
                assert_eq!(f.get_from(name, &mut cursor), f.get(name), "{name} in {order:?}");
                // Writers find fields the same way.
                assert_eq!(
                    g.get_mut_from(name, &mut cursor_mut).cloned(),
                    f.get(name).cloned(),
                    "{name} in {order:?}"
                );
                assert_eq!(cursor_mut, cursor);
            }
        }
        // Names built at run time (not the literals the record was written with) match too.
        let mut cursor = 3;
        assert_eq!(f.get_from(&String::from("b"), &mut cursor), Some(&json!(2)));
        assert_eq!(cursor, 2);
        assert_eq!(Fields::default().get_from("a", &mut 0), None);
    }

    /// R-NORM-5/6: a record with exactly a derive's declared names shares them (holding only its
    /// values); any other set of names is kept as pairs. Both forms hold, find, compare and
    /// merge the same fields.
    #[test]
    fn r_norm_6_a_record_of_exactly_the_declared_names_shares_them() {
        static SHAPE: [&str; 3] = ["a", "b", "c"];
        let entries = |pairs: &[(&'static str, Value)]| -> Vec<(Name, Value)> {
            pairs.iter().map(|(k, v)| (Cow::Borrowed(*k), v.clone())).collect()
        };
        let exact = Fields::from_entries(entries(&[("c", json!(3)), ("a", json!(1)), ("b", json!(2))]), &SHAPE);
        assert!(matches!(&exact, Fields::Shaped { names, .. } if std::ptr::eq(*names, &SHAPE[..])));
        let pairs = fields(&[("a", json!(1)), ("b", json!(2)), ("c", json!(3))]);
        assert!(matches!(pairs, Fields::Pairs { .. }));
        assert_eq!(exact, pairs);
        assert_eq!(pairs, exact);
        assert_eq!(map(&exact), json!({"a": 1, "b": 2, "c": 3}));
        assert_eq!(exact.get("b"), Some(&json!(2)));
        assert_eq!(exact.get_from("c", &mut 0), Some(&json!(3)));
        assert_eq!(exact.get("d"), None);
        assert_ne!(exact, fields(&[("a", json!(1)), ("b", json!(2)), ("c", json!(4))]));

        // A subset or an unknown name: pairs. The declared names, wherever their text is: shared.
        let subset = Fields::from_entries(entries(&[("a", json!(1)), ("c", json!(3))]), &SHAPE);
        let other = Fields::from_entries(entries(&[("a", json!(1)), ("b", json!(2)), ("d", json!(3))]), &SHAPE);
        let owned = vec![
            (Cow::Owned("a".to_owned()), json!(1)),
            (Cow::Borrowed("b"), json!(2)),
            (Cow::Borrowed("c"), json!(3)),
        ];
        assert!(matches!(subset, Fields::Pairs { .. }));
        assert!(matches!(other, Fields::Pairs { .. }));
        let spelled = Fields::from_entries(owned, &SHAPE);
        assert!(matches!(spelled, Fields::Shaped { .. }));
        assert_eq!(spelled, exact);

        // Merges: shared names value by value; anything else by name.
        let mut same = exact.clone();
        let later = Fields::from_entries(entries(&[("a", json!(1)), ("b", json!(9)), ("c", json!(3))]), &SHAPE);
        assert!(same.merge(later.clone(), |_, _| false));
        assert_eq!(map(&same), json!({"a": 1, "b": 9, "c": 3}));
        let mut kept = exact.clone();
        assert!(!kept.merge(later, |_, _| true));
        assert_eq!(kept, exact);
        let mut grown = exact.clone();
        assert!(grown.merge(fields(&[("b", json!(5)), ("d", json!(4))]), |_, _| false));
        assert_eq!(map(&grown), json!({"a": 1, "b": 5, "c": 3, "d": 4}));
        assert!(grown.is_sorted_by_name());
    }

    /// Every name of `shape` read by index agrees with the same name found by name.
    fn agrees(f: &Fields, shape: &'static [&'static str]) -> bool {
        let Some(indexed) = f.indexed(shape) else {
            return false;
        };
        shape.iter().enumerate().all(|(i, name)| indexed.get(i) == f.get(name))
    }

    /// The `present` bits a writer finds for the names of `f` among `shape`.
    fn bits(f: &Fields, shape: &[&str]) -> u64 {
        let at = |name: &str| shape.iter().position(|s| *s == name);
        f.iter().filter_map(|(k, _)| at(k)).map(|i| 1u64 << i).sum()
    }

    /// R-NORM-5: a record whose names are some of a derive's declared names and no other is read
    /// by index in that list, only in that list, and reads as by name; merges keep it so when
    /// both sides are; a list too long for the bits is indexed only when whole.
    #[test]
    fn r_norm_5_a_record_of_some_declared_names_reads_by_index_as_by_name() {
        static SHAPE: [&str; 4] = ["a", "b", "c", "d"];
        static SAME_TEXT: [&str; 4] = ["a", "b", "c", "d"];
        let object = |pairs: &[(&str, Value)]| -> Map<String, Value> {
            pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
        };
        let marked = |pairs: &[(&str, Value)]| {
            let mut f = Fields::from_map(object(pairs));
            f.mark_shape(&SHAPE, bits(&f, &SHAPE));
            f
        };
        let subsets: [&[(&str, Value)]; 5] = [
            &[],
            &[("b", json!(2))],
            &[("a", json!(1)), ("d", json!(4))],
            &[("b", json!(2)), ("c", json!(3)), ("d", json!(4))],
            &[("a", json!(1)), ("b", json!(2)), ("c", json!(3)), ("d", json!(4))],
        ];
        for pairs in subsets {
            let f = marked(pairs);
            assert!(agrees(&f, &SHAPE), "{pairs:?}");
            // Another list, even of the same names, is not the one the bits count in.
            assert!(f.indexed(&SAME_TEXT).is_none() && f.indexed(&[]).is_none(), "{pairs:?}");
            let entries = pairs
                .iter()
                .map(|(k, v)| (Cow::Owned((*k).to_owned()), v.clone()))
                .collect();
            let written = Fields::from_entries(entries, &SHAPE);
            assert!(agrees(&written, &SHAPE), "{pairs:?}");
            assert!(written.indexed(&SAME_TEXT).is_none(), "{pairs:?}");
        }
        // A name not declared, or bits that do not count every pair: read by name only.
        let extra = marked(&[("a", json!(1)), ("e", json!(5))]);
        assert!(extra.indexed(&SHAPE).is_none());
        let mut short = Fields::from_map(object(&[("a", json!(1)), ("b", json!(2))]));
        short.mark_shape(&SHAPE, 0b01);
        assert!(short.indexed(&SHAPE).is_none());

        // Merges: two marked records give the union, marked; an unmarked side unmarks it.
        let mut f = marked(&[("b", json!(2))]);
        f.merge(marked(&[("a", json!(1)), ("d", json!(4))]), |_, _| false);
        assert!(agrees(&f, &SHAPE));
        assert_eq!(map(&f), json!({"a": 1, "b": 2, "d": 4}));
        let whole = Fields::from_entries(SHAPE.iter().map(|k| (Cow::Borrowed(*k), json!(k))).collect(), &SHAPE);
        assert!(matches!(whole, Fields::Shaped { .. }));
        f.merge(whole, |_, _| false);
        assert!(agrees(&f, &SHAPE));
        f.merge(fields(&[("e", json!(5))]), |_, _| false);
        assert!(f.indexed(&SHAPE).is_none());
        assert_eq!(f.get("e"), Some(&json!(5)));

        // 70 names: more than the bits. Only the whole list is indexed, and it stays correct
        // through merges.
        let long: &'static [&'static str] = Vec::leak((0..70).map(|i| &*String::leak(format!("n{i:02}"))).collect());
        let all = || long.iter().map(|k| (Cow::Borrowed(*k), json!(k))).collect::<Vec<_>>();
        let exact = Fields::from_entries(all(), long);
        assert!(agrees(&exact, long));
        let mut lacking = all();
        lacking.remove(3);
        let lacking = Fields::from_entries(lacking, long);
        assert!(lacking.indexed(long).is_none());
        let mut merged = lacking.clone();
        merged.merge(exact.clone(), |_, _| false);
        assert!(merged.indexed(long).is_none_or(|_| agrees(&merged, long)));
        assert_eq!(merged, exact);
        let mut marked_long = Fields::from_map(object(&[(long[1], json!(1))]));
        marked_long.mark_shape(long, bits(&marked_long, long));
        assert!(
            marked_long.indexed(long).is_none(),
            "bits of a list they cannot all count"
        );
    }
}
