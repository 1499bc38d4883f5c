use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

resource! {
    #[resource(schema = Todo)]
    pub struct Todos;
}

fn main() {}
