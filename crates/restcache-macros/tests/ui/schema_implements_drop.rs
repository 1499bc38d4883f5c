use restcache::prelude::*;

// An object schema is read as an entity is: a field its row lacks is taken out of the struct's
// `Default`, which a type that implements `Drop` cannot give up.
#[derive(Clone, Default, Schema)]
struct Page {
    total: u64,
    cursor: String,
}

impl Drop for Page {
    fn drop(&mut self) {}
}

fn main() {}
