use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Default, Schema)]
struct Board {
    #[schema(collection)]
    open: Collection<Vec<Todo>>,
    #[schema(collection)]
    done: Collection<Vec<Todo>>,
}

fn main() {}
