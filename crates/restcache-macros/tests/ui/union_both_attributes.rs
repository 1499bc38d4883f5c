use restcache::prelude::*;
use serde_json::Value;

#[derive(Clone, Default, Entity)]
struct Link {
    #[entity(pk)]
    id: String,
}

fn kind(value: &Value, _: Option<&Value>, _: Option<&str>) -> Option<String> {
    value.get("kind")?.as_str().map(str::to_owned)
}

#[derive(Clone, Union)]
#[union(attribute = "type", attribute_fn = kind)]
enum FeedItem {
    Link(Link),
}

fn main() {}
