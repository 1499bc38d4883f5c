use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
enum Todo {
    #[default]
    Open,
    Done,
}

fn main() {}
