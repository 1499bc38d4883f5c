use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct Link {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Default, Entity)]
struct Post {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Union)]
#[union(attribute = "type")]
enum FeedItem {
    Link(Link),
    #[union(tag = "link")]
    Post(Post),
}

fn main() {}
