//! restcache's browser test suite lives in `tests/browser.rs`; it runs only for wasm32, in
//! headless Chromium, through `scripts/wasm.sh test`. This library holds what every browser suite
//! (this one, and the examples' own) needs to reach the demo API that the script starts.
#![cfg(target_arch = "wasm32")]

use restcache::reqwest;
use serde_json::Value;

/// The demo API's base URL, given at build time as `RESTCACHE_DEMO_API` by `scripts/wasm.sh test`.
///
/// ```no_run
/// let todos = format!("{}/todos", browser_tests::api());
/// ```
pub fn api() -> &'static str {
    match option_env!("RESTCACHE_DEMO_API") {
        Some(url) => url,
        None => panic!("RESTCACHE_DEMO_API is unset: run the suite with scripts/wasm.sh test"),
    }
}

/// A request to one of the demo API's routes (its `/_control/` routes, or a change behind
/// restcache's back), outside restcache: its JSON answer, or `Null` for an empty one. Panics
/// unless it succeeds, as a test helper does.
///
/// ```no_run
/// # async fn run() {
/// browser_tests::control("POST", "/_control/reset", None).await;
/// let log = browser_tests::control("GET", "/_control/requests", None).await;
/// # }
/// ```
pub async fn control(method: &str, path: &str, body: Option<Value>) -> Value {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut request = reqwest::Client::new().request(method, format!("{}{path}", api()));
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body.to_string());
    }
    let response = request.send().await.expect("the route answers");
    assert!(response.status().is_success(), "{path}: {}", response.status());
    let text = response.text().await.unwrap();
    if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap()
    }
}
