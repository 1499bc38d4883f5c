use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

// `list` with a path of its own would name its params `TodosListParams`, as `get_list` does;
// `foo_bar` and `foo__bar` would both name theirs `TodosFooBarParams`.
resource! {
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct Todos {
        #[member(path = "/todos/all")]
        list,
        #[member(path = "/todos/foo")]
        foo_bar,
        #[member(path = "/todos/foo/:id")]
        foo__bar,
    }
}

fn main() {}
