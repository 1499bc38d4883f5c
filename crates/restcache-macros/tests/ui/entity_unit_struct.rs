use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo;

fn main() {}
