//! restcache's browser test suite lives in `tests/browser.rs`; it runs only for wasm32, in
//! headless Chromium, through `scripts/wasm.sh test`.
