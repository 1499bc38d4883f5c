use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct User {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
    #[entity(schema)]
    #[serde(skip)]
    owner: Option<User>,
}

fn main() {}
