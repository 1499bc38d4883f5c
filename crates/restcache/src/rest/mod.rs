//! REST members over HTTP: path templates become URLs and keys, requests go out over reqwest,
//! responses come back bounded and decoded (R-URL, R-KEY, R-REQ, R-RESP).

mod endpoint;
mod hooks;
pub(crate) mod http;
mod resource;
mod retry;

/// HTTP header types, as hooks use them (reqwest's).
pub use reqwest::header;

pub use crate::store::Optimistic;
pub use endpoint::{AnyBody, EndpointBuilder, EndpointOptions, NoPages, Pages, RestEndpoint};
pub use hooks::{AfterResponse, BoxFuture, Credentials, DefaultHooks, EndpointHooks, RequestInit, ResponseHead};
pub use http::{DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT, MAX_REDIRECTS};
pub use resource::{NonFilterKeys, Resource, ResourceOptions};
pub use retry::{MAX_RETRIES, Retry};

pub(crate) use endpoint::EndpointConfig;
