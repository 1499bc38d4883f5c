use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo(String, String);

fn main() {}
