//! The main job of restcache, told with todos: one list, one entity table, every read up to date.
//!
//! Run with `cargo run --example todos`. This version writes responses straight into a
//! [`Store`]; the HTTP resources and the `Controller` build on exactly this engine.

use restcache::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
struct User {
    #[entity(pk)]
    id: String,
    name: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Entity)]
struct Todo {
    #[entity(pk)]
    id: u64,
    title: String,
    completed: bool,
    #[entity(schema)]
    owner: Option<User>,
}

type TodoList = Collection<Vec<Todo>>;

fn show(label: &str, todos: &[Todo]) {
    println!("{label}:");
    for t in todos {
        let owner = t.owner.as_ref().map_or("nobody", |u| u.name.as_str());
        println!(
            "  [{}] #{} {} ({owner})",
            if t.completed { "x" } else { " " },
            t.id,
            t.title
        );
    }
}

fn main() -> Result<(), restcache::Error> {
    let mut store = Store::new();
    let ada = json!({ "id": "u1", "name": "Ada" });

    // A list response: two todos sharing one owner. The owner is stored once.
    store.set_response::<TodoList>(
        "GET /todos",
        &(),
        &json!([
            { "id": 1, "title": "Write the engine", "completed": true, "owner": ada },
            { "id": 2, "title": "Write the docs", "completed": false, "owner": ada },
        ]),
    )?;
    let list = store
        .get_response::<TodoList>("GET /todos", &())?
        .data
        .expect("the list is cached");
    show("The list", &list);

    // `GET /todos/2` was never fetched, but the list already holds todo 2: query mode finds it.
    let one = store.get_response::<Todo>("GET /todos/2", &params! { id: 2 })?;
    println!(
        "\nRead todo 2 without a request: {:?}",
        one.data.map(|t| t.title.clone())
    );

    // A created todo joins the cached list.
    store.set_response::<Push<TodoList>>(
        "POST /todos",
        &(),
        &json!({ "id": 3, "title": "Ship it", "owner": ada }),
    )?;
    show(
        "\nAfter get_list().push()",
        &store.get_response::<TodoList>("GET /todos", &())?.data.unwrap(),
    );

    // A PATCH answer carrying one field updates the entity everywhere.
    store.set_response::<Todo>("PATCH /todos/2", &(), &json!({ "id": 2, "completed": true }))?;
    // So does a change to the shared owner.
    store.set_response::<User>("GET /users/u1", &(), &json!({ "id": "u1", "name": "Ada Lovelace" }))?;
    show(
        "\nAfter partial_update and a user refresh",
        &store.get_response::<TodoList>("GET /todos", &())?.data.unwrap(),
    );

    // A delete removes the todo from every list.
    store.set_response::<Invalidate<Todo>>("DELETE /todos/1", &params! { id: 1 }, &serde_json::Value::Null)?;
    show(
        "\nAfter delete",
        &store.get_response::<TodoList>("GET /todos", &())?.data.unwrap(),
    );

    // All<Todo>: every valid todo in the cache, whoever fetched it.
    let all = store.get_response::<All<Todo>>("GET /todos/all", &())?.data.unwrap();
    println!(
        "\nAll cached todos: {}",
        all.iter().map(|t| t.title.as_str()).collect::<Vec<_>>().join(", ")
    );
    Ok(())
}
