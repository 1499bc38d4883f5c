//! Todos, at `/todos` and scoped to a user at `/users/{user_id}/todos`.
//!
//! Lists filter on `userId` and `completed` (exact match on the string form) and page with `page`
//! (1-based) and `limit` (default 10); other query keys are ignored.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use crate::data::{Data, Record, filter_exact, merge, next_numeric_id, object, paginate, position, to_array};
use crate::error::ApiError;
use crate::extract::{JsonBody, Params, PathParams};
use crate::reply::Respond;
use crate::state::Shared;

type AppState = State<Arc<Shared>>;

const FILTERS: [&str; 2] = ["userId", "completed"];

pub(super) fn routes() -> Router<Arc<Shared>> {
    Router::new()
        .route(
            "/todos",
            get(list).post(create).patch(update_by_body).delete(delete_many),
        )
        .route("/todos/search", get(search))
        .route("/todos/{id}", get(read).put(replace).patch(update).delete(remove))
        .route("/users/{user_id}/todos", get(user_list).post(user_create))
        .route("/users/{user_id}/todos/done", get(user_done))
        .route(
            "/users/{user_id}/todos/{id}",
            get(user_read).put(user_replace).patch(user_update).delete(user_remove),
        )
}

async fn list(State(shared): AppState, params: Params) -> Result<Response, ApiError> {
    listing(&shared, None, &params, |_| true)
}

async fn search(State(shared): AppState, params: Params) -> Result<Response, ApiError> {
    let needle = params.get("q").unwrap_or_default().to_lowercase();
    listing(&shared, None, &params, |todo| {
        todo.get("title")
            .and_then(Value::as_str)
            .is_some_and(|title| title.to_lowercase().contains(&needle))
    })
}

async fn create(State(shared): AppState, params: Params, body: JsonBody) -> Result<Response, ApiError> {
    creating(&shared, None, &params, body)
}

async fn read(State(shared): AppState, PathParams(id): PathParams<String>) -> Result<Response, ApiError> {
    reading(&shared, None, &id)
}

async fn replace(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    changing(&shared, None, &id, &params, body, Change::Replace)
}

async fn update(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    changing(&shared, None, &id, &params, body, Change::Merge)
}

/// `PATCH /todos` with a todo's `id` (a string or number) and the fields to merge: what
/// `PATCH /todos/{id}` does, the id taken from the body, as a list's `remove` sends it.
async fn update_by_body(State(shared): AppState, params: Params, body: JsonBody) -> Result<Response, ApiError> {
    let id = match body.0.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(Value::Number(id)) => id.to_string(),
        _ => return Err(ApiError::bad_request("expected an object with the todo's `id`")),
    };
    changing(&shared, None, &id, &params, body, Change::Merge)
}

async fn remove(
    State(shared): AppState,
    PathParams(id): PathParams<String>,
    params: Params,
) -> Result<Response, ApiError> {
    removing(&shared, None, &id, &params)
}

