//! Compile errors of the derives: each case in `tests/ui/` with its reviewed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
