use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Default, Schema)]
struct TodoPage {
    #[schema(nest)]
    results: Vec<Todo>,
    total: u64,
}

fn main() {}
