//! The stored form of an entity's fields: sorted by name, one allocation per record.
//!
//! A `serde_json::Map` (a `BTreeMap`) costs a ~630-byte node per record however few its fields,
//! and a heap key per field. [`Fields`] holds the fields in one allocation, in the order the map
//! would have them. A record parsed from bytes with exactly the fields its derive declares holds
//! only its values and shares the derive's sorted list of names; any other record holds
//! `(name, value)` pairs, whose declared names are `&'static str`, never allocated. (A record
//! moved in from a `Value` keeps the map's own key strings as its names: dropping them to share
//! the declared list was measured to slow normalization at 100,000 todos about twofold.)

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::{Map, Value};

/// A field name: a derive's `&'static str`, or a name only the response had.
pub(crate) type Name = Cow<'static, str>;

/// Whether a stored name is `name`: lengths first, then the address (a derive's name literal
/// is usually the very string its record was written with), then the bytes.
#[inline]
fn same_name(stored: &str, name: &str) -> bool {
    stored.len() == name.len() && (std::ptr::eq(stored.as_ptr(), name.as_ptr()) || same_bytes(stored, name))
}

/// `a == b` for strings, without a call to `memcmp` when they are at most 16 bytes long (field
/// names and most primary keys): two overlapping word loads from each end.
#[inline(always)]
pub(crate) fn same_bytes(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let word8 = |s: &[u8], at: usize| {
        let mut word = [0; 8];
        word.copy_from_slice(&s[at..at + 8]);
        u64::from_ne_bytes(word)
    };
    let word4 = |s: &[u8], at: usize| {
        let mut word = [0; 4];
        word.copy_from_slice(&s[at..at + 4]);
        u32::from_ne_bytes(word)
    };
    match n {
        0 => true,
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => (word4(a, 0) ^ word4(b, 0)) | (word4(a, n - 4) ^ word4(b, n - 4)) == 0,
        8..=16 => (word8(a, 0) ^ word8(b, 0)) | (word8(a, n - 8) ^ word8(b, n - 8)) == 0,
        _ => a == b,
    }
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
    /// Any other set of fields, as `(name, value)` pairs.
    Pairs(Vec<(Name, Value)>),
}

impl Default for Fields {
    fn default() -> Self {
        Fields::Pairs(Vec::new())
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
            (Fields::Pairs(a), Fields::Pairs(b)) => a == b,
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
        let shaped = !shape.is_empty()
            && entries.len() == shape.len()
            && entries.iter().zip(shape).all(|((k, _), s)| same_name(k, s));
        if shaped {
            Fields::Shaped {
                names: shape,
                values: entries.drain(..).map(|(_, v)| v).collect(),
            }
        } else {
            // Moved into an allocation of their size; `entries` keeps its capacity.
            let mut pairs = Vec::with_capacity(entries.len());
            pairs.append(entries);
            Fields::Pairs(pairs)
        }
    }

    /// The fields of a JSON object, its keys moved.
    pub fn from_map(map: Map<String, Value>) -> Self {
        let entries = map.into_iter().map(|(k, v)| (Cow::Owned(k), v)).collect();
        if map_is_sorted() {
            Fields::Pairs(entries)
        } else {
            Self::from_entries(entries, &[])
        }
    }

    fn len(&self) -> usize {
        match self {
            Fields::Shaped { values, .. } => values.len(),
            Fields::Pairs(pairs) => pairs.len(),
        }
    }

