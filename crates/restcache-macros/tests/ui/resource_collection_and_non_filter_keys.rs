use restcache::prelude::*;
use restcache_macros::resource;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
}

#[derive(Default)]
struct Policy;
impl CollectionPolicy for Policy {}

resource! {
    #[resource(path = "/todos/:id", schema = Todo, collection = Policy, non_filter_argument_keys = ["sort"])]
    pub struct Todos;
}

fn main() {}
