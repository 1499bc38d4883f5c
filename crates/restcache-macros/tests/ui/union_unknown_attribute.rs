use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Link {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Union)]
#[union(attribute = "type")]
enum FeedItem {
    #[union(tags = "url")]
    Link(Link),
}

fn main() {}
