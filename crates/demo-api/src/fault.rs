//! Fault injection: the next request to a path answered with a chosen fault instead of by its
//! route, so a test can make one key fail and then succeed.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::error::ApiError;
use crate::routes::misbehave::{self, MAX_GENERATED};
use crate::state::lock;

/// How one request is made to fail; armed with [`DemoServer::inject`](crate::DemoServer::inject).
///
/// Every fault but [`Fault::Delay`] answers (or, for [`Fault::Hang`], fails to) *instead of* the route: the request is recorded (and
/// held, if its path is held) as usual, but its handler never runs, so a faulted mutation
/// changes nothing on the server. The answers are those of the `/misbehave/*` routes.
///
/// ```
/// use demo_api::{DemoServer, Fault, client};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let server = DemoServer::start().await?;
/// server.inject("/todos/1", Fault::Truncated);
/// let cut = client::get(server.addr(), "/todos/1").await?;
/// assert_eq!((cut.status, cut.text().as_str()), (200, r#"{"id": 1, "title": "cut"#));
/// let whole = client::get(server.addr(), "/todos/1").await?;
/// assert_eq!(whole.json().unwrap()["title"], "Todo 1", "a fault is used by one request");
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Fault {
    /// This status (100..=999) with the JSON error body `{"error": "injected N", "status": N}`.
    Status(u16),
    /// Like [`Fault::Status`], with `Retry-After: after` (a number of seconds or an HTTP date,
    /// or anything else a client must cope with): how a server says when to come back.
    RetryAfter {
        /// The status, 100..=999.
        status: u16,
        /// The `Retry-After` header's value.
        after: String,
    },
    /// 200 `application/json` with `Content-Length: 64`, then 20 bytes of the body, then the
    /// connection is closed.
    CloseMidBody,
    /// 200 `application/json` with the body `{"id": 1, "title": "cut`, which is not valid JSON.
    Truncated,
    /// 200 `text/html; charset=utf-8` with an HTML body.
    Html,
    /// 200 `application/json` with this body (well-formed JSON the client may still reject).
    Json(Value),
    /// 200 with exactly this `Content-Type` and body, for content types a client must judge.
    Raw {
        /// The `Content-Type` header's value.
        content_type: String,
        /// The body, as is.
        body: String,
    },
    /// 200 `application/json`: a JSON string of exactly this many bytes (at least 2), streamed,
    /// with `Content-Length`.
    Huge(u64),
    /// Like [`Fault::Huge`], chunked, without `Content-Length`.
    HugeChunked(u64),
    /// 200 `application/json`: this many nested arrays, `[[[...]]]`.
    Deep(usize),
    /// This redirect status (300..=399) with `Location: to` (absolute or relative) and an empty
    /// body, whatever the method: how a hostile server sends a mutation somewhere else. The
    /// request that follows it is answered by the route (or the next armed fault) as usual.
    Redirect {
        /// The status, 300..=399.
        status: u16,
        /// The `Location` header's value.
        to: String,
    },
    /// Never answers: the request is recorded (and held, if its path is held), then the
    /// connection stays open and silent until the server's runtime ends; with
    /// [`DemoServer::start_on_thread`](crate::DemoServer::start_on_thread), until the server is
    /// dropped.
    Hang,
    /// 200 `application/json`, chunked, with the first byte of the body (`[`), then nothing
    /// more: the body never ends, and the connection stays open as with [`Fault::Hang`].
    EndlessBody,
    /// This status (100..=999), `application/json`, chunked, with the first byte of its body
    /// (`{`), then nothing more, as [`Fault::EndlessBody`]: an error answer whose body hangs.
    StalledError(u16),
    /// Waits this long on the server's clock, then lets the route answer as usual. With
    /// [`DemoServer::start_on_thread`](crate::DemoServer::start_on_thread) that is real time
    /// whatever the test's clock; dropping the server ends the wait.
    Delay(Duration),
}

/// What an armed fault does to the request it was taken by.
pub(crate) enum Applied {
    /// Answer with this instead of the route.
    Answer(Response),
    /// Wait this long, then let the route answer.
    Delay(Duration),
    /// Never answer.
    Hang,
}

