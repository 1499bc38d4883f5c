use restcache::prelude::*;

#[derive(Clone, Default, Schema)]
struct Page(u64, u64);

fn main() {}
