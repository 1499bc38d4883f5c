//! The control routes under `/_control/`: the request log, armed faults and a reset over HTTP,
//! for browser tests, which have no [`DemoServer`](crate::DemoServer) handle. They are not
//! behind the recording middleware, so they are never recorded, held or faulted.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::{ApiError, method_not_allowed, route_not_found};
use crate::extract::JsonBody;
use crate::fault::Fault;
use crate::record::RecordedRequest;
use crate::state::Shared;

type AppState = State<Arc<Shared>>;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/requests", get(list_requests).delete(clear_requests))
        .route("/faults", post(arm_fault))
        .route("/reset", post(reset))
        .fallback(route_not_found)
        .method_not_allowed_fallback(method_not_allowed)
}

/// `GET /_control/requests`: the log, oldest first, as `{ method, path, query, body }` objects.
async fn list_requests(State(shared): AppState) -> Json<Value> {
    Json(shared.log().iter().map(logged).collect())
}

/// One recorded request as JSON: its body parsed if it is JSON, else as text; `null` if empty.
fn logged(request: &RecordedRequest) -> Value {
    let body = if request.body.is_empty() {
        Value::Null
    } else {
        request
            .json()
            .unwrap_or_else(|| Value::String(String::from_utf8_lossy(&request.body).into_owned()))
    };
    json!({ "method": request.method, "path": request.path, "query": request.query, "body": body })
}

/// `DELETE /_control/requests`: empties the log; 204.
async fn clear_requests(State(shared): AppState) -> StatusCode {
    shared.clear_log();
    StatusCode::NO_CONTENT
}

/// The body of `POST /_control/faults`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArmFault {
    /// The path the fault is for, without a query.
    path: String,
    fault: FaultSpec,
}

/// A [`Fault`] as JSON: an object whose one key names it, e.g. `{"status": 500}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum FaultSpec {
    Status(u16),
    RetryAfter { status: u16, after: String },
    CloseMidBody(bool),
    Truncated(bool),
    Html(bool),
    Json(Value),
    Raw { content_type: String, body: String },
    Huge(u64),
    HugeChunked(u64),
    Deep(usize),
    Redirect { status: u16, to: String },
    DelayMs(u64),
    Hang(bool),
    EndlessBody(bool),
    StalledError(u16),
}

impl FaultSpec {
    /// The fault, if it can be armed.
    fn into_fault(self) -> Result<Fault, String> {
        let only_true = |set: bool, name: &str, fault: Fault| {
            if set {
                Ok(fault)
            } else {
                Err(format!("`{name}` can only be `true`"))
            }
        };
        let fault = match self {
            FaultSpec::Status(code) => Fault::Status(code),
            FaultSpec::RetryAfter { status, after } => Fault::RetryAfter { status, after },
            FaultSpec::CloseMidBody(set) => only_true(set, "close_mid_body", Fault::CloseMidBody)?,
            FaultSpec::Truncated(set) => only_true(set, "truncated", Fault::Truncated)?,
            FaultSpec::Html(set) => only_true(set, "html", Fault::Html)?,
            FaultSpec::Json(value) => Fault::Json(value),
            FaultSpec::Raw { content_type, body } => Fault::Raw { content_type, body },
            FaultSpec::Huge(bytes) => Fault::Huge(bytes),
            FaultSpec::HugeChunked(bytes) => Fault::HugeChunked(bytes),
            FaultSpec::Deep(depth) => Fault::Deep(depth),
            FaultSpec::Redirect { status, to } => Fault::Redirect { status, to },
            FaultSpec::DelayMs(ms) => Fault::Delay(Duration::from_millis(ms)),
            FaultSpec::Hang(set) => only_true(set, "hang", Fault::Hang)?,
            FaultSpec::EndlessBody(set) => only_true(set, "endless_body", Fault::EndlessBody)?,
            FaultSpec::StalledError(code) => Fault::StalledError(code),
        };
        match fault.problem() {
            Some(problem) => Err(problem),
            None => Ok(fault),
        }
    }
}

/// `POST /_control/faults`: arms a fault like [`DemoServer::inject`](crate::DemoServer::inject);
/// answers `{ "path": .., "armed": N }`, N the faults now armed for that path.
async fn arm_fault(State(shared): AppState, JsonBody(body): JsonBody) -> Result<Json<Value>, ApiError> {
    let ArmFault { path, fault } =
        serde_json::from_value(body).map_err(|e| ApiError::bad_request(format!("bad fault request: {e}")))?;
    if !path.starts_with('/') || path.contains(['?', '#']) {
        return Err(ApiError::bad_request(format!(
            "`path` must be a path starting with `/`, without a query or fragment; got `{path}`"
        )));
    }
    let fault = fault.into_fault().map_err(ApiError::bad_request)?;
    shared.faults.inject(&path, fault);
    let armed = shared.faults.armed(&path);
    Ok(Json(json!({ "path": path, "armed": armed })))
}

/// `POST /_control/reset`: back to the seed, with an empty log and no armed faults; 204.
async fn reset(State(shared): AppState) -> StatusCode {
    shared.reset();
    StatusCode::NO_CONTENT
}
