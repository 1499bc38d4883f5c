//! The engine's rules (R-STORE-1/2, R-ERR-1/2) against `restcache::Store`.
//! Each test is named after the rule it proves.

mod bytes;
mod fixtures;

mod all;
mod bad_input;
mod collection;
mod collection_edits;
mod gc;
mod invalidate;
mod map_collections;
mod normalize;
mod read;
mod snapshot;
mod store;
mod union;
mod values;
