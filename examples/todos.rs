//! The main job of restcache, told with todos: one cache, every read up to date.
//!
//! `cargo run --example todos` starts the embedded demo API on 127.0.0.1 and talks to it over
//! HTTP. `cargo run --example todos -- --base-url http://host:port` talks to any server with
//! the conventional routes instead: `GET /todos`, `POST /todos`, `GET|PATCH|DELETE /todos/:id`.

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
async fn show_live(live: &mut restcache::controller::Subscription<Vec<Todo>>) {
    match tokio::time::timeout(Duration::from_secs(5), live.next()).await {
        Ok(Some(Ok(list))) => println!("   live stream: the list now has {}", summary(&list)),
        Ok(Some(Err(e))) => println!("   live stream: {e}"),
        _ => println!("   live stream: no change"),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (base_url, server) = match (args.next().as_deref(), args.next()) {
        (Some("--base-url"), Some(url)) => (url, None),
        (None, _) => {
            let server = demo_api::DemoServer::start().await?;
            println!("Started the demo API at {}", server.base_url());
            (server.base_url(), Some(server))
        }
        _ => return Err("usage: todos [--base-url URL]".into()),
    };
    let ctrl = Controller::builder().base_url(&base_url).build()?;

    // A live view of the list: its first item is the list itself, then one per change.
    let mut live = ctrl.subscribe(&TodoResource::get_list(), ());
    let list = ctrl.suspense(&TodoResource::get_list(), ()).await?;
    println!("\n1. GET /todos: {}", summary(&list));
    for t in list.iter().take(3) {
        println!("   [{}] #{} {}", if t.completed { "x" } else { " " }, t.id, t.title);
    }
    show_live(&mut live).await;

    let first = &list[0];
    let one = ctrl.suspense(&TodoResource::get(), params! { id: &first.id }).await?;
    println!(
        "\n2. Todo #{} read without a request (it was in the cached list): {:?}",
        one.id, one.title
    );
    if let Some(server) = &server {
        println!("   the demo API has seen {} request(s) so far", server.requests().len());
    }

    let made = ctrl
        .fetch(&TodoResource::get_list().push(), ())
        .body(&json!({ "title": "Try restcache", "completed": false }))
        .await?;
    println!(
        "\n3. POST /todos created #{} {:?}; it joined the cached list.",
        made.id, made.title
    );
    show_live(&mut live).await;

    ctrl.fetch(&TodoResource::partial_update(), params! { id: &first.id })
        .body(&json!({ "completed": true }))
        .await?;
    let cached = ctrl
        .get_response(&TodoResource::get_list(), ())?
        .data
        .unwrap_or_default();
    let updated = cached.iter().find(|t| t.id == first.id).is_some_and(|t| t.completed);
    println!(
        "\n4. PATCH /todos/{} completed it; the cached list agrees: completed = {updated}",
        first.id
    );
    show_live(&mut live).await;

    ctrl.fetch(&TodoResource::delete(), params! { id: &made.id }).await?;
    let cached = ctrl
        .get_response(&TodoResource::get_list(), ())?
        .data
        .unwrap_or_default();
    let still_there = cached.iter().any(|t| t.id == made.id);
    println!(
        "\n5. DELETE /todos/{} removed it from every list: still listed = {still_there}",
        made.id
    );
    show_live(&mut live).await;

    let all = ctrl
        .suspense(&TodoResource::get_list().with_schema::<All<Todo>>(), ())
        .await?;
    println!(
        "\n6. All<Todo>: {} in the cache, whichever request brought them.",
        summary(&all)
    );
    Ok(())
}
