//! The router: the control routes and static files; every API route group and the JSON 404
//! fallback, with the recording middleware around them; and CORS around everything.

use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::middleware;
use axum::routing::any;

use crate::cors::cors;
use crate::error::{method_not_allowed, route_not_found};
use crate::record::record_then_hold;
use crate::state::Shared;

mod articles;
mod auth;
mod control;
mod feed;
pub(crate) mod misbehave;
mod redirect;
mod static_files;
mod todos;
mod users;

/// The whole server over `shared`, serving the files of `static_root` (absolute, with every link
/// resolved) under `/app/` if there is one.
pub(crate) fn router(shared: Arc<Shared>, static_root: Option<PathBuf>) -> Router {
    let api = Router::new()
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
        .with_state(Arc::clone(&shared));
    // Beside the API, not inside it: control calls and files are not recorded, held or faulted.
    let mut app = Router::new()
        .nest("/_control", control::routes().with_state(shared))
        // The nested fallback answers `/_control` and `/_control/x`, but not `/_control/`.
        .route("/_control/", any(route_not_found));
    if let Some(root) = static_root {
        app = app.merge(static_files::routes(root));
    }
    app.fallback_service(api)
        // Outermost: preflights are answered before they are recorded.
        .layer(middleware::from_fn(cors))
}
