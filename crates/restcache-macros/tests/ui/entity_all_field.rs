use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct User {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Default, Entity)]
struct Team {
    #[entity(pk)]
    id: String,
    #[entity(schema)]
    members: All<User>,
}

fn main() {}
