use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

resource! {
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct Todos;
}

fn pages() {
    // No `pagination_field`: the list has no `get_page`.
    let _ = Todos::get_list().get_page();
}

fn main() {}