/// `DELETE /todos` with a JSON array of ids (strings or numbers): deletes those that exist and,
/// by default, answers 200 with an empty body.
async fn delete_many(State(shared): AppState, params: Params, body: JsonBody) -> Result<Response, ApiError> {
    let respond = Respond::from_params(&params, Respond::Blank)?;
    let Value::Array(items) = body.0 else {
        return Err(ApiError::bad_request("expected a JSON array of ids"));
    };
    let ids = items
        .iter()
        .map(|item| match item {
            Value::String(id) => Ok(id.clone()),
            Value::Number(id) => Ok(id.to_string()),
            other => Err(ApiError::bad_request(format!(
                "ids must be strings or numbers, got `{other}`"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut data = shared.data();
    let mut deleted = Vec::new();
    for id in ids {
        if let Some(i) = position(&data.todos, &id) {
            deleted.push(data.todos.remove(i));
        }
    }
    Ok(respond.many(StatusCode::OK, &deleted))
}

async fn user_list(
    State(shared): AppState,
    PathParams(user): PathParams<String>,
    params: Params,
) -> Result<Response, ApiError> {
    listing(&shared, Some(&user), &params, |_| true)
}

async fn user_done(
    State(shared): AppState,
    PathParams(user): PathParams<String>,
    params: Params,
) -> Result<Response, ApiError> {
    listing(&shared, Some(&user), &params, |todo| {
        todo.get("completed") == Some(&Value::Bool(true))
    })
}

async fn user_create(
    State(shared): AppState,
    PathParams(user): PathParams<String>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    creating(&shared, Some(&user), &params, body)
}

async fn user_read(
    State(shared): AppState,
    PathParams((user, id)): PathParams<(String, String)>,
) -> Result<Response, ApiError> {
    reading(&shared, Some(&user), &id)
}

async fn user_replace(
    State(shared): AppState,
    PathParams((user, id)): PathParams<(String, String)>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    changing(&shared, Some(&user), &id, &params, body, Change::Replace)
}

async fn user_update(
    State(shared): AppState,
    PathParams((user, id)): PathParams<(String, String)>,
    params: Params,
    body: JsonBody,
) -> Result<Response, ApiError> {
    changing(&shared, Some(&user), &id, &params, body, Change::Merge)
}

async fn user_remove(
    State(shared): AppState,
    PathParams((user, id)): PathParams<(String, String)>,
    params: Params,
) -> Result<Response, ApiError> {
    removing(&shared, Some(&user), &id, &params)
}

/// Checks that the scoping user exists.
fn check_user(data: &Data, user: Option<&str>) -> Result<(), ApiError> {
    match user {
        Some(user) if position(&data.users, user).is_none() => Err(ApiError::not_found(format!("no user `{user}`"))),
        _ => Ok(()),
    }
}

/// Where todo `id` is, if it exists and belongs to `user` (when scoped).
fn find(data: &Data, user: Option<&str>, id: &str) -> Result<usize, ApiError> {
    check_user(data, user)?;
    position(&data.todos, id)
        .filter(|&i| user.is_none_or(|user| data.todos[i].get("userId").and_then(Value::as_str) == Some(user)))
        .ok_or_else(|| ApiError::not_found(format!("no todo `{id}`")))
}

fn listing(
    shared: &Shared,
    user: Option<&str>,
    params: &Params,
    keep: impl Fn(&Record) -> bool,
) -> Result<Response, ApiError> {
    let data = shared.data();
    check_user(&data, user)?;
    let todos: Vec<Record> = data
        .todos
        .iter()
        .filter(|todo| user.is_none_or(|user| todo.get("userId").and_then(Value::as_str) == Some(user)))
        .filter(|todo| keep(todo))
        .cloned()
        .collect();
    drop(data);
    let matching = filter_exact(todos, params, &FILTERS);
    // How many match before paging, as json-server tells it.
    let total = matching.len();
    let page = paginate(matching, params)?;
    Ok(([("x-total-count", total.to_string())], Json(to_array(page))).into_response())
}

fn reading(shared: &Shared, user: Option<&str>, id: &str) -> Result<Response, ApiError> {
    let data = shared.data();
    let i = find(&data, user, id)?;
    Ok(Respond::Object.one(StatusCode::OK, &data.todos[i]))
}

/// Defaults for a new todo, before the body's fields are merged over them.
fn defaults(id: Value, user: &str) -> Record {
    object(json!({ "id": id, "userId": user, "title": "", "completed": false }))
}

fn creating(shared: &Shared, user: Option<&str>, params: &Params, body: JsonBody) -> Result<Response, ApiError> {
    let respond = Respond::from_params(params, Respond::Object)?;
    let body = body.into_object()?;
    let mut data = shared.data();
    check_user(&data, user)?;
    let mut todo = defaults(json!(next_numeric_id(&data.todos)), user.unwrap_or("u1"));
    merge(&mut todo, &body);
    if let Some(user) = user {
        todo.insert("userId".to_owned(), json!(user));
    }
    data.todos.push(todo.clone());
    Ok(respond.one(StatusCode::CREATED, &todo))
}

/// How PUT and PATCH change a todo.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    /// PUT: every field but `id` (and the owning `userId`, unless the body sets it) starts over
    /// from the defaults, then the body's fields are applied.
    Replace,
    /// PATCH: the body's fields are applied over the stored ones.
    Merge,
}

fn changing(
    shared: &Shared,
    user: Option<&str>,
    id: &str,
    params: &Params,
    body: JsonBody,
    change: Change,
) -> Result<Response, ApiError> {
    let respond = Respond::from_params(params, Respond::Object)?;
    let body = body.into_object()?;
    let mut data = shared.data();
    let i = find(&data, user, id)?;
    let current = &data.todos[i];
    let mut todo = match change {
        Change::Replace => {
            let owner = current.get("userId").and_then(Value::as_str).unwrap_or("u1");
            defaults(current.get("id").cloned().unwrap_or(Value::Null), owner)
        }
        Change::Merge => current.clone(),
    };
    merge(&mut todo, &body);
    if let Some(user) = user {
        todo.insert("userId".to_owned(), json!(user));
    }
    data.todos[i] = todo.clone();
    Ok(respond.one(StatusCode::OK, &todo))
}

fn removing(shared: &Shared, user: Option<&str>, id: &str, params: &Params) -> Result<Response, ApiError> {
    let respond = Respond::from_params(params, Respond::Empty)?;
    let mut data = shared.data();
    let i = find(&data, user, id)?;
    let todo = data.todos.remove(i);
    Ok(respond.one(StatusCode::OK, &todo))
}
