//! A cache that stays small: a byte budget evicts what was read longest ago, never what is shown.
//!
//! `cargo run --example bounded` starts the embedded demo API on 127.0.0.1. A Controller built
//! with `gc(GcPolicy::new().max_bytes(..))` measures what its cache holds as it writes. The app
//! shows todo #1 in a live view, then opens todos #2 to #30 one after another, each a key of its
//! own, as a user clicking through details would. Past three quarters of the budget each write
//! also collects, a bounded amount of work at a time: the todos read longest ago are evicted with
//! their keys, the newest stay, and todo #1 stays however old, because a live view shows it.
//! Reading an evicted todo again simply fetches it.

use std::io::Write;

use restcache::prelude::*;
use restcache::store::GcPolicy;

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
    /// The demo API's todos.
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct TodoResource;
}

/// The budget: room for a dozen todos and their keys.
const BUDGET: usize = 8 << 10;

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder()
        .base_url(base_url)
        .gc(GcPolicy::new().max_bytes(BUDGET))
        .build()?;
    let get = TodoResource::get();

    let mut shown = ctrl.subscribe(&get, params! { id: 1 });
    let first = shown.next().await.ok_or("the live view ended")??;
    writeln!(out, "\n1. A live view shows todo #{}: {:?}", first.id, first.title)?;

    for id in 2..=30u64 {
        ctrl.suspense(&get, params! { id: id }).await?;
    }
    writeln!(
        out,
        "\n2. Opened todos #2 to #30, one key each, with a budget of {} KiB",
        BUDGET >> 10
    )?;

    let mut cached = Vec::new();
    for id in 1..=30u64 {
        if ctrl.get_response(&get, params! { id: id })?.data.is_some() {
            cached.push(format!("#{id}"));
        }
    }
    writeln!(out, "   still cached: {}", cached.join(" "))?;
    let evicted = 30 - cached.len();
    writeln!(
        out,
        "   {evicted} evicted, the least recently read; #1 kept, as a live view shows it"
    )?;

    let again = ctrl.suspense(&get, params! { id: 2 }).await?;
    writeln!(out, "\n3. Todo #{} again: fetched anew, {:?}", again.id, again.title)?;
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
