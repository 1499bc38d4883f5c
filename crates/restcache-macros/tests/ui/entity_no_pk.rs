use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    id: String,
    title: String,
}

fn main() {}
