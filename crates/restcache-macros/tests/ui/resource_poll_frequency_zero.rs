use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

resource! {
    #[resource(path = "/todos/:id", schema = Todo, poll_frequency = 0)]
    pub struct Todos {
        #[member(poll_frequency = 0)]
        get,
    }
}

fn main() {}
