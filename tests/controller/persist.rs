//! R-PERS-1..3: a Controller that keeps its cache with a persister, saved one change at a time
//! and restored when it starts again.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use parking_lot::Mutex;
use restcache::Error;
use restcache::persist::{FilePersister, Persister};
use restcache::prelude::*;
use restcache::store::{Change, Schemas};
use serde_json::json;

use crate::fixtures::*;

fn schemas() -> Schemas {
    Schemas::new().with::<Collection<Vec<Todo>>>()
}

/// A log file of its own for each test.
fn log_path() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("restcache-ctrl-{}-{n}.log", std::process::id()))
}

/// A Controller on `server` keeping its cache with `persister`.
fn persisted(server: &demo_api::DemoServer, persister: impl Persister) -> Controller {
    controller_with(server, |b| b.persist(persister, schemas()))
}

/// The persister's saves, as the slots of their changes, shared with the test.
#[derive(Clone, Default)]
struct Recording(Arc<Mutex<Vec<Vec<String>>>>);

impl Persister for Recording {
    fn restore(&mut self) -> Result<Vec<Change>, Error> {
        Ok(Vec::new())
    }
    fn save(&mut self, changes: &[Change]) -> Result<(), Error> {
        self.0.lock().push(changes.iter().map(Change::slot).collect());
        Ok(())
    }
    fn compact(&mut self, _: &[Change]) -> Result<(), Error> {
        Ok(())
    }
}

#[tokio::test]
async fn r_pers_1_each_change_saves_the_rows_and_keys_it_touched() {
    let (server, _) = setup().await;
    let saves = Recording::default();
    let ctrl = persisted(&server, saves.clone());
    ctrl.suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    ctrl.fetch(&todos().partial_update(), params! { id: 3 })
        .body(&json!({ "title": "changed" }))
        .await
        .unwrap();
    let saves = saves.0.lock().clone();
    assert_eq!(saves.len(), 2, "one save per commit: {saves:?}");
    assert_eq!(
        saves[0].len(),
        10 + 1 + 1,
        "the list's ten todos, its collection, its key"
    );
    assert_eq!(
        saves[1].len(),
        2,
        "the one todo it changed and its key, never the whole cache"
    );
    assert_eq!(saves[1][0], "row/Todo/3");
    assert!(
        saves[1][1].starts_with("key/PATCH ") && saves[1][1].ends_with("%2Ftodos%2F3"),
        "{:?}",
        saves[1]
    );
}

