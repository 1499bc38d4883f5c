use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

#[derive(serde::Serialize)]
struct Query {
    q: String,
}

resource! {
    #[resource(path = "/todos/:id", schema = Todo)]
    pub struct Todos {
        // R-RES-2: a GET sends no body, so it cannot declare one.
        #[member(body = Query)]
        get_list,
        // The add form starts from `get`: still a GET.
        #[member(path = "/todos/search", schema = Vec<Todo>, body = Query)]
        search,
        // With another method it may.
        #[member(method = "POST", path = "/todos/query", schema = Vec<Todo>, body = Query)]
        query,
    }
}

fn main() {}
