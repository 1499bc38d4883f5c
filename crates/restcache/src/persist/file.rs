//! [`FilePersister`]: the cache's changes appended to a log file, one checksummed line each.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::{Persister, failed};
use crate::error::Error;
use crate::store::{Change, ChangeKind, KeyMeta, RecordText};

/// The first line of every log.
const HEADER: &[u8] = b"restcache log 1\n";

/// How many changes a log may gain past its last compaction before it is compacted again, at
/// least: twice what that compaction wrote, so the log stays within about three times the state.
const MIN_GROWTH: usize = 10_000;

/// Keeps the cache in a log file (R-PERS-3): each change one line, `<crc32> <json>`, appended
/// as the cache makes it, so a write costs what it changed, never the whole cache.
///
/// Lines are only ever appended, and a compaction writes a new file and renames it over the old
/// one, so a crash (the process killed at any point) loses at most the change being written:
/// on restore, a last line that is cut short or fails its checksum is dropped and cut off the
/// file, and every line before it is read. Changes are handed to the operating system as they
/// are made; a crash of the machine itself may lose those it had not yet written to disk.
///
/// A log has one writer: from its first `restore` (or `compact`) to its drop, a persister holds
/// the log locked, and another one on the same path, in this process or another, fails with
/// `Error::Persist` instead of losing what either writes. On Unix a new log is readable by its
/// owner only (mode `0600`), and a compaction keeps the log's permissions.
///
/// ```
/// use restcache::persist::{FilePersister, Persister};
/// use restcache::store::Snapshot;
///
/// let path = std::env::temp_dir().join(format!("restcache-doc-{}.log", std::process::id()));
/// let mut log = FilePersister::new(&path);
/// assert!(log.restore()?.is_empty(), "a new log");
/// log.save(&restcache::Store::new().snapshot().changes())?;
/// drop(log); // the log's one writer lets go of it
/// assert_eq!(Snapshot::from_changes(FilePersister::new(&path).restore()?), restcache::Store::new().snapshot());
/// # std::fs::remove_file(&path).unwrap();
/// # Ok::<(), restcache::Error>(())
/// ```
#[derive(Debug)]
pub struct FilePersister {
    path: PathBuf,
    /// Open for appending once the log was read, and the log's length: where the next line goes.
    /// The handle holds the log's lock.
    file: Option<(File, u64)>,
    /// Changes appended since the last compaction, and how many that compaction wrote.
    appended: usize,
    compacted: usize,
}

impl FilePersister {
    /// A log at `path`, created when first used.
    pub fn new(path: impl AsRef<Path>) -> Self {
        FilePersister {
            path: path.as_ref().to_owned(),
            file: None,
            appended: 0,
            compacted: 0,
        }
    }

    /// The log's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Persister for FilePersister {
    /// Opens the log, reads its changes, and cuts off a last line that a crash left torn.
    fn restore(&mut self) -> Result<Vec<Change>, Error> {
        let path = self.path.display();
        // Our own handle would hold the lock against the new one.
        self.file = None;
        let mut file = private(OpenOptions::new().read(true).append(true).create(true))
            .open(&self.path)
            .map_err(|e| failed(&format!("cannot open {path}"), e))?;
        lock(&file, &self.path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| failed(&format!("cannot read {path}"), e))?;
        let (changes, sound) = if HEADER.starts_with(&bytes) && bytes.len() < HEADER.len() {
            // New, or a header a crash cut short: the log starts again.
            file.set_len(0)
                .and_then(|()| file.write_all(HEADER))
                .map_err(|e| failed(&format!("cannot write {path}"), e))?;
            (Vec::new(), HEADER.len())
        } else if bytes.starts_with(HEADER) {
            read_lines(&bytes)
        } else {
            return Err(failed(&format!("{path}"), "not a restcache log"));
        };
        if sound < bytes.len() {
            tracing::warn!(path = %path, dropped = bytes.len() - sound, "cut a torn last change off the log");
            file.set_len(sound as u64)
                .map_err(|e| failed(&format!("cannot truncate {path}"), e))?;
        }
        self.appended = changes.len();
        self.compacted = 0;
        self.file = Some((file, sound as u64));
        Ok(changes)
    }

