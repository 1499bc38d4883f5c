use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

resource! {
    #[resource(path = "/todos/:id")]
    pub struct Todos;
}

fn main() {}
