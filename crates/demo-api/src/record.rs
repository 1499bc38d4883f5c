//! The request log: what arrived, recorded before it is handled.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::error::ApiError;
use crate::fault::{Applied, Fault};
use crate::state::Shared;

/// Request bodies larger than this are refused (and recorded with an empty body).
const MAX_REQUEST_BODY: usize = 64 * 1024 * 1024;

/// One request as the server received it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let server = demo_api::DemoServer::start().await?;
/// let body = br#"{"title":"Write docs"}"#;
/// demo_api::client::request(server.addr(), "POST", "/todos?x=1", &[("X-Trace", "t1")], Some(body)).await?;
/// let seen = &server.requests()[0];
/// assert_eq!((seen.method.as_str(), seen.path.as_str(), seen.query.as_deref()), ("POST", "/todos", Some("x=1")));
/// assert_eq!(seen.header("x-trace"), Some("t1"));
/// assert_eq!(seen.json().unwrap()["title"], "Write docs");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// The method, e.g. `"GET"`.
    pub method: String,
    /// The path only, without the query string, as sent (not percent-decoded).
    pub path: String,
    /// The query string without the `?`, as sent; `None` when the target had no `?`.
    pub query: Option<String>,
    /// Every header in arrival order, names lowercase; values that are not UTF-8 are converted lossily.
    pub headers: Vec<(String, String)>,
    /// The body bytes (empty when there was none).
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The first value of the header `name` (matched case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Path and query as one request target: `path` or `path?query`.
    pub fn uri(&self) -> String {
        match &self.query {
            Some(query) => format!("{}?{}", self.path, query),
            None => self.path.clone(),
        }
    }

    /// The body parsed as JSON; `None` when it is empty or not JSON.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    fn from_parts(parts: &Parts, body: &[u8]) -> Self {
        RecordedRequest {
            method: parts.method.as_str().to_owned(),
            path: parts.uri.path().to_owned(),
            query: parts.uri.query().map(str::to_owned),
            headers: parts
                .headers
                .iter()
                .map(|(name, value)| {
                    (
                        name.as_str().to_owned(),
                        String::from_utf8_lossy(value.as_bytes()).into_owned(),
                    )
                })
                .collect(),
            body: body.to_vec(),
        }
    }
}

/// Middleware around every route and the fallback: reads the body, records the request, waits
/// while a [`Hold`](crate::Hold) on its path keeps it, then answers with the first
/// [`Fault`](crate::Fault) armed for its path, or hands it on.
pub(crate) async fn record_then_hold(State(shared): State<Arc<Shared>>, request: Request, next: Next) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, MAX_REQUEST_BODY).await {
        Ok(bytes) => bytes,
        Err(e) => {
            // Not held: the request cannot be handled anyway.
            drop(shared.record(RecordedRequest::from_parts(&parts, &[])));
            return ApiError::bad_request(format!("could not read the request body: {e}")).into_response();
        }
    };
    // A fault belongs to the request that arrives first, even if it is held the longest. It is
    // taken before the request is recorded, so whoever sees the request recorded also sees the
    // fault used.
    let fault = shared.faults.take(parts.uri.path());
    let release = shared.record(RecordedRequest::from_parts(&parts, &bytes));
    if let Some(release) = release {
        // Released explicitly, or because the `Held` or the `Hold` was dropped: either way, go on.
        let _ = release.await;
    }
    match fault.map(Fault::apply) {
        Some(Applied::Answer(response)) => return response,
        Some(Applied::Delay(wait)) => tokio::time::sleep(wait).await,
        Some(Applied::Hang) => return std::future::pending().await,
        None => {}
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}
