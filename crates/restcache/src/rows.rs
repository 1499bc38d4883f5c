//! Entity rows: the stored form of one entity (R-STORE-1), a typed value that serde fills.
//!
//! `#[derive(Entity)]` emits a companion type for each entity, deserialized by serde itself with
//! the field's own serde attributes: every field optional (a response may carry only some of
//! them), nested schemas as their normalized forms (an entity's as its reference). A table keeps
//! each row boxed as a [`Row`], so one table type holds every entity type; reads downcast it back
//! to the entity's row type.

use std::any::Any;
use std::fmt::Debug;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::refs::RefSink;

/// The fields of a row (an entity's or an object schema's) as JSON, and the setter of its nested
/// fields.
///
/// ```
/// use restcache::schema::{JsonRow, RowData};
/// let row: JsonRow = serde_json::from_str(r#"{"id": 7, "title": "a"}"#).unwrap();
/// assert_eq!(row.to_json()["title"], "a");
/// assert_eq!(row.to_json().len(), 2);
/// ```
pub trait RowData {
    /// The row as a JSON object: each field it holds under its JSON name.
    fn to_json(&self) -> Map<String, Value>;

    /// Sets the nested field `name` to `stored`, its schema's normalized form, for a nested
    /// schema whose writes wait until the row is complete because they read it (a nested
    /// collection's key). A value of another type, or a name the row has no nested field for,
    /// is ignored.
    fn set_nested(&mut self, name: &str, stored: Box<dyn Any + Send>) {
        let _ = (name, stored);
    }

    /// The row whose [`to_json`](Self::to_json) is `json`, as a snapshot holds it: each plain
    /// field read back with its type's `Deserialize`, each nested one as its schema's
    /// normalized form. `None` when `json` is not such a row; the default, for a row that
    /// cannot be read back, is always `None`, so a snapshot holding one does not hydrate.
    fn from_json(json: &Value) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = json;
        None
    }

    /// Reports the rows the row's nested fields reference, for the collector (R-GC-3). The
    /// derive reports each nested field through its schema; the default cannot tell, and a
    /// store holding such a row removes no row.
    fn refs(&self, sink: &mut RefSink<'_>) {
        sink.unknown();
    }

    /// The heap bytes the row's fields hold, for a store's byte budget (R-GC-4): the derive
    /// estimates each field through its `Serialize` impl; the default measures the row's JSON.
    fn heap_bytes(&self) -> usize {
        crate::heap_size::heap_bytes(&self.to_json())
    }

    /// [`from_json`](Self::from_json) of JSON text: the derive reads the row straight from the
    /// text; the default parses the text into a `Value` first.
    fn from_json_text(text: &str) -> Option<Self>
    where
        Self: Sized,
    {
        serde_json::from_str(text).ok().and_then(|json| Self::from_json(&json))
    }
}

/// The stored form of one entity's fields: what [`Entity::Row`](crate::schema::Entity::Row) is.
///
/// `#[derive(Entity)]` writes one for each entity. A hand-written entity can use [`JsonRow`], a
/// JSON object.
///
/// ```
/// use restcache::schema::{EntityRow, JsonRow, RowData};
/// use serde_json::json;
///
/// let mut stored: JsonRow = serde_json::from_value(json!({ "id": 1, "title": "a" })).unwrap();
/// let newer: JsonRow = serde_json::from_value(json!({ "id": 1, "done": true })).unwrap();
/// assert!(stored.merge(newer, false));
/// assert_eq!(stored.to_json(), *json!({ "id": 1, "title": "a", "done": true }).as_object().unwrap());
/// ```
pub trait EntityRow: RowData + Clone + PartialEq + Debug + Send + Sync + 'static {
    /// Writes `newer`'s fields over these: each field `newer` holds replaces this row's
    /// (R-NORM-6), and the rest stay. With `older` (`newer` comes from a request that started
    /// before the one that wrote this row, R-NORM-7), `newer` only fills the fields this row
    /// lacks. Returns whether any field changed.
    fn merge(&mut self, newer: Self, older: bool) -> bool;
}

/// What an entity's plain field must be, to be stored in a row: compared with the stored value
/// (a version changes only when the row does, R-NORM-9), cloned into what reads return, and
/// written back as JSON (snapshots, pk functions). Every type that is all three is one.
#[diagnostic::on_unimplemented(
    message = "the field type `{Self}` of an entity or object schema must implement `PartialEq`, `Clone` and `serde::Serialize`",
    note = "restcache compares a field with the stored one, clones it into reads and writes it back as JSON"
)]
///
/// ```
/// fn stored<T: restcache::schema::FieldValue>(_: &T) {}
/// stored(&"text".to_owned());
/// stored(&Some(vec![1, 2, 3]));
/// ```
pub trait FieldValue: PartialEq + Clone + serde::Serialize {}

impl<T: PartialEq + Clone + serde::Serialize> FieldValue for T {}

/// Whether two stored values of a field are the same, for a row's `PartialEq`.
///
/// ```
/// use restcache::schema::same_field;
/// assert!(same_field(&Some(1), &Some(1)));
/// assert!(!same_field(&Some(1), &None));
/// ```
pub fn same_field<T: FieldValue>(a: &Option<T>, b: &Option<T>) -> bool {
    a == b
}

