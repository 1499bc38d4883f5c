// Every error of one derive is reported, not only the first.
use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
#[serde(rename_all = "camelcase")]
struct Todo<T> {
    #[entity(pk, schema)]
    id: String,
    #[entity(nested)]
    owner: T,
}

fn main() {}
