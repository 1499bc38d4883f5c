use restcache::prelude::*;

mod seconds {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        serde::Deserialize::deserialize(d)
    }
}

fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    serde::Deserialize::deserialize(d)
}

#[derive(Clone, Default, Entity)]
struct Event {
    #[entity(pk)]
    id: String,
    #[serde(with = "seconds", deserialize_with = "lenient")]
    at: u64,
}

fn main() {}
