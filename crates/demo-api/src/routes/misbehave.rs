//! Responses that are wrong on purpose, under `/misbehave/`: error statuses, wrong or missing
//! content types, broken, huge, slow and deeply nested bodies.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use axum::{Json, Router};
use serde_json::json;

use crate::error::ApiError;
use crate::extract::Params;
use crate::state::Shared;
use crate::stream_body::{Piece, StreamBody};

/// Bodies `huge` and `deep` refuse to make bigger than this (1 GiB).
pub(crate) const MAX_GENERATED: u64 = 1 << 30;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        // Any method: failing mutations (optimistic rollback) use these too.
        .route("/500", any(|| status(StatusCode::INTERNAL_SERVER_ERROR)))
        .route("/404", any(|| status(StatusCode::NOT_FOUND)))
        .route("/503", any(|| status(StatusCode::SERVICE_UNAVAILABLE)))
        .route("/html", get(|| async { html() }))
        .route("/no-content-type-json", get(no_content_type_json))
        .route("/problem-json", get(problem_json))
        .route("/truncated", get(|| async { truncated() }))
        .route("/close-mid-body", get(|| async { close_mid_body() }))
        .route("/huge", get(huge))
        .route("/huge-chunked", get(huge_chunked))
        .route("/slow", get(slow))
        .route("/deep", get(deep))
        .route("/whitespace", get(whitespace))
        .route("/not-modified", get(|| async { StatusCode::NOT_MODIFIED }))
}

/// A response with exactly this content type (or none) and body.
pub(crate) fn raw(status: StatusCode, content_type: Option<&'static str>, body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    response
}

/// 200 with this content type (`inject` checked it is a valid header value) and body.
pub(crate) fn typed(content_type: &str, body: String) -> Response {
    let mut response = raw(StatusCode::OK, None, body);
    if let Ok(value) = HeaderValue::from_str(content_type) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

/// The status with a JSON error body.
async fn status(status: StatusCode) -> ApiError {
    ApiError::new(status, format!("deliberate {}", status.as_u16()))
}

/// 200 `text/html`.
pub(crate) fn html() -> Response {
    raw(
        StatusCode::OK,
        Some("text/html; charset=utf-8"),
        "<html><body><h1>Not JSON</h1></body></html>",
    )
}

/// 200 with no `Content-Type` at all and the valid JSON body `{"id":1}`.
async fn no_content_type_json() -> Response {
    raw(StatusCode::OK, None, r#"{"id":1}"#)
}

/// 200 `application/problem+json` with a valid JSON body.
async fn problem_json() -> Response {
    let body = json!({ "type": "about:blank", "title": "Problem", "id": 1 }).to_string();
    raw(StatusCode::OK, Some("application/problem+json"), body)
}

/// 200 `application/json` whose body stops inside a string: not valid JSON.
pub(crate) fn truncated() -> Response {
    raw(StatusCode::OK, Some("application/json"), r#"{"id": 1, "title": "cut"#)
}

/// 200 with `Content-Length: 64`, then only part of the body before the connection is closed.
pub(crate) fn close_mid_body() -> Response {
    let pieces = [
        Piece::Bytes(Bytes::from_static(br#"{"id": 1, "title": ""#)),
        Piece::Yield,
        Piece::Fail,
    ];
    raw(
        StatusCode::OK,
        Some("application/json"),
        StreamBody::new(pieces, Some(64)).into_body(),
    )
}

/// `status`, `application/json`, chunked: `first`, then a body that never ends.
pub(crate) fn endless_body(status: StatusCode, first: &'static [u8]) -> Response {
    let pieces = [Piece::Bytes(Bytes::from_static(first)), Piece::Yield, Piece::Stall];
    raw(
        status,
        Some("application/json"),
        StreamBody::new(pieces, None).into_body(),
    )
}

/// The `bytes` parameter (default 1 MiB): the body's total size, at least 2 and at most 1 GiB.
fn huge_size(params: &Params) -> Result<u64, ApiError> {
    let bytes = params.parse_or("bytes", 1u64 << 20)?;
    if bytes > MAX_GENERATED {
        return Err(ApiError::bad_request(format!("`bytes` is at most {MAX_GENERATED}")));
    }
    Ok(bytes.max(2))
}

/// A JSON string of exactly `size` bytes (quotes included, so at least 2), streamed; with
/// `Content-Length` if `with_length`, else chunked.
pub(crate) fn huge_body(size: u64, with_length: bool) -> Response {
    let size = size.max(2);
    let quote = || Piece::Bytes(Bytes::from_static(b"\""));
    let body = StreamBody::new([quote(), Piece::Fill(size - 2), quote()], with_length.then_some(size));
    raw(StatusCode::OK, Some("application/json"), body.into_body())
}

/// `huge?bytes=N`: a JSON string of N bytes, streamed, with `Content-Length: N`.
async fn huge(params: Params) -> Result<Response, ApiError> {
    Ok(huge_body(huge_size(&params)?, true))
}

/// `huge-chunked?bytes=N`: the same, chunked, without `Content-Length`.
async fn huge_chunked(params: Params) -> Result<Response, ApiError> {
    Ok(huge_body(huge_size(&params)?, false))
}

/// `slow?ms=N` (default 1000): waits N ms, then answers `{"ok": true}`.
async fn slow(params: Params) -> Result<Response, ApiError> {
    let ms = params.parse_or("ms", 1000u64)?;
    tokio::time::sleep(Duration::from_millis(ms)).await;
    Ok(Json(json!({ "ok": true })).into_response())
}

/// `deep?depth=N` (default 200): N nested arrays, `[[[...]]]`.
async fn deep(params: Params) -> Result<Response, ApiError> {
    let depth = params.parse_or("depth", 200u64)?;
    if depth > MAX_GENERATED / 2 {
        return Err(ApiError::bad_request(format!(
            "`depth` is at most {}",
            MAX_GENERATED / 2
        )));
    }
    Ok(deep_body(depth as usize))
}

/// 200 `application/json`: `depth` nested arrays, `[[[...]]]`.
pub(crate) fn deep_body(depth: usize) -> Response {
    let mut body = Vec::with_capacity(depth * 2);
    body.resize(depth, b'[');
    body.resize(depth * 2, b']');
    raw(StatusCode::OK, Some("application/json"), body)
}

/// `status` with `Location: to` and an empty body; `inject` checked both.
pub(crate) fn redirect(status: u16, to: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::FOUND);
    let mut response = raw(status, None, Body::empty());
    if let Ok(location) = HeaderValue::from_str(to) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    response
}

/// 200 `application/json` with a body of only spaces and newlines.
async fn whitespace() -> Response {
    raw(StatusCode::OK, Some("application/json"), "  \n\n \r\n  ")
}