    /// Appends the changes' lines in one write. A write that fails is cut back off the log (or,
    /// if even that fails, the log is read again before the next save, which cuts it off), so
    /// a torn line never stands before later ones.
    fn save(&mut self, changes: &[Change]) -> Result<(), Error> {
        let mut lines = Vec::new();
        for change in changes {
            write_line(&mut lines, change)?;
        }
        if self.file.is_none() {
            self.restore()?;
        }
        let Some((file, len)) = self.file.as_mut() else {
            return Err(failed(&format!("{}", self.path.display()), "not open"));
        };
        if let Err(e) = file.write_all(&lines) {
            if file.set_len(*len).is_err() {
                self.file = None;
            }
            return Err(failed(&format!("cannot write {}", self.path.display()), e));
        }
        *len += lines.len() as u64;
        self.appended += changes.len();
        Ok(())
    }

    /// Writes the state to `<path>.compacting`, locked before it is renamed over the log, so the
    /// log has a writer's lock all along: the old log's handle is given up only once the new log
    /// stands. A failure before the rename leaves the old log in use, and no temporary file.
    fn compact(&mut self, state: &[Change]) -> Result<(), Error> {
        let mut bytes = HEADER.to_vec();
        for change in state {
            write_line(&mut bytes, change)?;
        }
        if self.file.is_none() {
            self.restore()?;
        }
        let path = self.path.display();
        let mut tmp = self.path.clone().into_os_string();
        tmp.push(".compacting");
        let tmp = PathBuf::from(tmp);
        // What a crashed compaction left there, or anything planted there (a link included), is
        // removed, not written through.
        let _ = std::fs::remove_file(&tmp);
        let compacted = (|| {
            let mut file = private(OpenOptions::new().append(true).create_new(true)).open(&tmp)?;
            lock(&file, &tmp).map_err(std::io::Error::other)?;
            #[cfg(unix)]
            file.set_permissions(std::fs::metadata(&self.path)?.permissions())?;
            file.write_all(&bytes)?;
            file.sync_all()?;
            std::fs::rename(&tmp, &self.path)?;
            Ok::<_, std::io::Error>(file)
        })();
        let file = compacted.map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            failed(&format!("cannot compact {path}"), e)
        })?;
        // The rename is durable once the directory is written (a crash of the machine itself).
        #[cfg(unix)]
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty())
            && let Err(e) = File::open(dir).and_then(|d| d.sync_all())
        {
            tracing::debug!(path = %path, error = %e, "could not sync the log's directory");
        }
        self.file = Some((file, bytes.len() as u64));
        self.appended = 0;
        self.compacted = state.len();
        Ok(())
    }

    fn should_compact(&self) -> bool {
        self.appended > MIN_GROWTH.max(2 * self.compacted)
    }
}

/// `options`, creating a file readable by its owner only (on Unix).
fn private(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
    options
}

/// Takes the writer's lock on `file` (at `path`), which another writer holds when it fails.
fn lock(file: &File, path: &Path) -> Result<(), Error> {
    file.try_lock().map_err(|e| match e {
        TryLockError::WouldBlock => failed(
            &format!("{}", path.display()),
            "another writer holds this log (a FilePersister on the same path, in this process or another)",
        ),
        TryLockError::Error(e) => failed(&format!("cannot lock {}", path.display()), e),
    })
}

