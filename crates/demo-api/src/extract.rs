//! Request extractors whose rejections are JSON errors: query parameters, path parameters and
//! JSON bodies (parsed whatever the request's `Content-Type`).

use std::str::FromStr;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::data::Record;
use crate::error::ApiError;

/// The query string's parameters, in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Params(Vec<(String, String)>);

impl Params {
    /// The first value of `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&str> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// `key` parsed, or `default` when it is absent; a value that does not parse is a 400.
    pub(crate) fn parse_or<T: FromStr>(&self, key: &str, default: T) -> Result<T, ApiError> {
        match self.get(key) {
            None => Ok(default),
            Some(raw) => raw
                .parse()
                .map_err(|_| ApiError::bad_request(format!("query parameter `{key}` has an invalid value `{raw}`"))),
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Query::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map(|Query(pairs)| Params(pairs))
            .map_err(|e| ApiError::bad_request(format!("bad query string: {e}")))
    }
}

/// Path parameters, like axum's `Path` but with a JSON rejection.
#[derive(Debug, Clone)]
pub(crate) struct PathParams<T>(pub(crate) T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for PathParams<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| PathParams(value))
            .map_err(|e| ApiError::bad_request(format!("bad path parameter: {e}")))
    }
}

/// A request body parsed as JSON. An empty body, a body that is not JSON, or one that cannot be
/// read is a 400 with a JSON error; the `Content-Type` is not checked.
#[derive(Debug, Clone)]
pub(crate) struct JsonBody(pub(crate) Value);

impl JsonBody {
    /// The body as an object, or a 400.
    pub(crate) fn into_object(self) -> Result<Record, ApiError> {
        match self.0 {
            Value::Object(map) => Ok(map),
            other => Err(ApiError::bad_request(format!(
                "expected a JSON object body, got `{other}`"
            ))),
        }
    }
}

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|e| ApiError::bad_request(format!("could not read the body: {e}")))?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::bad_request("a JSON body is required"));
        }
        serde_json::from_slice(&bytes)
            .map(JsonBody)
            .map_err(|e| ApiError::bad_request(format!("invalid JSON body: {e}")))
    }
}
