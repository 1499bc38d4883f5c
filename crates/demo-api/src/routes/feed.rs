//! The feed, at `/feed` and `/feed/{id}`: links and posts told apart by `type`, plus one item of a
//! type no client knows (`video`).

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::data::{Record, merge, next_numeric_id, object, position, to_array};
use crate::error::ApiError;
use crate::extract::{JsonBody, Params, PathParams};
use crate::reply::Respond;
use crate::state::Shared;

type AppState = State<Arc<Shared>>;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/feed", get(list).post(create))
        .route("/feed/{id}", get(read).patch(update).delete(remove))
}

fn find(records: &[Record], id: &str) -> Result<usize, ApiError> {
    position(records, id).ok_or_else(|| ApiError::not_found(format!("no feed item `{id}`")))
}

async fn list(State(shared): AppState) -> Response {
    Json(to_array(shared.data().feed.clone())).into_response()
}

async fn read(State(shared): AppState, PathParams(id): PathParams<String>) -> Result<Response, ApiError> {
    let data = shared.data();
    let i = find(&data.feed, &id)?;
    Ok(Json(Value::Object(data.feed[i].clone())).into_response())
}

/// POST: `type` must be `link` (defaults `url`, `title`) or `post` (default `content`); 201.
async fn create(State(shared): AppState, params: Params, body: JsonBody) -> Result<Response, ApiError> {
    let respond = Respond::from_params(&params, Respond::Object)?;
    let body = body.into_object()?;
    let defaults = match body.get("type").and_then(Value::as_str) {
        Some("link") => json!({ "type": "link", "url": "", "title": "" }),
        Some("post") => json!({ "type": "post", "content": "" }),
        _ => {
            return Err(ApiError::bad_request(
                "a feed item's `type` must be \"link\" or \"post\"",
            ));
        }
    };
    let mut item = object(defaults);
    let mut data = shared.data();
    item.insert("id".to_owned(), json!(next_numeric_id(&data.feed)));
    merge(&mut item, &body);
    data.feed.push(item.clone());
    Ok(respond.one(StatusCode::CREATED, &item))
}

/// PATCH: the body's fields are applied over the stored ones.
async fn update(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    let respond = Respond::from_params(&params, Respond::Object)?;
    let body = body.into_object()?;
    let mut data = shared.data();
    let i = find(&data.feed, &id)?;
    merge(&mut data.feed[i], &body);
    Ok(respond.one(StatusCode::OK, &data.feed[i]))
}

/// DELETE: answers 200 with the bare pk as a JSON string (`"3"`) by default.
async fn remove(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
) -> Result<Response, ApiError> {
    let respond = Respond::from_params(&params, Respond::Pk)?;
    let mut data = shared.data();
    let i = find(&data.feed, &id)?;
    let item = data.feed.remove(i);
    Ok(respond.one(StatusCode::OK, &item))
}
