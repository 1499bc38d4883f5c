//! Which cached lists a new entity joins, and how to change the rule (the seed's `Collection`
//! option with its `nonFilterArgumentKeys` override, as a `CollectionPolicy` type).
//!
//! `cargo run --example custom_collection` starts the embedded demo API on 127.0.0.1.
//!
//! Every list of todos is cached under its arguments: `{userId: "u1"}` and `{userId: "u2"}` are
//! two lists. When `push` creates a todo, the todo joins each cached list whose arguments it
//! matches, by the push's own arguments or its body. Arguments that do not decide *which* todos
//! a list holds, only their order, should not count: by default, the keys that start with
//! `order` (so `orderBy`) are ignored. The example shows:
//!
//! 1. four cached lists of user u1 and u2, with `orderBy` and `sort` arguments;
//! 2. a push with `{userId: "u1"}` under the default rule: it joins u1's list and u1's list with
//!    `orderBy`, but not the one with `sort` (an unknown key filters) nor u2's;
//! 3. the same push through a resource whose policy says only `sort` does not filter: now the
//!    `sort` list receives it and the `orderBy` list does not.

use std::io::Write;

use restcache::prelude::*;
use serde_json::{Value, json};

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
    /// The todos, with the default rule: list arguments starting with `order` do not filter.
    #[resource(path = "/todos/:id", schema = Todo)]
    struct TodoResource;
}

/// A custom rule: `sort` changes the order of a list, not which todos it holds; every other
/// argument filters. (`non_filter_argument_keys = ["sort"]` in `#[resource]` says the same.)
#[derive(Default)]
struct SortIsNotAFilter;

impl CollectionPolicy for SortIsNotAFilter {
    fn non_filter_argument_keys(&self, key: &str) -> bool {
        key == "sort"
    }
}

resource! {
    /// The same todos, with the custom rule.
    #[resource(path = "/todos/:id", schema = Todo, collection = SortIsNotAFilter)]
    struct SortedTodoResource;
}

/// `{userId: u1, orderBy: title}`.
fn label(args: &Value) -> String {
    let pairs: Vec<String> = args
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}: {}", v.as_str().unwrap_or_default()))
        .collect();
    format!("{{{}}}", pairs.join(", "))
}

/// Runs the example against a server at `base_url`, writing what it does to `out`.
pub async fn run(base_url: &str, out: &mut impl Write) -> Result<(), Box<dyn std::error::Error>> {
    let ctrl = Controller::builder().base_url(base_url).build()?;

    // The demo API ignores `orderBy` and `sort`; to the cache they are still separate lists.
    let lists = [
        json!({ "userId": "u1" }),
        json!({ "userId": "u1", "orderBy": "title" }),
        json!({ "userId": "u1", "sort": "title" }),
        json!({ "userId": "u2" }),
    ];
    writeln!(out, "\n1. Four cached lists:")?;
    for args in &lists {
        let list = ctrl.fetch(&TodoResource::get_list(), args).await?;
        writeln!(
            out,
            "   GET {}: {} todos",
            TodoResource::get_list().url(args)?,
            list.len()
        )?;
    }

    let by_default = ctrl
        .fetch(&TodoResource::get_list().push(), params! { userId: "u1" })
        .body(&json!({ "title": "Plan the launch" }))
        .await?;
    writeln!(
        out,
        "\n2. POST /todos?userId=u1 (default rule: `order...` keys do not filter) created #{} {:?}",
        by_default.id, by_default.title
    )?;

    let by_policy = ctrl
        .fetch(&SortedTodoResource::get_list().push(), params! { userId: "u1" })
        .body(&json!({ "title": "Write the notes" }))
        .await?;
    writeln!(
        out,
        "\n3. POST /todos?userId=u1 through SortedTodoResource (only `sort` does not filter) created #{} {:?}",
        by_policy.id, by_policy.title
    )?;

    writeln!(out, "\nThe cached lists each new todo joined:")?;
    let (first, second) = (
        format!("#{} (default)", by_default.id),
        format!("#{} (sort rule)", by_policy.id),
    );
    writeln!(out, "   {:<32} {first:<16} {second:<16} size now", "list")?;
    for args in &lists {
        let list = ctrl
            .get_response(&TodoResource::get_list(), args)?
            .data
            .unwrap_or_default();
        let has = |id: u64| if list.iter().any(|t| t.id == id) { "joined" } else { "-" };
        writeln!(
            out,
            "   {:<32} {:<16} {:<16} {}",
            label(args),
            has(by_default.id),
            has(by_policy.id),
            list.len()
        )?;
    }
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = demo_api::DemoServer::start().await?;
    println!("Started the demo API at {}", server.base_url());
    run(&server.base_url(), &mut std::io::stdout()).await
}
