use restcache::prelude::*;

// A read takes the fields no response carried out of the struct's `Default`: a type that
// implements `Drop` cannot give them up.
#[derive(Clone, Default, Entity)]
struct Todo {
    #[entity(pk)]
    id: String,
    title: String,
}

impl Drop for Todo {
    fn drop(&mut self) {}
}

fn main() {}