/// Appends `change` as one line: its CRC-32 in hex, a space, then the change:
///
/// - `C` (clear);
/// - `R <table> <pk> <fetched_at> <written_at> <expires_at> <record>` (a row; table and pk as
///   JSON strings, times as wall-clock nanoseconds, the record its JSON text or `!` for INVALID);
///   `L` for a collection's list, whose JSON text is an array or (a map collection's) an object;
/// - `K <key> <meta> <result>` (a key; its meta `-` or `<fetched_at>,<written_at>,<expires_at or ->,<0 or 1>`
///   (invalidated), its result `-` or its JSON text);
/// - `F <table> <pk> [<moved>]` (a row the collector removed, and the row that took its place if
///   another; as JSON strings).
///
/// None of it holds a raw newline: JSON text escapes newlines in strings. A record text with
/// one (made by hand, not by a store) is refused, as it would end its line early.
fn write_line(out: &mut Vec<u8>, change: &Change) -> Result<(), Error> {
    let mut line = String::new();
    let json = |s: &str| serde_json::to_string(s).expect("a string is JSON");
    match &change.0 {
        ChangeKind::Clear => line.push('C'),
        ChangeKind::Row {
            table,
            pk,
            record,
            times,
        } => {
            let [fetched_at, written_at, expires_at] = times;
            let (kind, record) = match record {
                RecordText::Entity(text) => ('R', text.as_str()),
                RecordText::List(text) => ('L', text.as_str()),
                RecordText::Invalid => ('R', "!"),
            };
            let (table, pk) = (json(table), json(pk));
            line = format!("{kind} {table} {pk} {fetched_at} {written_at} {expires_at} {record}");
        }
        ChangeKind::Forget { table, pk, moved } => {
            line = format!("F {} {}", json(table), json(pk));
            if let Some(moved) = moved {
                line = format!("{line} {}", json(moved));
            }
        }
        ChangeKind::Key { key, result, meta } => {
            let meta = match meta {
                Some(m) => {
                    let expires = m.expires_at.map_or_else(|| "-".to_owned(), |e| e.to_string());
                    format!(
                        "{},{},{expires},{}",
                        m.fetched_at,
                        m.written_at,
                        u8::from(m.invalidated)
                    )
                }
                None => "-".to_owned(),
            };
            let result = result.as_deref().unwrap_or("-");
            line = format!("K {} {meta} {result}", json(key));
        }
    }
    if line.contains('\n') {
        return Err(failed("a change to save", "its JSON text holds a raw newline"));
    }
    write!(out, "{:08x} ", crc32fast::hash(line.as_bytes())).expect("writing to a Vec");
    out.extend_from_slice(line.as_bytes());
    out.push(b'\n');
    Ok(())
}

/// The changes of a log's lines after its header, up to the first line that is cut short,
/// fails its checksum or is no change; and the length of the log up to that line.
fn read_lines(bytes: &[u8]) -> (Vec<Change>, usize) {
    let mut changes = Vec::new();
    let mut at = HEADER.len();
    while let Some(len) = bytes[at..].iter().position(|b| *b == b'\n') {
        let Some(change) = read_line(&bytes[at..at + len]) else {
            break;
        };
        changes.push(change);
        at += len + 1;
    }
    (changes, at)
}

fn read_line(line: &[u8]) -> Option<Change> {
    let (crc, payload) = (line.get(..8)?, line.get(9..)?);
    let crc = u32::from_str_radix(std::str::from_utf8(crc).ok()?, 16).ok()?;
    if line[8] != b' ' || crc32fast::hash(payload) != crc {
        return None;
    }
    read_change(std::str::from_utf8(payload).ok()?).map(Change)
}

