//! Users, at `/users` and `/users/{user_id}`; ids are strings `u1`, `u2`, ….

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::data::{Record, merge, next_user_id, object, position, to_array};
use crate::error::ApiError;
use crate::extract::{JsonBody, Params, PathParams};
use crate::reply::Respond;
use crate::state::Shared;

type AppState = State<Arc<Shared>>;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/users", get(list).post(create))
        .route("/users/{user_id}", get(read).put(replace).patch(update).delete(remove))
}

/// A user with every field at its default.
fn defaults(id: &str) -> Record {
    object(json!({ "id": id, "name": "", "email": "" }))
}

fn find(records: &[Record], id: &str) -> Result<usize, ApiError> {
    position(records, id).ok_or_else(|| ApiError::not_found(format!("no user `{id}`")))
}

async fn list(State(shared): AppState) -> Response {
    Json(to_array(shared.data().users.clone())).into_response()
}

async fn create(State(shared): AppState, params: Params, body: JsonBody) -> Result<Response, ApiError> {
    let respond = Respond::from_params(&params, Respond::Object)?;
    let body = body.into_object()?;
    let mut data = shared.data();
    let mut user = defaults(&next_user_id(&data.users));
    merge(&mut user, &body);
    data.users.push(user.clone());
    Ok(respond.one(StatusCode::CREATED, &user))
}

async fn read(State(shared): AppState, PathParams(id): PathParams<String>) -> Result<Response, ApiError> {
    let data = shared.data();
    let i = find(&data.users, &id)?;
    Ok(Json(Value::Object(data.users[i].clone())).into_response())
}

/// PUT: every field but `id` starts over from the defaults, then the body's fields are applied.
async fn replace(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    change(&shared, &id, &params, body, true)
}

/// PATCH: the body's fields are applied over the stored ones.
async fn update(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    change(&shared, &id, &params, body, false)
}

fn change(shared: &Shared, id: &str, params: &Params, body: JsonBody, replace: bool) -> Result<Response, ApiError> {
    let respond = Respond::from_params(params, Respond::Object)?;
    let body = body.into_object()?;
    let mut data = shared.data();
    let i = find(&data.users, id)?;
    let mut user = if replace { defaults(id) } else { data.users[i].clone() };
    if replace {
        // Keep the stored id's JSON form.
        user.insert("id".to_owned(), data.users[i].get("id").cloned().unwrap_or(Value::Null));
    }
    merge(&mut user, &body);
    data.users[i] = user.clone();
    Ok(respond.one(StatusCode::OK, &user))
}

/// DELETE: answers 200 with the deleted user object by default.
async fn remove(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
) -> Result<Response, ApiError> {
    let respond = Respond::from_params(&params, Respond::Object)?;
    let mut data = shared.data();
    let i = find(&data.users, &id)?;
    let user = data.users.remove(i);
    Ok(respond.one(StatusCode::OK, &user))
}
