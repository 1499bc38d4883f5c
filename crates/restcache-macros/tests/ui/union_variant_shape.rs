use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Link {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Union)]
#[union(attribute = "type")]
enum FeedItem {
    Link(Link),
    Empty,
    Named { link: Link },
    Pair(Link, Link),
}

fn main() {}
