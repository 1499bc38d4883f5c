use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: Option<String>,
}

#[derive(Clone, Default, Entity)]
struct Flag {
    #[entity(pk)]
    on: bool,
}

#[derive(Clone, Default, Entity)]
struct Pair {
    #[entity(pk)]
    ids: (u32, u32),
}

fn main() {}
