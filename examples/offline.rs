//! A cache that outlives its process: the app starts again and shows its lists with no request.
//!
//! `cargo run --example offline` starts the embedded demo API on 127.0.0.1 and runs the app
//! twice, each time with a Controller that keeps its cache in a log file
//! ([`FilePersister`]). The first run reads user u1's and user u2's todos and moves one todo
//! from u1 to u2 (`move_item`: a `PATCH` of the todo, after which it leaves u1's list and joins
//! u2's). Each change is saved as it happens: the rows and keys it touched, never the whole
//! cache. The second run builds a new Controller from the same file: both lists show as the
//! first run left them, without a request, until they go stale.

use std::io::Write;
use std::path::Path;

use restcache::persist::FilePersister;
use restcache::prelude::*;
use restcache::store::Schemas;
use serde_json::json;

/// A todo of the demo API.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[serde(rename_all = "camelCase")]
struct Todo {
    #[entity(pk)]
    id: u64,
    user_id: String,
    title: String,
}

resource! {
    /// The demo API's todos, listed by `userId`.
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct TodoResource;
}

/// One start of the app: a Controller restored from `log`, which reads both users' lists.
async fn start(base_url: &str, log: &Path, out: &mut impl Write) -> Result<Controller, Box<dyn std::error::Error>> {
    let ctrl = Controller::builder()
        .base_url(base_url)
        .persist(FilePersister::new(log), Schemas::new().with::<Todo>())
        .build()?;
    for user in ["u1", "u2"] {
        let restored = ctrl.get_response(&TodoResource::get_list(), params! { userId: user })?;
        let from = if restored.data.is_some() {
            "the log"
        } else {
            "the server"
        };
        let list = ctrl
            .suspense(&TodoResource::get_list(), params! { userId: user })
            .await?;
        let ids: Vec<String> = list.iter().map(|t| format!("#{}", t.id)).collect();
        writeln!(out, "   {user}'s todos, from {from}: {}", ids.join(" "))?;
    }
    Ok(ctrl)
}

/// Runs the app twice against a server at `base_url`, keeping its cache in `log`.
pub async fn run_with_log(base_url: &str, log: &Path, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    writeln!(out, "\n1. The first run: an empty log")?;
    let ctrl = start(base_url, log, out).await?;
    let moved = ctrl
        .fetch(&TodoResource::get_list().move_item(), params! { id: 1 })
        .body(&json!({ "userId": "u2" }))
        .await?;
    writeln!(
        out,
        "   moved #{} to {}: it left u1's list and joined u2's",
        moved.id, moved.user_id
    )?;
    drop(ctrl);
    let lines = std::fs::read_to_string(log)?.lines().count();
    writeln!(
        out,
        "   the log holds {lines} lines: a header, then one per row or key saved"
    )?;

    writeln!(out, "\n2. The second run: the same log")?;
    start(base_url, log, out).await?;
    Ok(())
}

/// Runs the example against a server at `base_url`, with a log in the system's temporary
/// directory.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let log = std::env::temp_dir().join(format!("restcache-offline-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let done = run_with_log(base_url, &log, out).await;
    let _ = std::fs::remove_file(&log);
    done
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
