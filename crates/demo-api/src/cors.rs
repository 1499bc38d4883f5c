//! CORS for any origin, so a page served from another port (the browser tests' runner) can call
//! every route with credentials and read every answer, errors included.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// What a preflight allows: every method a route answers.
const ALLOW_METHODS: &str = "GET, HEAD, POST, PUT, PATCH, DELETE";
/// The response headers a page may read. Requests with credentials take `*` literally, so the
/// headers the routes send beyond the always-readable ones are named as well.
const EXPOSE_HEADERS: &str = "*, Content-Type, Content-Length, Location, Retry-After, WWW-Authenticate, X-Total-Count";
/// How long (in seconds) a browser may reuse a preflight's answer.
const MAX_AGE: &str = "600";

/// Middleware around everything the server answers. A preflight (`OPTIONS` with
/// `Access-Control-Request-Method`) is answered here with a 204, so it never reaches the request
/// log, a hold or a fault; every other answer gets the CORS headers for its `Origin`.
pub(crate) async fn cors(request: Request, next: Next) -> Response {
    let origin = request.headers().get(header::ORIGIN).cloned();
    let preflight =
        request.method() == Method::OPTIONS && request.headers().contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    if preflight {
        return answer_preflight(request.headers(), origin);
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    if allow_origin(headers, origin) {
        headers.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(EXPOSE_HEADERS),
        );
    }
    response
}

/// 204 allowing every method, the headers asked for, and caching for [`MAX_AGE`] seconds.
fn answer_preflight(request: &HeaderMap, origin: Option<HeaderValue>) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static(ALLOW_METHODS),
    );
    for asked in request.get_all(header::ACCESS_CONTROL_REQUEST_HEADERS) {
        headers.append(header::ACCESS_CONTROL_ALLOW_HEADERS, asked.clone());
    }
    headers.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static(MAX_AGE));
    headers.append(
        header::VARY,
        HeaderValue::from_static("Access-Control-Request-Method, Access-Control-Request-Headers"),
    );
    allow_origin(headers, origin);
    response
}

/// Adds `Vary: Origin` and, when the request had an `Origin`, allows it with credentials.
/// Returns whether it did.
fn allow_origin(headers: &mut HeaderMap, origin: Option<HeaderValue>) -> bool {
    headers.append(header::VARY, HeaderValue::from_static("Origin"));
    let Some(origin) = origin else { return false };
    headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
        HeaderValue::from_static("true"),
    );
    true
}
