use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    #[serde(flatten)]
    id: String,
    title: String,
}

fn main() {}
