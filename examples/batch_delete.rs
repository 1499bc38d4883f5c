//! Deleting many entities with one request, when the server's answer is empty.
//!
//! `cargo run --example batch_delete` starts the embedded demo API on 127.0.0.1. Its
//! `DELETE /todos` takes a JSON array of ids, deletes those todos and answers 200 with an empty
//! body. The member `delete_many` declares its schema as `Vec<Invalidate<Todo>>`: with nothing
//! in the response, the ids it sent are what it invalidates, so the deleted todos leave every
//! cached list and every cached read of them at once.

use std::io::Write;

use restcache::prelude::*;

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

resource! {
    /// The todos, with a batch delete besides the standard members.
    #[resource(path = "/todos/:id", schema = Todo)]
    struct TodoResource {
        /// `DELETE /todos` with the ids as the body, e.g. `["5", "13", "7"]`.
        #[member(method = "DELETE", path = "/todos", body = Vec<String>, schema = Vec<Invalidate<Todo>>)]
        delete_many,
    }
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;
    let doomed = ["5", "13", "7"];
    let listed = |list: &[Todo]| -> Vec<String> {
        doomed
            .iter()
            .filter(|id| list.iter().any(|t| t.id.to_string() == **id))
            .map(|id| format!("#{id}"))
            .collect()
    };

    let list = ctrl.suspense(&TodoResource::get_list(), ()).await?;
    let seven = ctrl.suspense(&TodoResource::get(), params! { id: 7 }).await?;
    writeln!(
        out,
        "\n1. GET /todos: {} todos, among them {}",
        list.len(),
        listed(&list).join(", ")
    )?;
    writeln!(out, "   todo #7 is cached too: {:?}", seven.title)?;

    let invalidated = ctrl.fetch(&TodoResource::delete_many(), ()).body(&doomed).await?;
    writeln!(
        out,
        "\n2. DELETE /todos with the body {doomed:?}: the server answered with an empty body,"
    )?;
    writeln!(out, "   so the ids sent were invalidated: {}", invalidated.join(", "))?;

    let list = ctrl
        .get_response(&TodoResource::get_list(), ())?
        .data
        .unwrap_or_default();
    let still = listed(&list);
    writeln!(
        out,
        "\n3. The cached list now has {} todos; of 5, 13 and 7 still listed: {}",
        list.len(),
        if still.is_empty() {
            "none".to_owned()
        } else {
            still.join(", ")
        }
    )?;
    let seven = ctrl.get_response(&TodoResource::get(), params! { id: 7 })?;
    writeln!(
        out,
        "   todo #7 in the cache: {}, status {:?} (a read would fetch it again)",
        if seven.data.is_some() { "still there" } else { "gone" },
        seven.status
    )?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
