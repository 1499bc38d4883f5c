//! The stored form of an entity's fields: a vector sorted by name, one allocation per record.
//!
//! A `serde_json::Map` (a `BTreeMap`) costs a ~630-byte node per record however few its fields,
//! and a heap key per field. [`Fields`] holds `(name, value)` pairs in one vector, in the same
//! order the map would have them, and the names a derive declares are `&'static str`, never
//! allocated.

use std::borrow::Cow;
use std::cmp::Ordering;

use serde_json::{Map, Value};

/// A field name: a derive's `&'static str`, or a name only the response had.
pub(crate) type Name = Cow<'static, str>;

/// Whether a stored name is `name`: lengths first, then the address (a derive's name literal
/// is usually the very string its record was written with), then the bytes.
#[inline]
fn same_name(stored: &str, name: &str) -> bool {
    stored.len() == name.len() && (std::ptr::eq(stored.as_ptr(), name.as_ptr()) || stored.as_bytes() == name.as_bytes())
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
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Fields(Vec<(Name, Value)>);

impl Fields {
    /// The fields of `entries`, in any order; of a repeated name, the last value is kept.
    pub fn from_entries(mut entries: Vec<(Name, Value)>) -> Self {
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
        Fields(entries)
    }

    /// The fields of a JSON object, its keys moved.
    pub fn from_map(map: Map<String, Value>) -> Self {
        let entries = map.into_iter().map(|(k, v)| (Cow::Owned(k), v)).collect();
        if map_is_sorted() {
            Fields(entries)
        } else {
            Self::from_entries(entries)
        }
    }

    /// The fields as a JSON object, copied.
    pub fn to_map(&self) -> Map<String, Value> {
        self.0.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    /// The fields as a JSON object, moved.
    pub fn into_map(self) -> Map<String, Value> {
        self.0.into_iter().map(|(k, v)| (k.into_owned(), v)).collect()
    }

    /// The value of the field `name`: a scan that compares lengths before bytes, cheaper than
    /// a binary search over a record's few fields.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.iter().find(|(k, _)| same_name(k, name)).map(|(_, v)| v)
    }

    /// [`get`](Self::get) for a reader that asks for several fields in name order: the field
    /// at `cursor` (just after the previous find) is tried first, so reads in name order find
    /// each field at once. Any order still finds every field.
    pub fn get_from(&self, name: &str, cursor: &mut usize) -> Option<&Value> {
        if let Some((k, v)) = self.0.get(*cursor)
            && same_name(k, name)
        {
            *cursor += 1;
            return Some(v);
        }
        let i = self.0.iter().position(|(k, _)| same_name(k, name))?;
        *cursor = i + 1;
        Some(&self.0[i].1)
    }

    /// [`get_from`](Self::get_from), for writing the value.
    pub fn get_mut_from(&mut self, name: &str, cursor: &mut usize) -> Option<&mut Value> {
        let i = match self.0.get(*cursor) {
            Some((k, _)) if same_name(k, name) => *cursor,
            _ => self.0.iter().position(|(k, _)| same_name(k, name))?,
        };
        *cursor = i + 1;
        Some(&mut self.0[i].1)
    }

    #[cfg(test)]
    fn is_sorted_by_name(&self) -> bool {
        self.0.is_sorted_by(|a, b| a.0 < b.0)
    }

    /// Writes `later`'s fields over these: a field of `later` replaces the same-named one
    /// unless `keep(stored, later)` says to keep the stored value; a name these lack is always
    /// added. Returns whether anything changed. One ordered walk of both.
    pub fn merge(&mut self, later: Fields, keep: impl Fn(&Value, &Value) -> bool) -> bool {
        // Names already here are replaced in place; new ones are merged in at the end.
        let mut changed = false;
        let mut added: Vec<(Name, Value)> = Vec::new();
        let mut i = 0;
        for (name, value) in later.0 {
            while i < self.0.len() && self.0[i].0.as_ref() < name.as_ref() {
                i += 1;
            }
            match self.0.get_mut(i) {
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
            let old = std::mem::take(&mut self.0);
            let mut merged = Vec::with_capacity(old.len() + added.len());
            let mut added = added.into_iter().peekable();
            for entry in old {
                while let Some(new) = added.next_if(|new| new.0.as_ref().cmp(entry.0.as_ref()) == Ordering::Less) {
                    merged.push(new);
                }
                merged.push(entry);
            }
            merged.extend(added);
            self.0 = merged;
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(pairs: &[(&'static str, Value)]) -> Fields {
        Fields::from_entries(pairs.iter().map(|(k, v)| (Cow::Borrowed(*k), v.clone())).collect())
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
}
