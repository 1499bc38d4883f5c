use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

resource! {
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct Todos {
        #[member(path = "/todos/done")]
        done,
        #[member(path = "/todos/finished")]
        done,
    }
}

fn main() {}
