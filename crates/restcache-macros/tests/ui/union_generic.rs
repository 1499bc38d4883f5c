use restcache::prelude::*;

#[derive(Clone, Union)]
#[union(attribute = "type")]
enum FeedItem<T> {
    Item(T),
}

fn main() {}
