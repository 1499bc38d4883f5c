//! Many concurrent reads and mutations on overlapping todos, from a seeded random schedule; at the
//! end the cache holds exactly what the server holds, and nothing deadlocked (R-FETCH-1..3,
//! R-NORM-6/7, R-COL-4, R-INV, R-OPTM-4).
//!
//! The cache orders writes by when their requests *started* (R-NORM-7); the server applies them
//! in the order they *arrive*. When a read and a mutation of the same todo overlap, the two
//! orders can legitimately disagree, and the final state then depends on the network, not on the
//! library (the out-of-order cases are pinned down one by one in `order.rs`). So the schedule
//! lets everything overlap except requests that conflict: a mutation never overlaps another
//! request on the same todo, nor a list read of its user (a create is a mutation of its user's
//! lists). Reads of the same todos and lists overlap freely (and join each other's GETs in
//! flight), mutations of different todos of one user overlap, and so does everything across
//! users, including the creates that all append to the shared unfiltered list.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use demo_api::DemoServer;
use restcache::Error;
use restcache::prelude::*;
use restcache::reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::sync::{Notify, OwnedRwLockReadGuard, OwnedRwLockWriteGuard, RwLock};

use crate::fixtures::*;

const USERS: [&str; 3] = ["u1", "u2", "u3"];
const WORKERS: usize = 8;
const OPS_PER_WORKER: usize = 60;
/// The highest seeded id is never deleted, so the server never hands out an id twice.
const KEPT: u64 = 30;

/// Which of a user's two kinds of requests hold the user's gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    /// List reads of the user.
    Lists,
    /// Mutations of the user's todos, creates included.
    Mutations,
}

/// Lets any number of requests of one [`Side`] in at once, and none of the other side.
#[derive(Default)]
struct Gate {
    inside: Mutex<(usize, usize)>,
    changed: Notify,
}

struct Pass(Arc<Gate>, Side);

impl Gate {
    async fn enter(self: &Arc<Self>, side: Side) -> Pass {
        loop {
            // Registered before the check, so a release in between is not missed.
            let changed = self.changed.notified();
            {
                let mut inside = self.inside.lock().unwrap();
                let (lists, mutations) = &mut *inside;
                let (mine, theirs) = match side {
                    Side::Lists => (lists, *mutations),
                    Side::Mutations => (mutations, *lists),
                };
                if theirs == 0 {
                    *mine += 1;
                    return Pass(Arc::clone(self), side);
                }
            }
            changed.await;
        }
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        let mut inside = self.0.inside.lock().unwrap();
        match self.1 {
            Side::Lists => inside.0 -= 1,
            Side::Mutations => inside.1 -= 1,
        }
        drop(inside);
        self.0.changed.notify_waiters();
    }
}

/// The test's own bookkeeping: the gates, a lock per todo, and the todos created so far.
struct Schedule {
    gates: [Arc<Gate>; 3],
    todos: Mutex<HashMap<u64, Arc<RwLock<()>>>>,
    created: Mutex<[Vec<u64>; 3]>,
}

impl Schedule {
    fn new() -> Self {
        Schedule {
            gates: Default::default(),
            todos: Mutex::new(HashMap::new()),
            created: Mutex::new(Default::default()),
        }
    }

    fn todo_lock(&self, id: u64) -> Arc<RwLock<()>> {
        Arc::clone(self.todos.lock().unwrap().entry(id).or_default())
    }

    async fn reading(&self, id: u64) -> OwnedRwLockReadGuard<()> {
        self.todo_lock(id).read_owned().await
    }

    async fn writing(&self, user: usize, id: u64) -> (Pass, OwnedRwLockWriteGuard<()>) {
        let pass = self.gates[user].enter(Side::Mutations).await;
        (pass, self.todo_lock(id).write_owned().await)
    }

    /// The list gates of these users, always entered in user order.
    async fn listing(&self, users: &[usize]) -> Vec<Pass> {
        let mut passes = Vec::new();
        for &u in users {
            passes.push(self.gates[u].enter(Side::Lists).await);
        }
        passes
    }

    /// A todo of `user`: seeded or created. With `deletable`, only seeded ones other than
    /// [`KEPT`].
    fn some_todo(&self, rng: &mut SplitMix64, user: usize, deletable: bool) -> u64 {
        let seeded = 10 * user as u64 + 1..=10 * user as u64 + 10;
        let mut ids: Vec<u64> = seeded.filter(|&id| !deletable || id != KEPT).collect();
        if !deletable {
            ids.extend(&self.created.lock().unwrap()[user]);
        }
        *rng.pick(&ids)
    }
}