fn read_change(payload: &str) -> Option<ChangeKind> {
    match payload.as_bytes().first()? {
        b'C' if payload.len() == 1 => Some(ChangeKind::Clear),
        kind @ (b'R' | b'L') => {
            let (table, rest) = json_string(payload.get(1..)?.strip_prefix(' ')?)?;
            let (pk, rest) = json_string(rest.strip_prefix(' ')?)?;
            let (fetched_at, rest) = rest.strip_prefix(' ')?.split_once(' ')?;
            let (written_at, rest) = rest.split_once(' ')?;
            let (expires_at, record) = rest.split_once(' ')?;
            let record = match (kind, record.as_bytes().first()?) {
                (b'R', b'!') if record.len() == 1 => RecordText::Invalid,
                (b'R', b'{') => RecordText::Entity(record.to_owned()),
                // A list written before lists had a line kind of their own.
                (b'R', b'[') | (b'L', b'[' | b'{') => RecordText::List(record.to_owned()),
                _ => return None,
            };
            let times = [
                fetched_at.parse().ok()?,
                written_at.parse().ok()?,
                expires_at.parse().ok()?,
            ];
            Some(ChangeKind::Row {
                table,
                pk,
                record,
                times,
            })
        }
        b'F' => {
            let (table, rest) = json_string(payload.strip_prefix("F ")?)?;
            let (pk, rest) = json_string(rest.strip_prefix(' ')?)?;
            let moved = match rest {
                "" => None,
                rest => {
                    let (moved, rest) = json_string(rest.strip_prefix(' ')?)?;
                    if !rest.is_empty() {
                        return None;
                    }
                    Some(moved)
                }
            };
            Some(ChangeKind::Forget { table, pk, moved })
        }
        b'K' => {
            let (key, rest) = json_string(payload.strip_prefix("K ")?)?;
            let (meta, result) = rest.strip_prefix(' ')?.split_once(' ')?;
            let meta = match meta {
                "-" => None,
                meta => {
                    let mut parts = meta.split(',');
                    let mut next = || parts.next();
                    let (fetched_at, written_at) = (next()?.parse().ok()?, next()?.parse().ok()?);
                    let expires_at = match next()? {
                        "-" => None,
                        e => Some(e.parse().ok()?),
                    };
                    let invalidated = match next()? {
                        "0" => false,
                        "1" => true,
                        _ => return None,
                    };
                    Some(KeyMeta {
                        fetched_at,
                        written_at,
                        expires_at,
                        invalidated,
                    })
                }
            };
            let result = (result != "-").then(|| result.to_owned());
            Some(ChangeKind::Key { key, result, meta })
        }
        _ => None,
    }
}

