use restcache::prelude::*;

fn todo_pk(input: &serde_json::Value) -> Option<String> {
    input.get("slug")?.as_str().map(str::to_owned)
}

#[derive(Clone, Default, Entity)]
#[entity(pk = todo_pk)]
struct Todo {
    #[entity(pk)]
    id: String,
    slug: String,
}

fn main() {}
