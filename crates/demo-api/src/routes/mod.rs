//! The router: every route group, the JSON 404 fallback, the recording middleware around them,
//! and CORS around everything.

use std::sync::Arc;

use axum::Router;
use axum::middleware;

use crate::cors::cors;
use crate::error::{method_not_allowed, route_not_found};
use crate::record::record_then_hold;
use crate::state::Shared;

mod articles;
mod auth;
mod feed;
pub(crate) mod misbehave;
mod redirect;
mod todos;
mod users;

/// The whole API over `shared`.
pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .merge(todos::routes())
        .merge(users::routes())
        .merge(feed::routes())
        .merge(articles::routes())
        .merge(auth::routes())
        .merge(redirect::routes())
        .nest("/misbehave", misbehave::routes())
        .fallback(route_not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(Arc::clone(&shared), record_then_hold))
        // Outermost: preflights are answered before they are recorded.
        .layer(middleware::from_fn(cors))
        .with_state(shared)
}
