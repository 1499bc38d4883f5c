//! Hardening (issue #7) against the demo API over real HTTP: every fault a server or the network
//! can produce ends in a typed error, leaves the cache as it was apart from the key's own error
//! record, and the next successful fetch of the key recovers (R-ERR-2, R-POL, R-RESP, R-REQ-5);
//! responses that arrive out of order, many concurrent reads and mutations, and resets under load
//! keep the cache equal to what the server holds (R-NORM-7, R-EXP-5).

mod fixtures;

mod errors;
mod hangs;
mod load;
mod order;
mod reqwest_like;
mod reset;
