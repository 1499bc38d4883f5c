//! Object schemas: `#[derive(Schema)]` structs whose nested-schema fields are normalized and whose
//! plain fields are kept as they are (R-NORM-1). Their normalized form is their row (the derive's
//! companion type, as for an entity), kept as the result of the request or in the field that
//! holds it; it is not an entity and is never merged.

use crate::rows::RowData;
use crate::schema::denormalize::{DenormalizeCtx, EntityReader, Unresolved};
use crate::schema::normalize::in_object;
use crate::schema::object_input::ObjectInput;
use serde::Deserializer;
use serde::de::DeserializeOwned;

/// `Schema::normalize` of an object schema whose row type (the derive's companion) is `R`: the
/// row filled by serde, nested schemas normalized on the way.
#[doc(hidden)]
pub fn normalize_object<'de, R: RowData + DeserializeOwned, D: Deserializer<'de>>(de: D) -> Result<R, D::Error> {
    let (row, _) = in_object(None, || R::deserialize(ObjectInput { de, entity: None }))?;
    Ok(row)
}

/// `Schema::denormalize` of an object schema: `read` builds it from its row, reading nested
/// fields through the reader it is given.
#[doc(hidden)]
pub fn read_object<'s, T>(
    ctx: &mut DenormalizeCtx<'s>,
    read: impl FnOnce(&mut EntityReader<'_, 's>) -> Result<T, Unresolved>,
) -> Result<T, Unresolved> {
    read(&mut EntityReader::object(ctx))
}
