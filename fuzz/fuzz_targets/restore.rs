//! Hostile persisted state, read back into a store that holds data: bit 0 of the first byte picks
//! the input, a snapshot's JSON text (`Store::hydrate`) or a log (`FilePersister::restore`, then
//! `Store::hydrate_changes`); bit 1 picks where it comes from, the rest of the bytes as they are
//! or a valid snapshot or log of a seeded store overwritten with them (the second and third bytes
//! give the offset, the fourth where to cut it), so that most inputs are nearly valid. A log's
//! lines each get their right checksum, so that their text is read, not refused.
//!
//! Checked (R-ERR-2, R-SNAP-3, R-PERS-1/3): no panic; a hydrate that fails leaves the store as it
//! was; a store that hydrated reads whole (`inspect`), and its snapshot hydrates a new store into
//! the very same snapshot.
#![no_main]

use std::path::PathBuf;
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use restcache::persist::{FilePersister, Persister};
use restcache::prelude::*;
use restcache::store::{Schemas, Snapshot};
use serde_json::json;

use self::entities::*;

mod entities;

fn schemas() -> Schemas {
    Schemas::new()
        .with::<TodoList>()
        .with::<Values<User>>()
        .with::<All<FeedItem>>()
        .with::<Option<Todo>>()
}

fn seeded() -> Store {
    let mut store = Store::new();
    let todos = json!([{"id": 1, "title": "a", "owner": {"id": "u1", "name": "Ada"}}, {"id": 2}, {"id": 3}]);
    store.set_response::<TodoList>("GET /todos", &(), &todos).unwrap();
    let users = json!({"a": {"id": "u2", "name": "Bo"}, "b": {"id": "u1"}});
    store.set_response::<Values<User>>("GET /users", &(), &users).unwrap();
    let feed = json!([{"type": "link", "id": 1}, {"type": "post", "id": "1"}, {"type": "poll"}]);
    store.set_response::<All<FeedItem>>("GET /feed", &(), &feed).unwrap();
    store.set_error(
        "GET /todos/9",
        restcache::Instant::now(),
        restcache::Error::Reset,
        std::time::Duration::from_secs(5),
    );
    store
}

/// The seeded store's snapshot as JSON text, and its changes as log lines (without checksums).
static VALID: LazyLock<(Vec<u8>, Vec<u8>)> = LazyLock::new(|| {
    let snapshot = seeded().snapshot();
    let text = serde_json::to_vec(&snapshot).unwrap();
    let mut lines = Vec::new();
    for change in snapshot.changes() {
        lines.extend(serde_json::to_vec(&change).unwrap());
        lines.push(b'\n');
    }
    (text, lines)
});

/// A log file of this process's own, written afresh for each input.
static LOG: LazyLock<PathBuf> =
    LazyLock::new(|| std::env::temp_dir().join(format!("restcache-fuzz-restore-{}.log", std::process::id())));

/// `base` overwritten with `edit` at the offset its first two bytes give, cut where its third
/// byte says (255: not cut).
fn overwrite(base: &[u8], edit: &[u8]) -> Vec<u8> {
    let [hi, lo, cut, bytes @ ..] = edit else {
        return base.to_vec();
    };
    let mut out = base.to_vec();
    let at = usize::from(u16::from_be_bytes([*hi, *lo])) % (out.len() + 1);
    for (i, b) in bytes.iter().enumerate() {
        match out.get_mut(at + i) {
            Some(slot) => *slot = *b,
            None => out.push(*b),
        }
    }
    if *cut != 255 {
        out.truncate(out.len() * usize::from(*cut) / 255);
    }
    out
}

/// The changes a log of `lines` (each given its checksum) restores.
fn restore_log(lines: &[u8]) -> Result<Vec<restcache::store::Change>, restcache::Error> {
    let mut file = b"restcache log 1\n".to_vec();
    for line in lines.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        file.extend(format!("{:08x} ", crc32fast::hash(line)).into_bytes());
        file.extend(line);
        file.push(b'\n');
    }
    std::fs::write(&*LOG, &file).unwrap();
    FilePersister::new(&*LOG).restore()
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (snapshot_text, log_lines) = &*VALID;
    let schemas = schemas();
    let mut store = seeded();
    let before = store.inspect();
    let hydrated = if mode & 1 == 0 {
        let text = if mode & 2 == 0 {
            rest.to_vec()
        } else {
            overwrite(snapshot_text, rest)
        };
        let Ok(snapshot) = serde_json::from_slice::<Snapshot>(&text) else {
            return;
        };
        store.hydrate(snapshot, &schemas)
    } else {
        let lines = if mode & 2 == 0 {
            rest.to_vec()
        } else {
            overwrite(log_lines, rest)
        };
        match restore_log(&lines) {
            Ok(changes) => store.hydrate_changes(changes, &schemas),
            Err(_) => return,
        }
    };
    match hydrated {
        Err(_) => assert_eq!(store.inspect(), before, "a hydrate that failed changed the store"),
        Ok(()) => {
            let _ = store.inspect();
            let snapshot = store.snapshot();
            let mut again = Store::new();
            again
                .hydrate(snapshot.clone(), &schemas)
                .expect("the snapshot of a hydrated store hydrates");
            assert_eq!(again.snapshot(), snapshot, "a snapshot hydrates into itself");
        }
    }
});
