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
        #[member(extends = done, path = "/todos/done/recent")]
        recent,
        #[member(extends = get_list, path = "/todos/done")]
        done,
        #[member(extends = again)]
        again,
    }
}

fn main() {}
