use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

// No collection field: not a list schema.
#[derive(Clone, Default, Schema)]
struct Summary {
    #[schema(nested)]
    latest: Vec<Todo>,
    total: u64,
}

fn main() {
    let mut store = Store::new();
    let _ = store.set_response::<Push<Summary>>("POST /todos", &(), &serde_json::json!({}));
}
