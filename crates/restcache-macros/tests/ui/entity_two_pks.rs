use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
    #[entity(pk)]
    slug: String,
}

fn main() {}