/// A copy of a stored field value, for a row's `Clone` and for reads.
///
/// ```
/// assert_eq!(restcache::schema::clone_field(&"a".to_owned()), "a");
/// ```
pub fn clone_field<T: FieldValue>(value: &T) -> T {
    value.clone()
}

/// `*stored = newer` field by field, for [`EntityRow::merge`]: `newer` replaces what is stored
/// when it holds a value (only fills an empty field when `older`). Returns whether it changed.
///
/// ```
/// use restcache::schema::merge_field;
/// let mut stored = Some(1);
/// assert!(!merge_field(&mut stored, None, false));
/// assert!(merge_field(&mut stored, Some(2), false));
/// assert!(!merge_field(&mut stored, Some(3), true));
/// assert_eq!(stored, Some(2));
/// ```
pub fn merge_field<T: FieldValue>(stored: &mut Option<T>, newer: Option<T>, older: bool) -> bool {
    match (stored.as_ref(), newer) {
        (_, None) => false,
        (Some(_), Some(_)) if older => false,
        (Some(s), Some(n)) if *s == n => false,
        (_, newer) => {
            *stored = newer;
            true
        }
    }
}

/// A row that is a JSON object, merged key by key: for hand-written entities.
///
/// ```
/// use restcache::schema::JsonRow;
/// let row: JsonRow = serde_json::from_str(r#"{"name": "rust"}"#).unwrap();
/// assert_eq!(row.get::<String>("name").as_deref(), Some("rust"));
/// assert_eq!(row.get::<u32>("uses"), None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(transparent, expecting = "an object")]
pub struct JsonRow(pub Map<String, Value>);

impl JsonRow {
    /// The field `name` as a `T`; `None` when the row lacks it or it is not a `T`.
    pub fn get<T: serde::de::DeserializeOwned>(&self, name: &str) -> Option<T> {
        self.0.get(name).and_then(|v| T::deserialize(v).ok())
    }
}

impl EntityRow for JsonRow {
    fn merge(&mut self, newer: Self, older: bool) -> bool {
        let mut changed = false;
        for (k, v) in newer.0 {
            match self.0.get_mut(&k) {
                Some(_) if older => {}
                Some(stored) if *stored == v => {}
                Some(stored) => {
                    *stored = v;
                    changed = true;
                }
                None => {
                    self.0.insert(k, v);
                    changed = true;
                }
            }
        }
        changed
    }
}

impl RowData for JsonRow {
    fn to_json(&self) -> Map<String, Value> {
        self.0.clone()
    }

    /// A JSON row's fields are values, not references: it references no row.
    fn refs(&self, _: &mut RefSink<'_>) {}

    fn heap_bytes(&self) -> usize {
        crate::heap_size::heap_bytes(&self.0)
    }

    fn from_json(json: &Value) -> Option<Self> {
        json.as_object().map(|map| JsonRow(map.clone()))
    }
}

/// A row of any entity type, as a table holds it.
pub(crate) trait Row: RowData + Any + Debug + Send + Sync {
    /// [`EntityRow::merge`] of a row of the same type (a row of another type replaces it).
    fn merge_row(&mut self, newer: Box<dyn Row>, older: bool) -> MergeOutcome;
    fn eq_row(&self, other: &dyn Row) -> bool;
    fn clone_row(&self) -> Box<dyn Row>;
    /// The bytes the row holds: its own size and [`RowData::heap_bytes`].
    fn bytes(&self) -> usize;
}

/// What [`Row::merge_row`] did.
pub(crate) enum MergeOutcome {
    /// Merged; whether anything changed.
    Merged(bool),
    /// `newer` is a row of another type: the caller replaces the stored row with it.
    Replace(Box<dyn Row>),
}

impl<R: EntityRow> Row for R {
    fn merge_row(&mut self, newer: Box<dyn Row>, older: bool) -> MergeOutcome {
        // A table holds one entity type (the registry refuses two types with one key), so
        // `newer` is an `R`; a row of another type replaces this one all the same.
        if !(&*newer as &dyn Any).is::<R>() {
            return MergeOutcome::Replace(newer);
        }
        match (newer as Box<dyn Any>).downcast::<R>() {
            Ok(newer) => MergeOutcome::Merged(self.merge(*newer, older)),
            Err(_) => MergeOutcome::Merged(false),
        }
    }

    fn eq_row(&self, other: &dyn Row) -> bool {
        (other as &dyn Any).downcast_ref::<R>().is_some_and(|o| o == self)
    }

    fn clone_row(&self) -> Box<dyn Row> {
        Box::new(self.clone())
    }

    fn bytes(&self) -> usize {
        std::mem::size_of::<R>().saturating_add(self.heap_bytes())
    }
}

impl Clone for Box<dyn Row> {
    fn clone(&self) -> Self {
        self.clone_row()
    }
}

impl PartialEq for Box<dyn Row> {
    fn eq(&self, other: &Self) -> bool {
        self.eq_row(other.as_ref())
    }
}
