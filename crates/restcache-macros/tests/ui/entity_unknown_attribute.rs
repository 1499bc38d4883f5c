use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
#[entity(kye = "Todo")]
struct Todo {
    #[entity(pkk)]
    id: String,
}

fn main() {}
