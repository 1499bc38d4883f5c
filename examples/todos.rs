//! The main job of restcache, told with todos: one cache, every read up to date.
//!
//! `cargo run --example todos` starts the embedded demo API on 127.0.0.1 and talks to it over
//! HTTP. `cargo run --example todos -- --base-url http://host:port` talks to any server with
//! the conventional routes instead: `GET /todos`, `POST /todos`, `GET|PATCH|DELETE /todos/:id`.

use std::io::Write;
use std::time::Duration;

use restcache::prelude::*;
use serde::{Deserialize, Deserializer};
use serde_json::{Value, json};

/// A todo. Servers differ in the type of `id` (number or string), so it is read as text.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Todo {
    #[entity(pk)]
    #[serde(deserialize_with = "text")]
    id: String,
    title: String,
    completed: bool,
}

fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) => s,
        other => other.to_string(),
    })
}

resource! {
    /// The todos of the server.
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct TodoResource;
}

fn summary(todos: &[Todo]) -> String {
    let done = todos.iter().filter(|t| t.completed).count();
    format!("{} todos, {done} completed", todos.len())
}

/// Waits (briefly) for the live stream's next item and prints it.
async fn show_live(
    live: &mut restcache::controller::Subscription<Vec<Todo>>,
    out: &mut impl Write,
) -> std::io::Result<()> {
    match tokio::time::timeout(Duration::from_secs(5), live.next()).await {
        Ok(Some(Ok(list))) => writeln!(out, "   live stream: the list now has {}", summary(&list)),
        Ok(Some(Err(e))) => writeln!(out, "   live stream: {e}"),
        _ => writeln!(out, "   live stream: no change"),
    }
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;
    // A live view of the list: its first item is the list itself, then one per change.
    let mut live = ctrl.subscribe(&TodoResource::get_list(), ());
    let list = ctrl.suspense(&TodoResource::get_list(), ()).await?;
    writeln!(out, "\n1. GET /todos: {}", summary(&list))?;
    for t in list.iter().take(3) {
        writeln!(
            out,
            "   [{}] #{} {}",
            if t.completed { "x" } else { " " },
            t.id,
            t.title
        )?;
    }
    show_live(&mut live, out).await?;

    // `get_response` only looks at the cache; suspense fetches only what is missing or invalid.
    let Some(first) = list.first() else {
        return Err("the server has no todos to work with; add one and run again".into());
    };
    let status = ctrl
        .get_response(&TodoResource::get(), params! { id: &first.id })?
        .status;
    let one = ctrl.suspense(&TodoResource::get(), params! { id: &first.id }).await?;
    writeln!(
        out,
        "\n2. Todo #{} read without a request (the cached list had it, status {status:?}): {:?}",
        one.id, one.title
    )?;
    // What a view would show for it: loading, ready, fetching (stale data, refetch running) or error.
    let shown = match ctrl.status(&TodoResource::get(), params! { id: &first.id })? {
        ReadStatus::Loading => "loading".to_owned(),
        ReadStatus::Ready(todo) => format!("ready, {:?}", todo.title),
        ReadStatus::Fetching(todo) => format!("fetching, showing {:?}", todo.title),
        ReadStatus::Error { error, .. } => format!("error: {error}"),
    };
    writeln!(out, "   read status: {shown}")?;

    let made = ctrl
        .fetch(&TodoResource::get_list().push(), ())
        .body(&json!({ "title": "Try restcache", "completed": false }))
        .await?;
    writeln!(
        out,
        "\n3. POST /todos created #{} {:?}; it joined the cached list.",
        made.id, made.title
    )?;
    show_live(&mut live, out).await?;

    ctrl.fetch(&TodoResource::partial_update(), params! { id: &first.id })
        .body(&json!({ "completed": true }))
        .await?;
    let cached = ctrl
        .get_response(&TodoResource::get_list(), ())?
        .data
        .unwrap_or_default();
    let updated = cached.iter().find(|t| t.id == first.id).is_some_and(|t| t.completed);
    writeln!(
        out,
        "\n4. PATCH /todos/{} completed it; the cached list agrees: completed = {updated}",
        first.id
    )?;
    show_live(&mut live, out).await?;

    ctrl.fetch(&TodoResource::delete(), params! { id: &made.id }).await?;
    let cached = ctrl
        .get_response(&TodoResource::get_list(), ())?
        .data
        .unwrap_or_default();
    let still_there = cached.iter().any(|t| t.id == made.id);
    writeln!(
        out,
        "\n5. DELETE /todos/{} removed it from every list: still listed = {still_there}",
        made.id
    )?;
    show_live(&mut live, out).await?;

    let all = ctrl
        .suspense(&TodoResource::get_list().with_schema::<All<Todo>>(), ())
        .await?;
    writeln!(
        out,
        "\n6. All<Todo>: {} in the cache, whichever request brought them.",
        summary(&all)
    )?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (base_url, _server) = match (args.next().as_deref(), args.next()) {
        (Some("--base-url"), Some(url)) => (url, None),
        (None, _) => {
            let server = demo_api::DemoServer::start().await?;
            println!("Started the demo API at {}", server.base_url());
            (server.base_url(), Some(server))
        }
        _ => return Err("usage: todos [--base-url URL]".into()),
    };
    run(&base_url, &mut std::io::stdout()).await
}