/// The JSON string at the start of `s`, unescaped, and what follows it.
fn json_string(s: &str) -> Option<(String, &str)> {
    let bytes = s.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let (mut at, mut escaped) = (1, false);
    loop {
        match *bytes.get(at)? {
            b'"' => break,
            b'\\' => {
                escaped = true;
                at += 2;
            }
            _ => at += 1,
        }
    }
    let token = &s[..=at];
    let value = if escaped {
        serde_json::from_str(token).ok()?
    } else {
        token[1..at].to_owned()
    };
    Some((value, &s[at + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;
    use crate::store::Snapshot;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("restcache-{name}-{}.log", std::process::id()))
    }

    /// Changes of a store holding tags `0..n`, written one at a time.
    fn changes(n: usize) -> Vec<Change> {
        #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
        struct Tag {
            #[entity(pk)]
            name: String,
        }
        let mut store = Store::new();
        store.track_changes();
        let mut out = Vec::new();
        for i in 0..n {
            let tag = serde_json::json!({ "name": format!("tag {i}") });
            store.set_response::<Tag>(&format!("GET /tags/{i}"), &(), &tag).unwrap();
            out.extend(store.take_changes());
        }
        out
    }

    /// R-PERS-3: a log cut anywhere inside its last line (a write torn by a crash) restores
    /// every change before that line, and the log, cut back to them, takes new changes.
    #[test]
    fn r_pers_3_a_torn_last_line_loses_only_that_change() {
        let path = temp("torn");
        let all = changes(3);
        let mut log = FilePersister::new(&path);
        log.restore().unwrap();
        log.save(&all).unwrap();
        drop(log);
        let full = std::fs::read(&path).unwrap();
        let last_line = full[..full.len() - 1].iter().rposition(|b| *b == b'\n').unwrap() + 1;
        for cut in last_line..full.len() {
            std::fs::write(&path, &full[..cut]).unwrap();
            let mut log = FilePersister::new(&path);
            let restored = log.restore().unwrap();
            assert_eq!(restored, all[..all.len() - 1], "cut at byte {cut}");
            assert_eq!(
                std::fs::metadata(&path).unwrap().len() as usize,
                last_line,
                "the torn line cut off"
            );
            log.save(&all[all.len() - 1..]).unwrap();
            assert_eq!(log.restore().unwrap(), all, "appends after the cut");
        }
        std::fs::remove_file(&path).unwrap();
    }

    /// R-PERS-3: pks, keys and fields with quotes, backslashes, spaces, newlines and other
    /// scripts come back exactly: the line format writes them as JSON strings.
    #[test]
    fn r_pers_3_hostile_text_comes_back_exactly() {
        #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
        struct Note {
            #[entity(pk)]
            name: String,
            body: String,
        }
        let path = temp("hostile");
        let mut store = Store::new();
        store.track_changes();
        for text in ["a \"quoted\" \\ b", "line\nbreak\ttab", "ünï 𝄞 - ! { [", "%2F/%25", " "] {
            let note = serde_json::json!({ "name": text, "body": text });
            store
                .set_response::<Note>(&format!("GET /notes/{text} {{x}}"), &(), &note)
                .unwrap();
        }
        store.invalidate("GET /notes/  {x}");
        let changes = store.take_changes();
        let mut log = FilePersister::new(&path);
        log.save(&changes).unwrap();
        assert_eq!(log.restore().unwrap(), changes);
        std::fs::remove_file(&path).unwrap();
    }

    /// R-PERS-3: a map collection's list (a JSON object of references) comes back as a list, and
    /// the restored log hydrates to the same reads.
    #[test]
    fn r_pers_3_a_map_collection_comes_back_as_a_list() {
        use crate::schema::{Collection, Values};
        use crate::store::Schemas;
        #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
        struct Note {
            #[entity(pk)]
            name: String,
        }
        type Notes = Collection<Values<Note>>;
        let path = temp("map-collection");
        let mut store = Store::new();
        store.track_changes();
        let notes = serde_json::json!({ "x": { "name": "a" }, "y": { "name": "b" } });
        store.set_response::<Notes>("GET /notes", &(), &notes).unwrap();
        let changes = store.take_changes();
        let mut log = FilePersister::new(&path);
        log.save(&changes).unwrap();
        let restored = log.restore().unwrap();
        assert_eq!(restored, changes);
        let mut again = Store::new();
        again
            .hydrate_changes(restored, &Schemas::new().with::<Notes>())
            .unwrap();
        let read = again.get_response::<Notes>("GET /notes", &()).unwrap().data.unwrap();
        assert_eq!(read.get("y").map(|n| n.name.as_str()), Some("b"));
        drop(log);
        std::fs::remove_file(&path).unwrap();
    }

    /// R-GC-1 with R-PERS-1: the keys and rows the collector removes are saved as removed; the
    /// log restores what the store holds after the collection, and keeps nothing it removed.
    #[test]
    fn r_gc_1_what_the_collector_removes_is_removed_from_the_log() {
        #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
        struct Tag {
            #[entity(pk)]
            name: String,
        }
        let path = temp("collected");
        let mut store = Store::new();
        store.track_changes();
        store.set_gc(crate::store::GcPolicy::new().max_age(std::time::Duration::ZERO));
        for i in 0..4 {
            let tag = serde_json::json!({ "name": format!("tag \"{i}\"") });
            store.set_response::<Tag>(&format!("GET /tags/{i}"), &(), &tag).unwrap();
        }
        store.retain("GET /tags/2");
        let mut log = FilePersister::new(&path);
        log.restore().unwrap();
        log.save(&store.take_changes()).unwrap();
        let report = store.gc();
        assert_eq!((report.keys, report.rows), (3, 3));
        let removals = store.take_changes();
        assert!(removals.iter().all(Change::is_removal), "{removals:?}");
        assert_eq!(removals.len(), 6);
        log.save(&removals).unwrap();
        let restored = log.restore().unwrap();
        assert_eq!(Snapshot::from_changes(restored), store.snapshot());
        std::fs::remove_file(&path).unwrap();
    }

    /// The entity of the collector's log tests.
    #[derive(Clone, Debug, Default, PartialEq, crate::Entity)]
    struct GcTag {
        #[entity(pk)]
        name: String,
    }

    /// A store collecting with `max_age` zero, tracking changes, holding tags 0, 1 and 2 (each
    /// by its own key) with tags 1 and 2 retained, and the log its changes were saved to.
    fn collected_tags(name: &str) -> (Store, FilePersister, PathBuf) {
        let path = temp(name);
        let mut store = Store::new();
        store.track_changes();
        store.set_gc(crate::store::GcPolicy::new().max_age(std::time::Duration::ZERO));
        for i in 0..3 {
            let tag = serde_json::json!({ "name": i.to_string() });
            store
                .set_response::<GcTag>(&format!("GET /tags/{i}"), &(), &tag)
                .unwrap();
        }
        store.retain("GET /tags/1");
        store.retain("GET /tags/2");
        let mut log = FilePersister::new(&path);
        log.restore().unwrap();
        log.save(&store.take_changes()).unwrap();
        // Tag 0 goes; tag 2, the last row, takes its place: the store holds [2, 1].
        assert_eq!(store.gc().rows, 1);
        (store, log, path)
    }

    /// The store `changes` restore into, through `hydrate_changes` (R-PERS-2).
    fn restored(changes: Vec<Change>) -> Store {
        let mut store = Store::new();
        store
            .hydrate_changes(changes, &crate::store::Schemas::new().with::<GcTag>())
            .unwrap();
        store
    }

    /// R-GC-1 with R-PERS-2: the rows a log restores are in the order the collector left them
    /// (the last row in the collected row's place), through `Snapshot::from_changes` as through
    /// `hydrate_changes`.
    #[test]
    fn r_gc_1_a_log_restores_rows_in_the_order_the_collector_left() {
        let (mut store, mut log, path) = collected_tags("collected-order");
        log.save(&store.take_changes()).unwrap();
        let changes = log.restore().unwrap();
        assert_eq!(
            restored(changes.clone()).snapshot(),
            store.snapshot(),
            "hydrate_changes"
        );
        assert_eq!(
            Snapshot::from_changes(changes),
            store.snapshot(),
            "Snapshot::from_changes"
        );
        std::fs::remove_file(&path).unwrap();
    }

    /// R-GC-1 with R-PERS-1/2: a row collected and written again before the changes are taken
    /// is saved as removed, then written: the log puts it where the store did, at the end.
    #[test]
    fn r_gc_1_a_row_collected_then_written_again_restores_in_the_stores_order() {
        let (mut store, mut log, path) = collected_tags("collected-again");
        let tag = serde_json::json!({ "name": "0" });
        store.set_response::<GcTag>("GET /tags/0", &(), &tag).unwrap();
        log.save(&store.take_changes()).unwrap();
        let changes = log.restore().unwrap();
        assert_eq!(restored(changes).snapshot(), store.snapshot());
        std::fs::remove_file(&path).unwrap();
    }

    /// R-PERS-3: a line whose bytes changed fails its checksum: it and what follows are not
    /// read, and what precedes it is.
    #[test]
    fn r_pers_3_a_corrupt_line_fails_its_checksum() {
        let path = temp("corrupt");
        let all = changes(2);
        let mut log = FilePersister::new(&path);
        log.save(&all).unwrap();
        drop(log);
        let mut bytes = std::fs::read(&path).unwrap();
        let second = HEADER.len() + bytes[HEADER.len()..].iter().position(|b| *b == b'\n').unwrap() + 1;
        let flip = second + 20;
        bytes[flip] ^= 0x01;
        std::fs::write(&path, &bytes).unwrap();
        assert_eq!(FilePersister::new(&path).restore().unwrap(), all[..1]);
        std::fs::remove_file(&path).unwrap();
    }

    /// R-PERS-3: a header a crash cut short is a new log; a record text with a raw newline
    /// (made by hand) is refused rather than written as two lines.
    #[test]
    fn r_pers_3_a_torn_header_starts_again_and_a_raw_newline_is_refused() {
        let path = temp("header");
        std::fs::write(&path, &HEADER[..7]).unwrap();
        let mut log = FilePersister::new(&path);
        assert_eq!(log.restore().unwrap(), Vec::new());
        assert_eq!(std::fs::read(&path).unwrap(), HEADER);

        let forged: Change = serde_json::from_value(serde_json::json!({
            "row": {"table": "Tag", "pk": "x", "record": {"entity": "{\"name\":\n\"x\"}"}, "times": [0, 0, 0]}
        }))
        .unwrap();
        let err = log.save(&[forged]).unwrap_err();
        assert!(matches!(err, Error::Persist { .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), HEADER, "nothing written");
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn r_pers_3_a_file_that_is_no_log_is_refused_and_kept() {
        let path = temp("foreign");
        std::fs::write(&path, b"my notes\n").unwrap();
        let err = FilePersister::new(&path).restore().unwrap_err();
        assert!(matches!(err, Error::Persist { .. }), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), b"my notes\n");
        std::fs::remove_file(&path).unwrap();
    }

    /// R-PERS-3: compaction replaces the log with the state, which restores the same; the log
    /// asks for it once it has grown past its bound.
    #[test]
    fn r_pers_3_compaction_keeps_the_state_and_bounds_the_log() {
        let path = temp("compact");
        let all = changes(4);
        let mut log = FilePersister::new(&path);
        log.save(&all).unwrap();
        let state = Snapshot::from_changes(all.clone());
        log.compact(&state.changes()).unwrap();
        assert_eq!(Snapshot::from_changes(log.restore().unwrap()), state);
        assert!(!log.should_compact());
        let many: Vec<Change> = std::iter::repeat_n(all[0].clone(), MIN_GROWTH + 1).collect();
        log.save(&many).unwrap();
        assert!(log.should_compact());
        std::fs::remove_file(&path).unwrap();
    }

    /// R-PERS-3: a log has one writer. A second persister on the same path is refused while the
    /// first holds the log, through its compaction too, and takes it once the first is dropped.
    #[test]
    fn r_pers_3_a_second_writer_on_one_log_is_refused() {
        let path = temp("two-writers");
        let all = changes(2);
        let mut first = FilePersister::new(&path);
        first.restore().unwrap();
        first.save(&all[..1]).unwrap();
        let refused = |why: &str| {
            let err = FilePersister::new(&path).restore().unwrap_err();
            assert!(
                err.to_string().contains("another writer holds this log"),
                "{why}: {err}"
            );
        };
        refused("while the first holds it");
        first.compact(&all[..1]).unwrap();
        refused("after the first compacted it");
        first.save(&all[1..]).unwrap();
        drop(first);
        assert_eq!(FilePersister::new(&path).restore().unwrap(), all);
        std::fs::remove_file(&path).unwrap();
    }

    /// R-PERS-3: a compaction that fails (here its rename, over a directory) leaves no temporary
    /// file, and the log it could not replace stays the one written to.
    #[test]
    fn r_pers_3_a_failed_compaction_leaves_no_temp_file_and_the_log_in_use() {
        let dir = temp("failed-compaction");
        std::fs::create_dir_all(dir.join("log/inside")).unwrap();
        let path = dir.join("log");
        let mut log = FilePersister::new(&path);
        assert!(log.restore().is_err(), "a directory is no log");
        let path = dir.join("real.log");
        let mut log = FilePersister::new(&path);
        log.restore().unwrap();
        let all = changes(2);
        log.save(&all[..1]).unwrap();
        // The log's path becomes a directory the rename cannot replace.
        let moved = dir.join("moved.log");
        std::fs::rename(&path, &moved).unwrap();
        std::fs::create_dir_all(path.join("inside")).unwrap();
        assert!(log.compact(&all).is_err());
        let tmp = dir.join("real.log.compacting");
        assert!(!tmp.exists(), "the temporary file is removed");
        log.save(&all[1..]).unwrap();
        std::fs::remove_dir_all(&path).unwrap();
        std::fs::rename(&moved, &path).unwrap();
        drop(log);
        assert_eq!(
            FilePersister::new(&path).restore().unwrap(),
            all,
            "saved to the old log"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// R-PERS-3 on Unix: a new log is its owner's alone; a compaction keeps the log's
    /// permissions, and writes no file through a link planted at its temporary path.
    #[cfg(unix)]
    #[test]
    fn r_pers_3_a_log_is_private_and_compaction_writes_through_no_link() {
        use std::os::unix::fs::PermissionsExt;
        let dir = temp("private");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("cache.log");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let mut log = FilePersister::new(&path);
        log.restore().unwrap();
        assert_eq!(mode(&path), 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, b"keep me").unwrap();
        std::os::unix::fs::symlink(&victim, dir.join("cache.log.compacting")).unwrap();
        let all = changes(2);
        log.compact(&all).unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
        assert_eq!(mode(&path), 0o640, "the log's permissions are kept");
        drop(log);
        assert_eq!(FilePersister::new(&path).restore().unwrap(), all);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
