//! Redirects: to a given URL with a given status, in a loop, or through a chain of hops.

use axum::Router;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};
use std::sync::Arc;

use crate::error::ApiError;
use crate::extract::Params;
use crate::state::Shared;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/redirect", any(redirect))
        .route("/redirect-loop", get(redirect_loop))
        .route("/redirect-chain", get(redirect_chain))
}

fn redirect_to(status: StatusCode, location: &str) -> Result<Response, ApiError> {
    let location =
        HeaderValue::from_str(location).map_err(|_| ApiError::bad_request("`to` is not a valid Location value"))?;
    Ok((status, [(header::LOCATION, location)]).into_response())
}

/// Any method on `/redirect?status=302&to=URL`: answers `status` (301, 302, 303, 307 or 308;
/// default 302) with `Location: URL`, which may be absolute or relative.
async fn redirect(params: Params) -> Result<Response, ApiError> {
    let code = params.parse_or("status", 302u16)?;
    if !matches!(code, 301 | 302 | 303 | 307 | 308) {
        return Err(ApiError::bad_request(format!(
            "`status` must be 301, 302, 303, 307 or 308, got {code}"
        )));
    }
    let to = params
        .get("to")
        .ok_or_else(|| ApiError::bad_request("`to` is required"))?;
    let status = StatusCode::from_u16(code).map_err(|_| ApiError::bad_request("bad status"))?;
    redirect_to(status, to)
}

/// `GET /redirect-loop`: 302 to itself, forever.
async fn redirect_loop() -> Result<Response, ApiError> {
    redirect_to(StatusCode::FOUND, "/redirect-loop")
}

/// `GET /redirect-chain?hops=N`: 302 to `?hops=N-1` while N > 0; at 0 answers `{ "ok": true }`.
/// A request for `hops=N` therefore needs exactly N redirects to succeed.
async fn redirect_chain(params: Params) -> Result<Response, ApiError> {
    let hops = params.parse_or("hops", 0u32)?;
    if hops == 0 {
        return Ok(axum::Json(serde_json::json!({ "ok": true })).into_response());
    }
    redirect_to(StatusCode::FOUND, &format!("/redirect-chain?hops={}", hops - 1))
}
