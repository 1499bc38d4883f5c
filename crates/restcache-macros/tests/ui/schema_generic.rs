use restcache::prelude::*;

#[derive(Clone, Default, Schema)]
struct Page<T> {
    #[schema(nested)]
    results: Vec<T>,
    total: u64,
}

fn main() {}
