//! Object schemas: `#[derive(Schema)]` structs whose nested-schema fields are normalized and whose
//! plain fields are stored as-is (R-NORM-1).

use serde_json::Value;

use crate::denormalize::{DenormalizeCtx, RecordReader, Unresolved};
use crate::error::Error;
use crate::normalize::{NormalizeCtx, RecordWriter, write_record};

/// `Schema::normalize` of an object schema; `write` checks and normalizes its fields.
#[doc(hidden)]
pub fn normalize_object(
    input: &mut Value,
    ctx: &mut NormalizeCtx<'_>,
    write: impl FnOnce(&mut RecordWriter<'_, '_>) -> Result<(), Error>,
) -> Result<Value, Error> {
    ctx.pk_fallback = None;
    write_record(input, ctx, write).map(Value::Object)
}

/// `Schema::denormalize` of an object schema; `read` builds it from its fields.
#[doc(hidden)]
pub fn read_object<'s, T>(
    stored: &'s Value,
    ctx: &mut DenormalizeCtx<'s>,
    read: impl FnOnce(&mut RecordReader<'_, 's>) -> Result<T, Unresolved>,
) -> Result<T, Unresolved> {
    ctx.read_object(stored, read)
}