impl Fault {
    /// Why this fault cannot be armed, if it cannot: a status outside `100..=999`, a redirect
    /// status outside `300..=399`, a header value that is not valid, or a body bigger than the
    /// `/misbehave/*` routes make (1 GiB).
    pub(crate) fn problem(&self) -> Option<String> {
        match self {
            Fault::Status(code) | Fault::StalledError(code) | Fault::RetryAfter { status: code, .. }
                if StatusCode::from_u16(*code).is_err() =>
            {
                Some(format!("Fault::{self:?}: a status code is 100..=999"))
            }
            Fault::RetryAfter { after, .. } if HeaderValue::from_str(after).is_err() => Some(format!(
                "Fault::RetryAfter {{ after: {after:?} }}: not a valid header value"
            )),
            Fault::Redirect { status, .. } if !(300..=399).contains(status) => Some(format!(
                "Fault::Redirect {{ status: {status} }}: a redirect status is 300..=399"
            )),
            Fault::Redirect { to, .. } if HeaderValue::from_str(to).is_err() => {
                Some(format!("Fault::Redirect {{ to: {to:?} }}: not a valid Location value"))
            }
            Fault::Raw { content_type, .. } if HeaderValue::from_str(content_type).is_err() => Some(format!(
                "Fault::Raw {{ content_type: {content_type:?} }}: not a valid header value"
            )),
            Fault::Huge(bytes) | Fault::HugeChunked(bytes) if *bytes > MAX_GENERATED => Some(format!(
                "Fault::{self:?}: a generated body is at most {MAX_GENERATED} bytes"
            )),
            Fault::Deep(depth) if !u64::try_from(*depth).is_ok_and(|d| d <= MAX_GENERATED / 2) => Some(format!(
                "Fault::Deep({depth}): a generated body is at most {MAX_GENERATED} bytes"
            )),
            _ => None,
        }
    }

    pub(crate) fn apply(self) -> Applied {
        let answer = match self {
            Fault::Status(code) => injected(code),
            Fault::RetryAfter { status, after } => {
                let mut answer = injected(status);
                // `inject` checked the value.
                if let Ok(value) = HeaderValue::from_str(&after) {
                    answer.headers_mut().insert(RETRY_AFTER, value);
                }
                answer
            }
            Fault::CloseMidBody => misbehave::close_mid_body(),
            Fault::Truncated => misbehave::truncated(),
            Fault::Html => misbehave::html(),
            Fault::Json(body) => misbehave::raw(StatusCode::OK, Some("application/json"), body.to_string()),
            Fault::Raw { content_type, body } => misbehave::typed(&content_type, body),
            Fault::Huge(bytes) => misbehave::huge_body(bytes, true),
            Fault::HugeChunked(bytes) => misbehave::huge_body(bytes, false),
            Fault::Deep(depth) => misbehave::deep_body(depth),
            Fault::Redirect { status, to } => misbehave::redirect(status, &to),
            Fault::EndlessBody => misbehave::endless_body(StatusCode::OK, b"["),
            Fault::StalledError(code) => {
                let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                misbehave::endless_body(status, b"{")
            }
            Fault::Delay(wait) => return Applied::Delay(wait),
            Fault::Hang => return Applied::Hang,
        };
        Applied::Answer(answer)
    }
}

/// The answer of [`Fault::Status`]: `code`'s status (which `inject` checked) with a JSON error body.
fn injected(code: u16) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    ApiError::new(status, format!("injected {code}")).into_response()
}

/// The armed faults, per path, in the order they were injected.
#[derive(Debug, Default)]
pub(crate) struct FaultRegistry {
    by_path: Mutex<HashMap<String, VecDeque<Fault>>>,
}

impl FaultRegistry {
    /// Arms `fault` for the next request to `path` that finds no earlier fault armed. The caller
    /// checked it with [`Fault::problem`].
    pub(crate) fn inject(&self, path: &str, fault: Fault) {
        lock(&self.by_path).entry(path.to_owned()).or_default().push_back(fault);
    }

    /// Takes the first fault armed for `path`, if any.
    pub(crate) fn take(&self, path: &str) -> Option<Fault> {
        let mut by_path = lock(&self.by_path);
        let queue = by_path.get_mut(path)?;
        let fault = queue.pop_front();
        if queue.is_empty() {
            by_path.remove(path);
        }
        fault
    }

    /// How many faults are still armed for `path`.
    pub(crate) fn armed(&self, path: &str) -> usize {
        lock(&self.by_path).get(path).map_or(0, VecDeque::len)
    }

    /// Disarms every fault.
    pub(crate) fn clear(&self) {
        lock(&self.by_path).clear();
    }
}
