//! The runtime's modules depend on the layers below them only (docs/architecture.md):
//! controller → rest and persist → store → schema → tables → rows → references → base. A module names another with a
//! `crate::` path; every such path in a module's code (not its comments, not its tests) must
//! point down.

use std::fs;
use std::path::Path;

/// Each top-level module of `crates/restcache/src` and its layer: a module may use only
/// modules of lower layers.
const LAYERS: &[(&str, u32)] = &[
    ("json", 0),
    ("error", 0),
    ("pk", 0),
    ("heap_size", 0),
    ("row_text", 0),
    ("row_map", 1),
    ("rt", 1),
    ("refs", 2),
    ("bounded_value", 1),
    ("rows", 3),
    ("tables", 4),
    ("schema", 5),
    ("store", 6),
    ("rest", 7),
    ("persist", 7),
    ("controller", 8),
    ("bench_hooks", 9),
];

/// The module's code: comments and its `#[cfg(test)]` tests left out.
fn code(text: &str) -> String {
    let text = text.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules a file names with `crate::…`.
fn named_modules(code: &str) -> Vec<String> {
    let mut names: Vec<String> = code
        .match_indices("crate::")
        .filter(|(at, _)| !code[..*at].ends_with('$'))
        .map(|(at, m)| {
            let rest = &code[at + m.len()..];
            rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

fn layer(module: &str) -> Option<u32> {
    LAYERS.iter().find(|(m, _)| *m == module).map(|(_, l)| *l)
}

fn files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn the_runtime_modules_depend_on_lower_layers_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/restcache/src");
    let mut all = Vec::new();
    files(&src, &mut all);
    let mut upward = Vec::new();
    for path in all {
        let relative = path.strip_prefix(&src).unwrap();
        let top = relative
            .iter()
            .next()
            .unwrap()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if top == "lib" {
            continue;
        }
        let Some(own) = layer(&top) else {
            panic!("{} is a module no layer holds: add it to LAYERS", relative.display());
        };
        let text = fs::read_to_string(&path).unwrap();
        for used in named_modules(&code(&text)) {
            let Some(theirs) = layer(&used) else { continue };
            if used != top && theirs >= own {
                upward.push(format!("{} uses crate::{used}", relative.display()));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "uses of a module of the same or a higher layer:\n{}",
        upward.join("\n")
    );
}