#[tokio::test]
async fn r_pers_1_a_restarted_controller_serves_the_persisted_cache_with_no_request() {
    let (server, _) = setup().await;
    let path = log_path();
    let first = persisted(&server, FilePersister::new(&path));
    first
        .suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    first
        .fetch(&todos().partial_update(), params! { id: 3 })
        .body(&json!({ "title": "changed" }))
        .await
        .unwrap();
    drop(first);
    let seen = server.requests().len();

    let again = persisted(&server, FilePersister::new(&path));
    let list = again
        .suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    assert_eq!(list.len(), 10);
    assert_eq!(
        list.iter().find(|t| t.id == 3).unwrap().title,
        "changed",
        "the last change kept"
    );
    assert_eq!(
        server.requests().len(),
        seen,
        "no request: the persisted cache served it"
    );
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test(start_paused = true)]
async fn r_pers_1_restored_data_goes_stale_on_time_and_refetches() {
    let (server, _) = setup_paused();
    let path = log_path();
    let first = persisted(&server, FilePersister::new(&path));
    first.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    drop(first);
    tokio::time::advance(Duration::from_secs(61)).await;
    assert!(server.upsert_todo(json!({ "id": 1, "title": "refreshed" })));

    let again = persisted(&server, FilePersister::new(&path));
    let stale = again.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(stale.title, "Todo 1", "restored, stale, served at once");
    again.fetch(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(hits(&server, "/todos/1"), 2, "the first fetch and the refetch");
    let fresh = again.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(fresh.title, "refreshed");
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn r_pers_1_a_log_that_cannot_be_read_fails_the_build_and_rows_of_old_types_are_left_out() {
    let (server, _) = setup().await;
    let path = log_path();
    std::fs::write(&path, b"not a log\n").unwrap();
    let err = Controller::builder()
        .persist(FilePersister::new(&path), schemas())
        .build()
        .unwrap_err();
    assert!(matches!(err, Error::Persist { .. }), "{err}");

    // A log whose tables the schemas no longer hold: its rows are left out, the key stays (and
    // reads as missing data, so it refetches).
    std::fs::remove_file(&path).unwrap();
    let first = persisted(&server, FilePersister::new(&path));
    first.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    drop(first);
    let other = controller_with(&server, |b| b.persist(FilePersister::new(&path), Schemas::new()));
    assert!(
        other
            .get_response(&todos().get(), params! { id: 1 })
            .unwrap()
            .data
            .is_none()
    );
    let log = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        log.lines().count(),
        3,
        "compacted: its header, a clear and the key (its row left out)"
    );
    assert!(!log.contains(" R "), "no row: {log}");
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn r_pers_1_an_entity_schema_restores_its_lists_and_unknown_tables_are_left_out() {
    let (server, _) = setup().await;
    let path = log_path();
    let first = persisted(&server, FilePersister::new(&path));
    first
        .suspense(&todos().get_list(), params! { userId: "u1" })
        .await
        .unwrap();
    drop(first);
    let seen = server.requests().len();

    // The entity alone: its lists come back with it.
    let again = controller_with(&server, |b| {
        b.persist(FilePersister::new(&path), Schemas::new().with::<Todo>())
    });
    let list = again
        .get_response(&todos().get_list(), params! { userId: "u1" })
        .unwrap();
    assert_eq!(list.data.unwrap().len(), 10);
    assert_eq!(server.requests().len(), seen);
    drop(again);

    // Schemas that hold none of it: each change is left out, and the build goes on.
    let other = controller_with(&server, |b| b.persist(FilePersister::new(&path), Schemas::new()));
    assert!(
        other
            .get_response(&todos().get(), params! { id: 1 })
            .unwrap()
            .data
            .is_none()
    );
    std::fs::remove_file(&path).unwrap();
}

/// Fails its first `save`, then records what it is given.
#[derive(Clone, Default)]
struct Flaky {
    saves: Arc<AtomicUsize>,
    compacted: Arc<Mutex<Vec<usize>>>,
}

impl Persister for Flaky {
    fn restore(&mut self) -> Result<Vec<Change>, Error> {
        Ok(Vec::new())
    }
    fn save(&mut self, _: &[Change]) -> Result<(), Error> {
        match self.saves.fetch_add(1, Ordering::Relaxed) {
            0 => Err(Error::Persist { reason: "full".into() }),
            _ => Ok(()),
        }
    }
    fn compact(&mut self, state: &[Change]) -> Result<(), Error> {
        self.compacted.lock().push(state.len());
        Ok(())
    }
}

#[tokio::test]
async fn r_pers_1_changes_a_save_lost_are_written_by_a_compaction() {
    let (server, _) = setup().await;
    let flaky = Flaky::default();
    let ctrl = persisted(&server, flaky.clone());
    assert_eq!(
        *flaky.compacted.lock(),
        [1],
        "the build compacts to the empty state: a clear"
    );
    ctrl.suspense(&todos().get(), params! { id: 1 }).await.unwrap();
    assert_eq!(flaky.saves.load(Ordering::Relaxed), 1, "the first save failed");
    assert_eq!(
        *flaky.compacted.lock(),
        [1, 3],
        "at once compacted to the whole cache: a clear, the todo and its key"
    );
    ctrl.suspense(&todos().get(), params! { id: 2 }).await.unwrap();
    assert_eq!(flaky.saves.load(Ordering::Relaxed), 2, "saves go on");
    assert_eq!(flaky.compacted.lock().len(), 2);
}

/// Keeps every change it is given; while `shut`, a save waits, after telling `entered` that it
/// started.
#[derive(Clone)]
struct Gated {
    saved: Arc<Mutex<Vec<Change>>>,
    shut: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
    entered: std::sync::mpsc::Sender<()>,
    /// Whether to ask for a compaction (until one is done).
    compact: Arc<std::sync::atomic::AtomicBool>,
}

impl Gated {
    /// Shut, telling `entered` of each save.
    fn new(entered: std::sync::mpsc::Sender<()>) -> Self {
        Gated {
            saved: Arc::default(),
            shut: Arc::new((std::sync::Mutex::new(true), std::sync::Condvar::new())),
            entered,
            compact: Arc::default(),
        }
    }

    fn set_shut(&self, shut: bool) {
        *self.shut.0.lock().unwrap() = shut;
        self.shut.1.notify_all();
    }
}

impl Persister for Gated {
    fn restore(&mut self) -> Result<Vec<Change>, Error> {
        Ok(self.saved.lock().clone())
    }
    fn save(&mut self, changes: &[Change]) -> Result<(), Error> {
        let _ = self.entered.send(());
        let (shut, opened) = &*self.shut;
        let mut shut = shut.lock().unwrap();
        while *shut {
            shut = opened.wait(shut).unwrap();
        }
        self.saved.lock().extend_from_slice(changes);
        Ok(())
    }
    fn compact(&mut self, state: &[Change]) -> Result<(), Error> {
        *self.saved.lock() = state.to_vec();
        self.compact.store(false, Ordering::SeqCst);
        Ok(())
    }
    fn should_compact(&self) -> bool {
        self.compact.load(Ordering::SeqCst)
    }
}

/// A Controller persisted by `gated`, whose byte budget a large todo and three small ones
/// pass: a cycle then keeps the most recent keys within half of it.
fn gated_controller(gated: &Gated) -> Controller {
    Controller::builder()
        .persist(gated.clone(), schemas())
        .gc(restcache::store::GcPolicy::new().max_bytes(52_000).step_work(1_000_000))
        .build()
        .unwrap()
}

/// That a Controller restarted from what `gated` saved holds `ctrl`'s cache, rows in order.
fn assert_restores_in_order(gated: &Gated, ctrl: &Controller) {
    let again = Controller::builder().persist(gated.clone(), schemas()).build().unwrap();
    assert_eq!(
        todo_rows(&again),
        todo_rows(ctrl),
        "a restart restores the rows in their order"
    );
    assert_eq!(again.snapshot(), ctrl.snapshot());
}

/// The ids of the Todo rows, in the store's order.
fn todo_rows(ctrl: &Controller) -> Vec<u64> {
    let rows = ctrl.inspect()["entities"]["Todo"]["rows"].clone();
    rows.as_array()
        .map(|rows| rows.iter().map(|r| r["record"]["id"].as_u64().unwrap()).collect())
        .unwrap_or_default()
}

/// Writes todo `id` (its title 20,000 bytes long if `large`) on a thread of its own, and
/// returns once it is committed; the thread then saves it.
fn write_todo(ctrl: &Controller, id: u64, large: bool) -> std::thread::JoinHandle<()> {
    let title = if large {
        "x".repeat(20_000)
    } else {
        format!("todo {id}")
    };
    let todo = json!({ "id": id, "userId": "u1", "title": title, "completed": false });
    let writer = {
        let ctrl = ctrl.clone();
        std::thread::spawn(move || ctrl.set_response(&todos().get(), params! { id: id }, todo).unwrap())
    };
    while !todo_rows(ctrl).contains(&id) && !writer.is_finished() {
        std::thread::yield_now();
    }
    writer
}

/// A save that waits until `gated` opens, on a thread of its own, once it has started.
fn slow_save(ctrl: &Controller, entering: &std::sync::mpsc::Receiver<()>) -> std::thread::JoinHandle<()> {
    let saving = {
        let ctrl = ctrl.clone();
        std::thread::spawn(move || ctrl.invalidate(&todos().get(), params! { id: 99 }).unwrap())
    };
    entering.recv().unwrap();
    saving
}

/// R-PERS-1 with R-GC-1: the changes made while a save runs are saved after it, and a restart
/// restores the rows in the store's order, even when the collector removed a row created in
/// that window (the table's last row taking its place).
#[test]
fn r_pers_1_a_row_created_and_collected_while_a_save_runs_restores_in_order() {
    let (entered, entering) = std::sync::mpsc::channel();
    let gated = Gated::new(entered);
    let ctrl = gated_controller(&gated);
    let slow = slow_save(&ctrl, &entering);
    let writers: Vec<_> = (1..=4).map(|id| write_todo(&ctrl, id, id % 2 == 0)).collect();
    assert_eq!(todo_rows(&ctrl), [4, 2, 3], "todo 1 collected, todo 4 in its place");
    gated.set_shut(false);
    slow.join().unwrap();
    writers.into_iter().for_each(|w| w.join().unwrap());

    assert_restores_in_order(&gated, &ctrl);
}

/// R-PERS-1 with R-GC-1: a compaction that follows a save writes the state as it is then, and
/// cuts the changes still to save at that moment: a restart restores the rows in the store's
/// order, even when the collector removed a row during the save and it was written again.
#[test]
fn r_pers_1_a_compaction_after_a_slow_save_restores_the_rows_in_order() {
    let (entered, entering) = std::sync::mpsc::channel();
    let gated = Gated::new(entered);
    let ctrl = gated_controller(&gated);
    gated.set_shut(false);
    for id in 1..=3 {
        write_todo(&ctrl, id, id == 2).join().unwrap();
    }
    gated.set_shut(true);
    while entering.try_recv().is_ok() {} // the saves so far
    let slow = slow_save(&ctrl, &entering);
    // Meanwhile todo 1 is collected (todo 4 takes its place), written again, and todo 5 added.
    let mut writers = vec![write_todo(&ctrl, 4, true)];
    assert_eq!(todo_rows(&ctrl), [4, 2, 3], "todo 1 collected, todo 4 in its place");
    writers.push(write_todo(&ctrl, 1, false));
    writers.push(write_todo(&ctrl, 5, false));
    assert_eq!(todo_rows(&ctrl), [4, 2, 3, 1, 5]);
    gated.compact.store(true, Ordering::SeqCst);
    gated.set_shut(false);
    slow.join().unwrap();
    writers.into_iter().for_each(|w| w.join().unwrap());
    assert!(!gated.compact.load(Ordering::SeqCst), "compacted");

    assert_restores_in_order(&gated, &ctrl);
}

/// R-PERS-1 with R-SUB-1: a live view is told of a change before the change is saved: a slow
/// persister does not hold back what the view shows.
#[tokio::test(start_paused = true)]
async fn r_pers_1_a_live_view_sees_a_change_while_it_is_being_saved() {
    let (entered, entering) = std::sync::mpsc::channel();
    let gated = Gated::new(entered);
    let ctrl = Controller::builder().persist(gated.clone(), schemas()).build().unwrap();
    gated.set_shut(false);
    write_todo(&ctrl, 1, false).join().unwrap();
    let mut live = ctrl.subscribe(&todos().get(), params! { id: 1 });
    assert_eq!(live.next().await.unwrap().unwrap().title, "todo 1");
    gated.set_shut(true);
    while entering.try_recv().is_ok() {} // the saves so far
    let todo = json!({ "id": 1, "userId": "u1", "title": "renamed", "completed": false });
    let writer = {
        let ctrl = ctrl.clone();
        std::thread::spawn(move || ctrl.set_response(&todos().get(), params! { id: 1 }, todo).unwrap())
    };
    entering.recv().unwrap(); // the change is being saved, and the save waits
    let seen = tokio::time::timeout(Duration::from_secs(1), live.next()).await;
    gated.set_shut(false);
    writer.join().unwrap();
    let seen = seen.expect("the view was not told while the change was saved");
    assert_eq!(seen.unwrap().unwrap().title, "renamed");
}
