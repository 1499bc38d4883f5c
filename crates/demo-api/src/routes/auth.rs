//! Credentials: a bearer-token route, an echo of what credentials arrived, and a cookie session.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::data::position;
use crate::error::ApiError;
use crate::state::Shared;

type AppState = State<Arc<Shared>>;

/// The only bearer token `/me` accepts.
const TOKEN: &str = "demo-token";
/// The cookie `/login` sets and `/session` requires.
const SESSION: (&str, &str) = ("session", "demo");

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/me", get(me))
        .route("/whoami", get(whoami))
        .route("/login", post(login))
        .route("/session", get(session))
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn user_u1(shared: &Shared) -> Value {
    let data = shared.data();
    position(&data.users, "u1").map_or(Value::Null, |i| Value::Object(data.users[i].clone()))
}

fn unauthorized(message: &str, challenge: &'static str) -> Response {
    let mut response = ApiError::new(StatusCode::UNAUTHORIZED, message).into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(challenge));
    response
}

/// `GET /me`: user u1 with `Authorization: Bearer demo-token`, else 401.
async fn me(State(shared): AppState, headers: HeaderMap) -> Response {
    match header_str(&headers, header::AUTHORIZATION) {
        Some(value) if value == format!("Bearer {TOKEN}") => Json(user_u1(&shared)).into_response(),
        Some(_) => unauthorized("wrong credentials", "Bearer"),
        None => unauthorized("authorization required", "Bearer"),
    }
}

/// `GET /whoami`: `{ "authorization": .., "cookie": .. }`, each the header's value or `null`.
async fn whoami(headers: HeaderMap) -> Json<Value> {
    Json(json!({
        "authorization": header_str(&headers, header::AUTHORIZATION),
        "cookie": header_str(&headers, header::COOKIE),
    }))
}

/// `POST /login`: sets `session=demo; Path=/` and answers `{ "ok": true }`.
async fn login() -> Response {
    let cookie = HeaderValue::from_static("session=demo; Path=/");
    ([(header::SET_COOKIE, cookie)], Json(json!({ "ok": true }))).into_response()
}

/// `GET /session`: `{ "session": "demo", "user": u1 }` when the request carries the cookie
/// `/login` sets, else 401.
async fn session(State(shared): AppState, headers: HeaderMap) -> Response {
    let has_session = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|pair| pair == SESSION);
    if has_session {
        Json(json!({ "session": SESSION.1, "user": user_u1(&shared) })).into_response()
    } else {
        unauthorized("session cookie required", "Cookie")
    }
}
