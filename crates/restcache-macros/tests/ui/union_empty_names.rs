use restcache::prelude::*;

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Link {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "")]
enum Blank {
    Link(Link),
}

#[derive(Clone, Debug, PartialEq, Union)]
#[union(attribute = "kind")]
enum Untagged {
    #[union(tag = "")]
    Link(Link),
}

fn main() {}
