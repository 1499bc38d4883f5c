//! The Controller against the demo API over real HTTP (R-FETCH, R-SUS, R-EXP, R-OPTM, R-SUB):
//! fetch, de-duplication, suspense, expiry, optimistic updates, subscriptions and polling.
//! Time-dependent tests use tokio's paused clock with the server on its own thread.

mod fixtures;

mod aborts;
mod deep_args;
mod fetch;
mod gc;
mod hooks;
mod optimistic;
mod persist;
mod snapshot;
mod status;
mod subscribe;

mod suspense;
