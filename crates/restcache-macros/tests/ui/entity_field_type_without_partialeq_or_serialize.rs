use restcache::prelude::*;
use serde::Deserialize;

#[derive(Clone, Default, Deserialize)]
struct Audit {
    created_by: String,
}

#[derive(Clone, Default, Deserialize, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
    #[serde(flatten)]
    audit: Audit,
}

fn main() {}
