//! The `?respond=` query flag: how a mutation shapes its answer.

use axum::Json;
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::data::{Record, pk_of};
use crate::error::ApiError;
use crate::extract::Params;

/// The answer shape a mutation was asked for, or its route's default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Respond {
    /// `respond=empty`: 204 with no body.
    Empty,
    /// `respond=blank`: 200 with a zero-length body and no `Content-Type`.
    Blank,
    /// `respond=null`: 200 with the JSON body `null`.
    Null,
    /// `respond=pk`: the pk as a JSON string (an array of them for batch operations).
    Pk,
    /// `respond=object`: the object (an array of them for batch operations).
    Object,
}

impl Respond {
    /// The `respond` query parameter, or `default` when it is absent.
    pub(crate) fn from_params(params: &Params, default: Respond) -> Result<Respond, ApiError> {
        match params.get("respond") {
            None => Ok(default),
            Some("empty") => Ok(Respond::Empty),
            Some("blank") => Ok(Respond::Blank),
            Some("null") => Ok(Respond::Null),
            Some("pk") => Ok(Respond::Pk),
            Some("object") => Ok(Respond::Object),
            Some(other) => Err(ApiError::bad_request(format!(
                "`respond` must be one of empty, blank, null, pk, object; got `{other}`"
            ))),
        }
    }

    /// Answers for one record; `status` is used for the `pk` and `object` shapes.
    pub(crate) fn one(self, status: StatusCode, record: &Record) -> Response {
        self.answer(
            status,
            || Value::String(pk_of(record).unwrap_or_default()),
            || Value::Object(record.clone()),
        )
    }

    /// Answers for several records (batch operations): arrays of pks or of objects.
    pub(crate) fn many(self, status: StatusCode, records: &[Record]) -> Response {
        self.answer(
            status,
            || {
                Value::Array(
                    records
                        .iter()
                        .map(|r| Value::String(pk_of(r).unwrap_or_default()))
                        .collect(),
                )
            },
            || Value::Array(records.iter().cloned().map(Value::Object).collect()),
        )
    }

    fn answer(self, status: StatusCode, pk: impl FnOnce() -> Value, object: impl FnOnce() -> Value) -> Response {
        match self {
            Respond::Empty => StatusCode::NO_CONTENT.into_response(),
            Respond::Blank => (StatusCode::OK, Body::empty()).into_response(),
            Respond::Null => (StatusCode::OK, Json(Value::Null)).into_response(),
            Respond::Pk => (status, Json(pk())).into_response(),
            Respond::Object => (status, Json(object())).into_response(),
        }
    }
}
