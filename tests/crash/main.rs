//! R-PERS-3 with a real crash: a child process appends changes to a log as fast as it can and
//! is killed (SIGKILL on Unix) in the middle of its writing, five times over the same log; each
//! time the log restores every change it holds whole, in order, with at most the change being
//! written lost, and the next writer appends after it. (A save is one `write` call, which a
//! kill on Linux rarely cuts; a line cut at every byte is `r_pers_3_a_torn_last_line_loses_only_that_change`.)
//!
//! Its own harness (`harness = false`): run with no argument, it is the test; run with
//! `--child <log>`, it is the writer the test kills.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use restcache::persist::{FilePersister, Persister};
use restcache::prelude::*;
use restcache::store::{Change, Schemas, Snapshot};
use serde_json::json;

#[derive(Clone, Debug, Default, PartialEq, Entity)]
struct Note {
    #[entity(pk)]
    id: u64,
    text: String,
}

/// The text of note `i`: long, so that the writer spends its time in `write`.
fn text(i: u64) -> String {
    format!("{i}:").repeat(40_000)
}

/// The changes that write note `i` (its row and its key).
fn changes(i: u64) -> Vec<Change> {
    let mut store = Store::new();
    let note = json!({ "id": i, "text": text(i) });
    store
        .set_response::<Note>(&format!("GET /notes/{i}"), &(), &note)
        .unwrap();
    store
        .snapshot()
        .changes()
        .into_iter()
        .filter(|c| !c.is_clear())
        .collect()
}

/// The writer: appends note after note, telling its parent after each, until it is killed.
fn child(path: &Path) {
    let mut log = FilePersister::new(path);
    log.restore().expect("the log opens");
    for i in 0.. {
        log.save(&changes(i)).expect("the log takes the change");
        println!("{i}");
    }
}

/// Starts a writer on `path`, lets it save `saves` notes, then kills it wherever it is.
fn crash(path: &Path, saves: u64) {
    let exe = std::env::current_exe().unwrap();
    let mut writer = Command::new(exe)
        .arg("--child")
        .arg(path)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the writer starts");
    let mut saved = BufReader::new(writer.stdout.take().unwrap()).lines();
    for _ in 0..saves {
        saved.next().expect("the writer saves").unwrap();
    }
    writer.kill().unwrap();
    writer.wait().unwrap();
}

fn killed_mid_write() {
    let path: PathBuf = std::env::temp_dir().join(format!("restcache-crash-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let mut torn = 0;
    for round in 1..=5u64 {
        crash(&path, 20 * round);
        let bytes = std::fs::read(&path).unwrap();
        torn += usize::from(!bytes.ends_with(b"\n"));

        let restored = FilePersister::new(&path).restore().expect("the log restores");
        let mut store = Store::new();
        store
            .hydrate(Snapshot::from_changes(restored), &Schemas::new().with::<Note>())
            .expect("every change it restores reads back");
        let notes: Vec<Note> = store
            .get_response::<All<Note>>("all", &())
            .unwrap()
            .data
            .map(|notes| notes.to_vec())
            .unwrap_or_default();
        assert!(
            notes.len() as u64 >= 20 * round,
            "round {round}: every note its writer reported is kept"
        );
        for (i, note) in notes.iter().enumerate() {
            assert_eq!(
                (note.id, note.text.as_str()),
                (i as u64, text(i as u64).as_str()),
                "round {round}: whole and in order"
            );
        }
        let sound = std::fs::metadata(&path).unwrap().len() as usize;
        assert!(
            bytes.len() - sound
                < changes(0)
                    .iter()
                    .map(|c| serde_json::to_vec(c).unwrap().len() + 10)
                    .sum::<usize>(),
            "round {round}: at most the change being written is cut off"
        );
    }
    println!("killed_mid_write: {torn} of 5 kills tore a change");
    std::fs::remove_file(&path).unwrap();
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--child") {
        return child(Path::new(&args[at + 1]));
    }
    if args.iter().any(|a| a == "--list") {
        println!("killed_mid_write: test");
        return;
    }
    killed_mid_write();
    println!("test killed_mid_write ... ok");
}
