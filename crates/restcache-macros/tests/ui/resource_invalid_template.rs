use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

resource! {
    #[resource(path = "/todos/search?q=:q", schema = Todo)]
    pub struct Todos {
        #[member(path = "/todos/:id/(edit)")]
        edit,
        // `"\\?"` is the template `\?`: an escaped, literal question mark.
        #[member(path = "/todos/search\\?q=:q")]
        search,
    }
}

fn main() {}
