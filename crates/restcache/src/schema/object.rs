//! Object schemas: `#[derive(Schema)]` structs whose nested-schema fields are normalized and whose
//! plain fields are stored as JSON (R-NORM-1). Their normalized form is a JSON object, kept as the
//! result of the request; it is not an entity and is never merged.

use serde::Deserializer;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Schema;
use crate::rows::RowData;
use crate::schema::denormalize::{DenormalizeCtx, Unresolved};
use crate::schema::normalize::{enter_object, fail, finish_object, leave_object, with};

/// `Schema::normalize` of an object schema whose row type (the derive's companion) is `R`: the
/// row filled by serde, nested schemas normalized on the way, as a JSON object.
#[doc(hidden)]
pub fn normalize_object<'de, R: RowData + DeserializeOwned, D: Deserializer<'de>>(de: D) -> Result<Value, D::Error> {
    with(|n| {
        n.pk_fallback = None;
        n.check_depth()
    })
    .map_err(fail)?;
    let outer = enter_object();
    let row = R::deserialize(crate::schema::object_input::ObjectInput::object(de));
    let finished = row.map(|mut row| (finish_object(&mut row), row));
    leave_object(outer);
    let (finished, row) = finished?;
    finished.map_err(fail)?;
    Ok(Value::Object(row.into_json()))
}

/// `Schema::denormalize` of an object schema; `read` builds it from its fields.
#[doc(hidden)]
pub fn read_object<'s, T>(
    stored: &'s Value,
    ctx: &mut DenormalizeCtx<'s>,
    read: impl FnOnce(&mut ObjectReader<'_, 's>) -> Result<T, Unresolved>,
) -> Result<T, Unresolved> {
    let Value::Object(fields) = stored else {
        return Err(Unresolved);
    };
    read(&mut ObjectReader { fields, ctx })
}

/// Reads the fields of an object schema's normalized value; what its derive's `denormalize` is
/// written with. A field the value lacks is `Ok(None)`: the caller keeps its `Default`.
///
/// ```
/// use restcache::schema::{ObjectReader, Unresolved};
/// fn total(r: &mut ObjectReader<'_, '_>) -> Result<u64, Unresolved> {
///     Ok(r.plain::<u64>("total")?.unwrap_or_default())
/// }
/// ```
pub struct ObjectReader<'r, 's> {
    fields: &'s Map<String, Value>,
    ctx: &'r mut DenormalizeCtx<'s>,
}

impl<'s> ObjectReader<'_, 's> {
    /// The plain field `name`, as it was stored (its type's own serialization) read back.
    pub fn plain<T: DeserializeOwned>(&mut self, name: &str) -> Result<Option<T>, Unresolved> {
        match self.fields.get(name) {
            None => Ok(None),
            Some(v) => T::deserialize(v).map(Some).map_err(|e| {
                tracing::warn!(field = name, error = %e, "stored field does not deserialize");
                Unresolved
            }),
        }
    }

    /// A `#[serde(flatten)]` field: read from the object's own fields.
    pub fn flattened<T: DeserializeOwned>(&mut self) -> Result<Option<T>, Unresolved> {
        T::deserialize(Value::Object(self.fields.clone()))
            .map(Some)
            .map_err(|e| {
                tracing::warn!(error = %e, "stored flattened field does not deserialize");
                Unresolved
            })
    }

    /// The nested-schema field `name`, denormalized with `S`.
    pub fn nested<S: Schema>(&mut self, name: &str) -> Result<Option<S::Output>, Unresolved> {
        match self.fields.get(name) {
            Some(v) => S::denormalize(v, self.ctx).map(Some),
            None => Ok(None),
        }
    }
}
