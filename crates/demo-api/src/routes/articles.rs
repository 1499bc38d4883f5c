//! Articles, paginated as an object: `{ "results": [...], "total", "limit", "skip" }`.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::data::{position, to_array};
use crate::error::ApiError;
use crate::extract::{Params, PathParams};
use crate::state::Shared;

type AppState = State<Arc<Shared>>;

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route("/articles", get(list))
        .route("/articles/{id}", get(read))
}

/// `GET /articles?skip=0&limit=10` (those are the defaults).
async fn list(State(shared): AppState, params: Params) -> Result<Response, ApiError> {
    let skip = params.parse_or("skip", 0usize)?;
    let limit = params.parse_or("limit", 10usize)?;
    let data = shared.data();
    let results = data.articles.iter().skip(skip).take(limit).cloned().collect();
    let page = json!({ "results": to_array(results), "total": data.articles.len(), "limit": limit, "skip": skip });
    Ok(Json(page).into_response())
}

async fn read(State(shared): AppState, PathParams(id): PathParams<String>) -> Result<Response, ApiError> {
    let data = shared.data();
    let i = position(&data.articles, &id).ok_or_else(|| ApiError::not_found(format!("no article `{id}`")))?;
    Ok(Json(Value::Object(data.articles[i].clone())).into_response())
}
