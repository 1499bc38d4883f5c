use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo<T> {
    #[entity(pk)]
    id: String,
    extra: T,
}

fn main() {}
