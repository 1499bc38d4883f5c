use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Link {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Union)]
enum FeedItem {
    Link(Link),
}

fn main() {}
