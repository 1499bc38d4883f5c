use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

// `#[schema(collection)]` on a field that holds no collection.
#[derive(Clone, Default, Schema)]
struct Summary {
    #[schema(collection)]
    latest: Vec<Todo>,
}

fn main() {}
