//! Tracing (issue #24, item 6), in a test binary of its own: tracing caches per callsite whether
//! anyone listens, and a callsite another test first met while no capture was installed could
//! stay silent for a capture installed at that moment. Here every test that emits installs one.

// The controller tests' fixtures, of which these tests use some.
#[path = "controller/fixtures.rs"]
mod fixtures;

#[path = "controller/traces.rs"]
mod traces;
