use restcache::prelude::*;
use serde::Deserialize;

#[derive(Clone, Default, PartialEq, Deserialize)]
struct Paging {
    total: u64,
}

#[derive(Clone, Default, Deserialize, Schema)]
struct Page {
    #[serde(flatten)]
    paging: Paging,
}

fn main() {}