    /// The fields in name order.
    fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        let (shaped, pairs) = match self {
            Fields::Shaped { names, values } => (Some(names.iter().copied().zip(values.iter())), None),
            Fields::Pairs(pairs) => (None, Some(pairs.iter().map(|(k, v)| (k.as_ref(), v)))),
        };
        shaped.into_iter().flatten().chain(pairs.into_iter().flatten())
    }

    /// The index of field `name`: a scan that compares lengths before bytes, cheaper than a
    /// binary search over a record's few fields.
    fn position(&self, name: &str) -> Option<usize> {
        match self {
            Fields::Shaped { names, .. } => names.iter().position(|k| same_name(k, name)),
            Fields::Pairs(pairs) => pairs.iter().position(|(k, _)| same_name(k, name)),
        }
    }

    fn value(&self, i: usize) -> &Value {
        match self {
            Fields::Shaped { values, .. } => &values[i],
            Fields::Pairs(pairs) => &pairs[i].1,
        }
    }

    /// The fields as `(name, value)` pairs, moved.
    fn into_pairs(self) -> Vec<(Name, Value)> {
        match self {
            Fields::Shaped { names, values } => {
                names.iter().map(|n| Cow::Borrowed(*n)).zip(values.into_vec()).collect()
            }
            Fields::Pairs(pairs) => pairs,
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

    /// A prefetch hint for the first cache line of this record's own block, whose pointers
    /// [`prefetch_strings`](Self::prefetch_strings) follows later.
    #[inline(always)]
    pub fn prefetch_block(&self) {
        match self {
            Fields::Shaped { values, .. } => crate::prefetch::line(values.as_ptr()),
            Fields::Pairs(pairs) => crate::prefetch::line(pairs.as_ptr()),
        }
    }

    /// Prefetch hints for the heap blocks a read of this record reaches from it: its own names
    /// (a record from a `Value` keeps the map's key strings) and its string values.
    #[inline(always)]
    pub fn prefetch_strings(&self) {
        match self {
            Fields::Shaped { values, .. } => values.iter().for_each(crate::prefetch::string),
            Fields::Pairs(pairs) => {
                for (name, value) in pairs {
                    if let Cow::Owned(name) = name {
                        crate::prefetch::line(name.as_ptr());
                    }
                    crate::prefetch::string(value);
                }
            }
        }
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
            Fields::Pairs(pairs) => find_from(pairs, |(k, _)| k, name, cursor).map(|i| &pairs[i].1),
        }
    }

    /// [`get_from`](Self::get_from), for writing the value.
    pub fn get_mut_from(&mut self, name: &str, cursor: &mut usize) -> Option<&mut Value> {
        match self {
            Fields::Shaped { names, values } => find_from(names, |k| k, name, cursor).map(|i| &mut values[i]),
            Fields::Pairs(pairs) => find_from(pairs, |(k, _)| k, name, cursor).map(|i| &mut pairs[i].1),
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
        let mut pairs = match std::mem::take(self) {
            Fields::Pairs(pairs) => pairs,
            shaped => shaped.into_pairs(),
        };
        let changed = merge_pairs(&mut pairs, later.into_pairs(), keep);
        *self = Fields::Pairs(pairs);
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
        _ => fields.iter().position(|f| same_name(key(f), name))?,
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

    /// Names and pks are compared by `same_bytes`: it agrees with `==` at every length, for a
    /// difference at any position (each word load of the short paths, and `memcmp` past 16).
    #[test]
    fn same_bytes_agrees_with_eq_at_every_length_and_position() {
        for n in 0..=40 {
            let a: String = (0..n).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
            assert!(same_bytes(&a, &a.clone()), "{a:?}");
            for at in 0..n {
                let mut b = a.clone().into_bytes();
                b[at] = b'#';
                let b = String::from_utf8(b).unwrap();
                assert!(!same_bytes(&a, &b), "{a:?} vs {b:?}");
                assert!(!same_bytes(&b, &a), "{b:?} vs {a:?}");
            }
            let longer = format!("{a}z");
            assert!(!same_bytes(&a, &longer) && !same_bytes(&longer, &a), "{a:?}");
        }
        assert!(same_bytes("é1", "é1") && !same_bytes("é1", "è1"));
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
        assert!(matches!(pairs, Fields::Pairs(_)));
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
        assert!(matches!(subset, Fields::Pairs(_)));
        assert!(matches!(other, Fields::Pairs(_)));
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
}
