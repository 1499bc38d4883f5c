//! The docs a user can follow inside the repository: every behaviour rule id (`R-AREA-n`) cited
//! in the sources is defined in `docs/behaviour.md`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Directories walked for citations, relative to the repository root.
const SOURCE_DIRS: [&str; 3] = ["crates", "tests", "examples"];
/// Build output, never walked.
const SKIPPED_DIRS: [&str; 2] = ["target", "pkg"];

/// Every text file under `dir`, skipping build output.
fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            let name = entry.file_name();
            if !SKIPPED_DIRS.iter().any(|s| name == *s) {
                walk(&path, files);
            }
        } else if kind.is_file() {
            files.push(path);
        }
    }
}

/// The digits at the start of `s`, as a number, and how many bytes they take.
fn leading_number(s: &str) -> Option<(u32, usize)> {
    let len = s.bytes().take_while(u8::is_ascii_digit).count();
    s[..len].parse().ok().map(|n| (n, len))
}

/// The rule ids cited in `text`. A range `R-AREA-a..b` counts as every id from a to b, and a
/// list `R-AREA-a/b/c` as each id it names.
fn cited_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("R-") {
        rest = &rest[at + 2..];
        let area_len = rest.bytes().take_while(u8::is_ascii_uppercase).count();
        if area_len == 0 || rest.as_bytes().get(area_len) != Some(&b'-') {
            continue;
        }
        let area = &rest[..area_len];
        let Some((first, len)) = leading_number(&rest[area_len + 1..]) else {
            continue;
        };
        let mut tail = &rest[area_len + 1 + len..];
        let mut numbers = vec![first];
        if let Some(after) = tail.strip_prefix("..")
            && let Some((last, len)) = leading_number(after)
        {
            numbers.extend(first + 1..=last);
            if last < first {
                numbers.push(last);
            }
            tail = &after[len..];
        }
        while let Some(after) = tail.strip_prefix('/')
            && let Some((n, len)) = leading_number(after)
        {
            numbers.push(n);
            tail = &after[len..];
        }
        ids.extend(numbers.into_iter().map(|n| format!("R-{area}-{n}")));
        rest = tail;
    }
    ids
}

/// Whether `doc` defines `id`: a heading that starts with it (`## R-AREA-n …`) or the id in
/// bold at the start of a line (`**R-AREA-n** …`, `**R-AREA-n Title.**`). An id ending in 1 is
/// not defined by the one ending in 10.
fn defines(doc: &str, id: &str) -> bool {
    let starts_with_id = |s: &str| {
        s.strip_prefix(id)
            .is_some_and(|after| !after.starts_with(|c: char| c.is_ascii_digit()))
    };
    doc.lines().map(str::trim_start).any(|line| {
        let heading = line.strip_prefix('#').map(|h| h.trim_start_matches('#').trim_start());
        let bold = line.strip_prefix("**");
        heading.or(bold).is_some_and(starts_with_id)
    })
}

// The sample ids below are written with `Q-` and turned into `R-` ids at run time, so that this
// file does not itself cite them.
fn sample(s: &str) -> String {
    s.replace("Q-", "R-")
}

#[test]
fn cited_ids_expand_ranges_and_lists() {
    let ids = cited_ids(&sample(
        "see Q-AB-2..4, Q-CD-6/7 and Q-EF-10; not Q-gh-1, Q-IJ-x or Q-KL",
    ));
    let expected = ["Q-AB-2", "Q-AB-3", "Q-AB-4", "Q-CD-6", "Q-CD-7", "Q-EF-10"].map(sample);
    assert_eq!(ids, expected);
}

#[test]
fn a_rule_is_defined_by_a_heading_or_a_bold_id() {
    let doc = sample("# Rules\n\n## Q-AB-1 Title\n\n**Q-AB-2** Text citing Q-AB-3.\n**Q-AB-40 Title.** Text.\n");
    for (id, defined) in [
        ("Q-AB-1", true),
        ("Q-AB-2", true),
        ("Q-AB-3", false),
        ("Q-AB-4", false),
        ("Q-AB-40", true),
    ] {
        assert_eq!(defines(&doc, &sample(id)), defined, "{id}");
    }
}

#[test]
fn every_rule_id_cited_in_the_sources_is_defined_in_docs_behaviour_md() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = fs::read_to_string(root.join("docs/behaviour.md")).expect("docs/behaviour.md exists");

    let mut files = Vec::new();
    for dir in SOURCE_DIRS {
        walk(&root.join(dir), &mut files);
    }
    for entry in fs::read_dir(root).expect("the repository root is readable").flatten() {
        let path = entry.path();
        if path.is_file() && path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }

    // Each id, with the first file that cites it.
    let mut cited = BTreeMap::new();
    for file in &files {
        let Ok(text) = fs::read_to_string(file) else { continue }; // not text
        for id in cited_ids(&text) {
            cited
                .entry(id)
                .or_insert_with(|| file.strip_prefix(root).unwrap_or(file).to_path_buf());
        }
    }
    assert!(
        cited.len() > 50,
        "only {} rule ids found: is the walk broken?",
        cited.len()
    );

    let missing: Vec<String> = cited
        .iter()
        .filter(|(id, _)| !defines(&doc, id))
        .map(|(id, file)| format!("{id} (cited in {})", file.display()))
        .collect();
    assert!(
        missing.is_empty(),
        "{} rule id(s) cited in the sources are not defined in docs/behaviour.md:\n  {}",
        missing.len(),
        missing.join("\n  ")
    );
}
