//! Property tests (issue #7): arbitrary and nearly valid responses for every schema kind
//! (R-ERR-2, R-NORM-2/3, R-EXP-6), and arbitrary path and query values for several templates
//! (R-URL-1..4, R-PATH-3, R-KEY-1). Each property is named after the rule it proves.
//!
//! Cases are bounded so the binary stays fast in debug builds; `PROPTEST_CASES=5000 cargo test
//! --test props` runs more. Failures are not persisted to files: proptest prints the shrunk input,
//! which belongs in a regression unit test named after the rule it broke.

mod fixtures;
mod json;
mod normalize;
mod urls;

use proptest::test_runner::Config;

/// `cases` per property (unless `PROPTEST_CASES` is set), no failure files, and no shrinking
/// marathons.
pub fn config(cases: u32) -> Config {
    let base = Config::default();
    Config {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            base.cases
        } else {
            cases
        },
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..base
    }
}
