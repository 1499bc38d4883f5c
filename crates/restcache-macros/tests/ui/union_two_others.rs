use restcache::prelude::*;
use serde_json::Value;

#[derive(Clone, Default, Entity)]
struct Link {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Union)]
#[union(attribute = "type")]
enum FeedItem {
    Link(Link),
    #[union(other)]
    Unknown(Value),
    #[union(other)]
    Other(Value),
}

fn main() {}
