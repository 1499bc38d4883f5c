use restcache::prelude::*;

#[derive(Clone, Default, Entity)]
struct User {
    #[entity(pk)]
    id: String,
}

#[derive(Clone, Default, Schema)]
#[serde(rename_all = "camelCase")]
struct Page {
    #[schema(nested)]
    user_list: Vec<User>,
    #[serde(rename = "userList")]
    users: Vec<String>,
}

fn main() {}
