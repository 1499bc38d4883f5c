//! Resources over real HTTP against the demo API on 127.0.0.1 (R-URL, R-KEY, R-REQ, R-RESP).
//! Tests are named after the rule or seed row they prove.

mod fixtures;

mod credentials;
mod declared;
mod extend;
mod keys;
mod members;
mod pages;
mod responses;
