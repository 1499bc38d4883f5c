use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: u64,
    title: String,
    #[serde(rename = "title")]
    heading: String,
}

fn main() {}
