//! Static files: the files of a directory under `/app/`, so a browser page can be served from the
//! API's own origin. Not behind the recording middleware: never recorded, held or faulted.

use std::ffi::OsStr;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{Redirect, Response};
use axum::routing::get;
use percent_encoding::percent_decode_str;

use crate::error::{ApiError, method_not_allowed};
use crate::routes::misbehave::raw;

/// Where the files are served.
const PREFIX: &str = "/app/";

/// The routes serving `root`, which is absolute with every link resolved.
pub(super) fn routes(root: PathBuf) -> Router {
    Router::new()
        // Without the slash, the page's relative URLs would resolve against `/`.
        .route("/app", get(|| async { Redirect::permanent(PREFIX) }))
        .route("/app/", get(serve))
        .route("/app/{*path}", get(serve))
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(Arc::new(root))
}

/// `GET /app/PATH`: the file `root/PATH`, or a 404 if there is none or it would be outside `root`.
async fn serve(State(root): State<Arc<PathBuf>>, uri: Uri) -> Result<Response, ApiError> {
    let target = uri.path();
    let relative = target
        .strip_prefix(PREFIX)
        .and_then(relative_path)
        .ok_or_else(|| no_file(target))?;
    let file = tokio::fs::canonicalize(root.join(&relative))
        .await
        .map_err(|e| unreadable(target, e))?;
    // A link may still lead out of the directory.
    if !file.starts_with(root.as_path()) || !tokio::fs::metadata(&file).await.is_ok_and(|m| m.is_file()) {
        return Err(no_file(target));
    }
    let body = tokio::fs::read(&file).await.map_err(|e| unreadable(target, e))?;
    Ok(raw(StatusCode::OK, Some(content_type(&relative)), body))
}

/// The file the part of the path after `/app/` names, relative to the served directory. Each
/// segment is percent-decoded and must be a plain name; a trailing `/` names that directory's
/// `index.html`. `None` for anything that could name a file elsewhere: an empty segment, `.`,
/// `..`, a decoded `/` or `\`, a NUL, or a name that is not UTF-8.
fn relative_path(rest: &str) -> Option<PathBuf> {
    let mut segments: Vec<&str> = rest.split('/').collect();
    if let Some(last @ &mut "") = segments.last_mut() {
        *last = "index.html";
    }
    segments.into_iter().map(plain_name).collect()
}

/// The segment percent-decoded, if that is one plain file name.
fn plain_name(segment: &str) -> Option<String> {
    let name = percent_decode_str(segment).decode_utf8().ok()?;
    if name.contains(['/', '\\', '\0']) {
        return None;
    }
    let mut components = Path::new(name.as_ref()).components();
    match (components.next(), components.next()) {
        (Some(Component::Normal(_)), None) => Some(name.into_owned()),
        _ => None,
    }
}

/// The `Content-Type` for a file, from its extension.
fn content_type(file: &Path) -> &'static str {
    let extension = file.extension().and_then(OsStr::to_str).map(str::to_ascii_lowercase);
    match extension.as_deref() {
        Some("html" | "htm") => "text/html; charset=utf-8",
        Some("js" | "mjs") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("png") => "image/png",
        Some("json" | "map") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("ico") => "image/x-icon",
        Some("txt") => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn no_file(target: &str) -> ApiError {
    ApiError::not_found(format!("no file at `{target}`"))
}

/// A 404 if the file is not there, else a 500 naming the error.
fn unreadable(target: &str, e: io::Error) -> ApiError {
    match e.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => no_file(target),
        _ => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("could not read `{target}`: {e}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_are_plain_names_below_the_directory() {
        let path = |rest: &str| relative_path(rest).map(|p| p.to_string_lossy().into_owned());
        assert_eq!(path("").as_deref(), Some("index.html"));
        assert_eq!(path("docs/").as_deref(), Some("docs/index.html"));
        assert_eq!(path("pkg/a%20b.js").as_deref(), Some("pkg/a b.js"));
        for escaping in [
            "..", "a/../..", "%2e%2e", "a%2fb", "/etc", "a//b", ".", "%5c", "%00", "%ff",
        ] {
            assert_eq!(path(escaping), None, "{escaping}");
        }
    }

    #[test]
    fn content_types_follow_the_extension() {
        assert_eq!(content_type(Path::new("x/APP.JS")), "text/javascript");
        assert_eq!(content_type(Path::new("a.wasm")), "application/wasm");
        assert_eq!(content_type(Path::new("README")), "application/octet-stream");
    }
}
