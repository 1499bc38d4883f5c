use restcache::prelude::*;

#[derive(Clone, Union)]
#[union(attribute = "type")]
struct FeedItem {
    id: String,
}

fn main() {}