/// One step of the schedule; its fields are for failure messages.
#[derive(Debug)]
#[allow(dead_code)]
enum Op {
    Get { id: u64, suspense: bool },
    List { user: Option<usize>, suspense: bool },
    Patch { id: u64, optimistic: bool },
    Put { id: u64, optimistic: bool },
    Delete { id: u64, optimistic: bool },
    Create { user: usize, optimistic: bool },
}

fn resource(optimistic: bool) -> Resource<Todo> {
    if optimistic { optimistic_todos() } else { todos() }
}

fn list_args(user: Option<usize>) -> Value {
    match user {
        Some(u) => json!({ "userId": USERS[u] }),
        None => json!({}),
    }
}

/// Runs one step, holding what the schedule requires while it is in flight.
async fn run(ctrl: &Controller, schedule: &Schedule, rng: &mut SplitMix64, tag: &str) -> (Op, Result<(), Error>) {
    let user = rng.below(3) as usize;
    let optimistic = rng.below(2) == 0;
    let roll = rng.below(100);
    let text = format!("{tag} {}", rng.below(1000));
    match roll {
        0..=29 => {
            let id = schedule.some_todo(rng, user, false);
            let suspense = rng.below(2) == 0;
            let _reading = schedule.reading(id).await;
            let r = if suspense {
                ok(ctrl.suspense(&todos().get(), params! { id: id }).await)
            } else {
                ok(ctrl.fetch(&todos().get(), params! { id: id }).await)
            };
            (Op::Get { id, suspense }, r)
        }
        30..=44 => {
            let user = (!roll.is_multiple_of(4)).then_some(user);
            let suspense = rng.below(2) == 0;
            let users: Vec<usize> = user.map_or(vec![0, 1, 2], |u| vec![u]);
            let _listing = schedule.listing(&users).await;
            let args = list_args(user);
            let r = if suspense {
                ok(ctrl.suspense(&todos().get_list(), &args).await)
            } else {
                ok(ctrl.fetch(&todos().get_list(), &args).await)
            };
            (Op::List { user, suspense }, r)
        }
        45..=62 => {
            let id = schedule.some_todo(rng, user, false);
            let body = if rng.below(2) == 0 {
                json!({ "title": text })
            } else {
                json!({ "completed": rng.below(2) == 0 })
            };
            let _writing = schedule.writing(user, id).await;
            let r = ctrl
                .fetch(&resource(optimistic).partial_update(), params! { id: id })
                .body(&body)
                .await;
            (Op::Patch { id, optimistic }, ok(r))
        }
        63..=74 => {
            let id = schedule.some_todo(rng, user, false);
            let body = json!({ "title": text, "completed": rng.below(2) == 0 });
            let _writing = schedule.writing(user, id).await;
            let r = ctrl
                .fetch(&resource(optimistic).update(), params! { id: id })
                .body(&body)
                .await;
            (Op::Put { id, optimistic }, ok(r))
        }
        75..=82 => {
            let id = schedule.some_todo(rng, user, true);
            let _writing = schedule.writing(user, id).await;
            let r = ctrl.fetch(&resource(optimistic).delete(), params! { id: id }).await;
            (Op::Delete { id, optimistic }, ok(r))
        }
        _ => {
            let _pass = schedule.gates[user].enter(Side::Mutations).await;
            let made = ctrl
                .fetch(&resource(optimistic).get_list().push(), list_args(Some(user)))
                .body(&json!({ "userId": USERS[user], "title": text }))
                .await;
            if let Ok(todo) = &made {
                schedule.created.lock().unwrap()[user].push(todo.id);
            }
            (Op::Create { user, optimistic }, ok(made))
        }
    }
}

fn ok<T>(outcome: Result<T, Error>) -> Result<(), Error> {
    outcome.map(drop)
}

/// What every step may end in: success, or a 404 for a todo deleted earlier.
fn acceptable(op: &Op, outcome: &Result<(), Error>) -> bool {
    match (op, outcome) {
        (_, Ok(())) => true,
        (Op::List { .. } | Op::Create { .. }, Err(_)) => false,
        (
            _,
            Err(Error::Status {
                status: StatusCode::NOT_FOUND,
                ..
            }),
        ) => true,
        _ => false,
    }
}

