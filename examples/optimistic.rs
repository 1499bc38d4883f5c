//! Optimistic updates: a mutation's expected outcome is shown as soon as it starts, and rolled
//! back if the request fails.
//!
//! `cargo run --example optimistic` starts the embedded demo API on 127.0.0.1. The todos
//! resource is declared `optimistic`, so `partial_update` puts its body on top of the cached
//! todo the moment the request starts: every read and every live view sees it at once. When the
//! answer comes, the server's data takes its place; when the request fails, the layer is simply
//! dropped and the old value is back. To make a request fail, `partial_update` is pointed at the
//! demo API's `/misbehave/500`, which answers 500 to everything.
//!
//! A live view (`Controller::subscribe`) of user u1's todos shows each step as a screen would.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use restcache::controller::Subscription;
use restcache::prelude::*;
use restcache::rest::EndpointOptions;
use serde_json::json;

/// A todo of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[serde(rename_all = "camelCase")]
struct Todo {
    #[entity(pk)]
    id: u64,
    user_id: String,
    title: String,
    completed: bool,
}

/// `#4 [x] "Todo 4"`, for the todo `id` of `list`.
fn show(list: &[Todo], id: u64) -> String {
    match list.iter().find(|t| t.id == id) {
        Some(t) => format!("#{} [{}] {:?}", t.id, if t.completed { "x" } else { " " }, t.title),
        None => format!("#{id} not listed"),
    }
}

/// The live view's next item. The timeout only guards against waiting forever.
async fn next_view(live: &mut Subscription<Vec<Todo>>) -> Result<Arc<Vec<Todo>>, Box<dyn std::error::Error>> {
    match tokio::time::timeout(Duration::from_secs(5), live.next()).await {
        Ok(Some(item)) => Ok(item?),
        Ok(None) => Err("the live view ended".into()),
        Err(_) => Err("the live view did not change within 5 s".into()),
    }
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;
    let todos = Resource::<Todo>::new(ResourceOptions {
        path: "/todos/:id".into(),
        optimistic: true,
        ..Default::default()
    })?;
    let u1 = params! { userId: "u1" };

    let list = ctrl.suspense(&todos.get_list(), &u1).await?;
    writeln!(
        out,
        "\n1. GET /todos?userId=u1: {} todos, among them {} and {}",
        list.len(),
        show(&list, 4),
        show(&list, 5)
    )?;

    // A mutation that succeeds.
    let mut live = ctrl.subscribe(&todos.get_list(), &u1);
    next_view(&mut live).await?; // the list as it is
    let patch = tokio::spawn({
        let (ctrl, ep) = (ctrl.clone(), todos.partial_update());
        async move {
            ctrl.fetch(&ep, params! { id: 4 })
                .body(&json!({ "completed": true }))
                .await
        }
    });
    let during = next_view(&mut live).await?;
    writeln!(out, "\n2. PATCH /todos/4 {{\"completed\": true}}")?;
    writeln!(
        out,
        "   the live view changed as soon as the request started: {}",
        show(&during, 4)
    )?;
    let answered = patch.await??;
    let cached = ctrl.get_response(&todos.get_list(), &u1)?.data.unwrap_or_default();
    writeln!(
        out,
        "   the server answered completed = {}; the cached list keeps it: {}",
        answered.completed,
        show(&cached, 4)
    )?;
    drop(live);

    // The same member pointed at a route that always fails.
    let failing = todos.with_member(
        "partial_update",
        EndpointOptions {
            path: Some(r"/misbehave/500\?id=:id".into()),
            ..Default::default()
        },
    )?;
    let mut live = ctrl.subscribe(&todos.get_list(), &u1);
    let before = next_view(&mut live).await?;
    let patch = tokio::spawn({
        let (ctrl, ep) = (ctrl.clone(), failing.partial_update());
        async move {
            ctrl.fetch(&ep, params! { id: 5 })
                .body(&json!({ "title": "Doomed edit" }))
                .await
        }
    });
    let during = next_view(&mut live).await?;
    let failed = patch.await?;
    let after = next_view(&mut live).await?;
    writeln!(
        out,
        "\n3. PATCH {} {{\"title\": \"Doomed edit\"}}, a route that always answers 500",
        failing.partial_update().url(&params! { id: 5 })?
    )?;
    writeln!(out, "   before: {}", show(&before, 5))?;
    writeln!(out, "   during: {}  (optimistic)", show(&during, 5))?;
    match failed {
        Ok(_) => writeln!(out, "   the request unexpectedly succeeded")?,
        Err(e) => writeln!(out, "   the request failed: {e}")?,
    }
    writeln!(out, "   after:  {}  (rolled back)", show(&after, 5))?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
