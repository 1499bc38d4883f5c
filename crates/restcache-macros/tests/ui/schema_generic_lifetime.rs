use restcache::prelude::*;

#[derive(Clone, Default, Schema)]
struct Page<'a, T, const N: usize> {
    #[schema(nested)]
    results: Vec<T>,
    title: &'a str,
}

fn main() {}