/// Runs the schedule of `seed`; returns how many steps of each kind ran.
async fn run_schedule(ctrl: &Controller, seed: u64) -> HashMap<&'static str, usize> {
    let schedule = Arc::new(Schedule::new());
    let workers: Vec<_> = (0..WORKERS)
        .map(|w| {
            let (ctrl, schedule) = (ctrl.clone(), Arc::clone(&schedule));
            let mut rng = SplitMix64::new(seed ^ (w as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407));
            tokio::spawn(async move {
                let mut done = Vec::new();
                for step in 0..OPS_PER_WORKER {
                    let (op, outcome) = run(&ctrl, &schedule, &mut rng, &format!("w{w}s{step}")).await;
                    assert!(
                        acceptable(&op, &outcome),
                        "seed {seed:#x}, worker {w}, step {step}: {op:?} ended in {outcome:?}"
                    );
                    done.push(op);
                }
                done
            })
        })
        .collect();
    let mut kinds = HashMap::new();
    for worker in workers {
        for op in worker.await.expect("a worker panicked") {
            let kind = match op {
                Op::Get { .. } => "get",
                Op::List { .. } => "get_list",
                Op::Patch { .. } => "partial_update",
                Op::Put { .. } => "update",
                Op::Delete { .. } => "delete",
                Op::Create { .. } => "create",
            };
            *kinds.entry(kind).or_default() += 1;
        }
    }
    kinds
}

/// Every todo the cache holds equals the server's, every deleted one is gone from the server,
/// and every list and read through the Controller agrees with the server.
async fn assert_cache_equals_server(server: &DemoServer, ctrl: &Controller, seed: u64) {
    let listed = demo_api::client::get(server.addr(), "/todos").await.unwrap();
    let on_server: HashMap<String, Value> = listed
        .json()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["id"].to_string(), t.clone()))
        .collect();
    let snapshot = ctrl.inspect();
    let rows = snapshot["entities"]["Todo"]["rows"].as_array().unwrap();
    assert!(rows.len() >= 10, "seed {seed:#x}: the schedule filled the cache");
    for row in rows {
        let pk = row["pk"].as_str().unwrap();
        match &row["record"] {
            Value::String(mark) if mark == "INVALID" => assert!(
                !on_server.contains_key(pk),
                "seed {seed:#x}: todo {pk} is deleted in the cache but not on the server"
            ),
            record => assert_eq!(
                Some(record),
                on_server.get(pk),
                "seed {seed:#x}: todo {pk} in the cache (left) and on the server (right)"
            ),
        }
        // Reads go through the optimistic read state: no layer may be left.
        let id: u64 = pk.parse().unwrap();
        let read = ctrl.get_response(&todos().get(), params! { id: id }).unwrap();
        if let Some(todo) = read.data {
            let expected: Todo = serde_json::from_value(on_server[pk].clone()).unwrap();
            assert_eq!(*todo, expected, "seed {seed:#x}: todo {pk} as read");
        }
    }
    for user in [None, Some(0), Some(1), Some(2)] {
        let args = list_args(user);
        let Some(list) = ctrl.get_response(&todos().get_list(), &args).unwrap().data else {
            continue;
        };
        let cached: BTreeSet<u64> = list.iter().map(|t| t.id).collect();
        let expected: BTreeSet<u64> = on_server
            .values()
            .filter(|t| user.is_none_or(|u| t["userId"] == USERS[u]))
            .map(|t| t["id"].as_u64().unwrap())
            .collect();
        assert_eq!(cached, expected, "seed {seed:#x}: the list {args}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_fetch_1_concurrent_mixed_reads_and_mutations_leave_the_cache_equal_to_the_server() {
    let seeds: Vec<u64> = match std::env::var("RESTCACHE_LOAD_SEED") {
        Ok(seed) => vec![u64::from_str_radix(seed.trim_start_matches("0x"), 16).expect("a hex seed")],
        Err(_) => vec![0x5EED_0007, 0xC0FF_EE42, 0x0DD5_EED5],
    };
    for seed in seeds {
        let server = DemoServer::start().await.unwrap();
        let ctrl = controller(&server, |b| b);
        // A deadlock guard, not a timing assertion: the schedule takes a second or two.
        let kinds = tokio::time::timeout(Duration::from_secs(120), run_schedule(&ctrl, seed))
            .await
            .unwrap_or_else(|_| panic!("seed {seed:#x}: the schedule did not finish; a deadlock?"));
        for kind in ["get", "get_list", "partial_update", "update", "delete", "create"] {
            assert!(
                kinds.get(kind).copied().unwrap_or(0) > 0,
                "seed {seed:#x}: no {kind} in {kinds:?}"
            );
        }
        assert_cache_equals_server(&server, &ctrl, seed).await;
    }
}
