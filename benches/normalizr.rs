//! Normalize/denormalize benchmarks: the workloads of the performance issue, on the fixture files
//! of `../shared/bench-data` (override with `RESTCACHE_BENCH_DATA`), compared with the reference
//! figures of `BASELINE.md` in that folder.
//!
//! ```text
//! cargo bench --bench normalizr --features bench-hooks                  # readable table with the reference ratios
//! cargo bench --bench normalizr --features bench-hooks -- --json        # one JSON object per workload, per line
//! cargo bench --bench normalizr --features bench-hooks -- --json --quick   # what CI runs: tiny runs, N ≤ 10,000
//! cargo bench --bench normalizr --features bench-hooks -- --filter scale   # only the names containing it
//! cargo bench --bench normalizr --features bench-hooks -- --only normalizeLong --calls 10   # one workload, 10 calls
//! ```
//!
//! The bench needs the crate's `bench-hooks` feature (it is the target's `required-features`):
//! `restcache::bench_hooks` reads without the memo, clears the memo, and runs an optimistic
//! update with its commit, which the public API does not offer on their own.
//!
//! `--calls N` skips warm-up and time targets: each workload runs exactly N times, so an
//! instruction count (`valgrind --tool=callgrind`) of a run with N = 11 minus one with N = 1 is
//! ten calls' worth, whatever the machine is doing.
//!
//! Timing: a hand-written loop. Each workload warms up, then runs until its timed total reaches
//! the target (1 s, or 5 ms with `--quick`); the reported figure is the mean per operation.
//! Preparation (loading and parsing the files, generating the Todo lists, filling the stores) is
//! outside the timed region, and so is dropping what an operation returns.
//!
//! - Workloads without per-call setup are timed in batches (at least ~20 µs per batch) and their
//!   results are kept in a vector until the batch's clock has stopped.
//! - Workloads with per-call setup (a fresh `Store`, or `bench_hooks::clear_memo` before a cold read) time
//!   every call on its own; the setup is untimed, and the measured cost of reading the clock
//!   (a few tens of ns) is subtracted from each call.
//!
//! Store creation: `normalizeLong`, `normalizeOne GithubUser` and `scale normalize N` write into a
//! `Store::new()` made *outside* the timed region (one per call); `setResponse long empty-store`
//! creates its store *inside* it. In this API a memoized read is `get_response`, so
//! `denormalizeLong withCache`/`memo-cold` and `getResponse long withCache`/`memo-cold` time the
//! same call; both names are kept to line up with the reference.
//!
//! Yardsticks, with no reference figure: `parseLong serde_json typed`/`Value` and `parseLong
//! simd-json typed` (what fromBytes is held to: the store parses bodies with simd-json on x86_64
//! and aarch64), `decodeLong typed from Value` (serde filling the plain structs from the moved-in
//! `Value`: the floor of any normalization into typed rows from it), the floors of a store keyed
//! by pk (`normalizeLong floor (typed parse + tables)`: the simd-json typed parse, then each
//! entity moved into its type's table under its inline pk, nested entities and the list replaced
//! by pks; `mergeLong floor (typed decode + lookups)`: the decode from the `Value`, then each
//! entity found by its pk in tables that hold the list, compared and dropped; `readLong floor
//! (row lookups + clones)`: each entity of the list found by its row and cloned into the read's
//! output), and the `clone…`
//! rows (`cloneLong typed`, `cloneOne Project typed`, `cloneOne GithubUser typed`, `scale clone
//! typed N`), a `Clone::clone` of exactly what the matching read returns: the allocation any read
//! of owned output must do, and nothing else. The `drain…` rows
//! (`drainLong Value`, `drainOne GithubUser Value`, `scale drain Value N`) are the yardsticks of
//! normalizing a parsed `Value` that is moved in: each object's fields moved out of its map into a
//! vector of their count, recursively (`drain`), keys kept: a walk of the input that frees nothing
//! (a write of typed rows frees the keys it does not keep, which this yardstick does not pay).
//!
//! `getPage one key 200x1000` (10x1000 with `--quick`) writes 200 pages of 1,000 todos from their
//! bytes into one store under one key, so each page merges into the list the pages before it
//! accumulated (R-PAGE-3); its yardstick `getPage separate keys 200x1000` writes the same pages each
//! under a key of its own, where no page meets a stored list. No reference figure.
//!
//! `gc page 200x1000 budget 10MiB` and `gc step at 1000000 entities` (60 pages and 100,000 with
//! `--quick`) measure the collector: see `gc_workloads`.
//!
//! `restore 100000 todos from a log` (10,000 with `--quick`) reads back the Todo list a
//! `FilePersister` saved, replays it and hydrates a store with it (issue #26's target: at most
//! 100 ms for 100,000 entities).
//!
//! `scale write one N` and `scale optimistic N` (N from 1,000; ns per call) write one todo into a
//! store holding the Todo list of N, written once from its bytes: `write one` with `set_response`
//! under a key of its own (`PUT /todos/<id>`), `optimistic` as `Controller::fetch` does an
//! `update` (`bench_hooks::optimistic_update_and_commit`: the layer `{id} ⊕ {completed}`, then the
//! real answer normalized from its bytes and committed, the layer dropped in the same step). Each
//! call flips `completed` of one of 8 todos spread over the list, so the row really changes; the
//! key, args and input of a call are made untimed. Issue #25's targets: the first grows at most
//! 3× from N = 10^3 to 10^6, the second is flat in N.
//!
//! Before anything runs, the Todo generator is checked against `todos-{100,1000,10000}.json`
//! (byte-equal `serde_json::to_string`); the process exits with status 1 if it differs.

use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use restcache::bench_hooks;
use restcache::persist::{FilePersister, Persister};
use restcache::prelude::*;
use restcache::store::{GcPolicy, Schemas, WriteOptions};
use serde::{Deserialize, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Schemas (see the bench-data README for the shapes).

/// A build type of the long list.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(key = "BuildTypeDescription")]
#[serde(rename_all = "camelCase")]
struct BuildType {
    #[entity(pk)]
    id: String,
    internal_id: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    paused: bool,
    project_id: String,
    description: Option<String>,
}

/// `{ buildType: [BuildType] }`, nested in a project.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
#[serde(rename_all = "camelCase")]
struct BuildTypes {
    #[schema(nested)]
    build_type: Vec<BuildType>,
}

/// A project of the long list.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(key = "ProjectWithBuildTypesDescription")]
#[serde(rename_all = "camelCase")]
struct Project {
    #[entity(pk)]
    id: String,
    internal_id: String,
    name: String,
    parent_project_id: String,
    archived: bool,
    description: Option<String>,
    #[entity(schema)]
    build_types: BuildTypes,
}

/// `projects.json`: `{ project: [Project] }`.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
struct ProjectList {
    #[schema(nested)]
    project: Vec<Project>,
}

/// `{ project: All<Project> }`: the list comes from the table.
#[derive(Clone, Debug, Default, PartialEq, Schema)]
struct AllProjects {
    #[schema(nested)]
    project: All<Project>,
}

/// `github-user.json`: one flat entity of 32 fields, pk `login`.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(key = "GithubUser")]
struct GithubUser {
    #[entity(pk)]
    login: String,
    id: u64,
    node_id: String,
    avatar_url: String,
    gravatar_id: String,
    url: String,
    html_url: String,
    followers_url: String,
    following_url: String,
    gists_url: String,
    starred_url: String,
    subscriptions_url: String,
    organizations_url: String,
    repos_url: String,
    events_url: String,
    received_events_url: String,
    #[serde(rename = "type")]
    kind: String,
    site_admin: bool,
    name: Option<String>,
    company: Option<String>,
    blog: Option<String>,
    location: Option<String>,
    email: Option<String>,
    hireable: Option<bool>,
    bio: Option<String>,
    twitter_username: Option<String>,
    public_repos: u64,
    public_gists: u64,
    followers: u64,
    following: u64,
    created_at: String,
    updated_at: String,
}

/// The user of a generated todo.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(key = "User")]
struct User {
    #[entity(pk)]
    id: u64,
    name: String,
}

/// A generated todo.
#[derive(Clone, Debug, Default, PartialEq, Entity)]
#[entity(key = "Todo")]
struct Todo {
    #[entity(pk)]
    id: u64,
    title: String,
    completed: bool,
    #[entity(schema)]
    user: User,
}

/// The long list as plain serde structs: what `serde_json::from_slice` into typed values costs,
/// the yardstick for `normalizeLong fromBytes`.
#[derive(Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct PlainBuildType {
    id: String,
    internal_id: String,
    name: String,
    #[serde(rename = "type")]
    kind: String,
    paused: bool,
    project_id: String,
    description: Option<String>,
}

#[derive(Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
struct PlainBuildTypes {
    #[allow(dead_code)]
    build_type: Vec<PlainBuildType>,
}

#[derive(Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct PlainProject {
    id: String,
    internal_id: String,
    name: String,
    parent_project_id: String,
    archived: bool,
    description: Option<String>,
    build_types: PlainBuildTypes,
}

#[derive(Deserialize)]
struct PlainProjectList {
    #[allow(dead_code)]
    project: Vec<PlainProject>,
}

/// simd-json's buffers and tape, kept between calls as the store keeps them, and the padded copy
/// of the bytes it parses in place.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
struct SimdScratch {
    input: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: simd_json::Tape<'static>,
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl Default for SimdScratch {
    fn default() -> Self {
        SimdScratch {
            input: Vec::new(),
            buffers: simd_json::Buffers::default(),
            tape: simd_json::Tape(Vec::new()),
        }
    }
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
impl SimdScratch {
    /// The long list's bytes parsed into its plain structs.
    fn parse(&mut self, bytes: &[u8]) -> PlainProjectList {
        self.input.clear();
        self.input.extend_from_slice(bytes);
        self.input.resize(bytes.len() + simd_json::INPUT_PADDING, 0);
        let mut filled = std::mem::replace(&mut self.tape, simd_json::Tape(Vec::new())).reset();
        simd_json::fill_tape_padded(&mut self.input, bytes.len(), &mut self.buffers, &mut filled).unwrap();
        let mut de = simd_json::Deserializer::from_tape(filled);
        let list = PlainProjectList::deserialize(&mut de).unwrap();
        self.tape = de.into_tape().reset();
        list
    }
}

/// The hash of the floors' tables: foldhash's fast hash with a random seed, the fastest the
/// store may use for pks (issue #25; the store keeps std's SipHash, as fast for it within noise).
type FloorHash = foldhash::fast::RandomState;

// ---------------------------------------------------------------------------------------------
// The Todo generator of the README (field order = the files' key order).

#[derive(Serialize)]
struct GenUser {
    id: u64,
    name: String,
}

#[derive(Serialize)]
struct GenTodo {
    id: u64,
    title: String,
    completed: bool,
    user: GenUser,
}

fn generate_todos(n: usize) -> Vec<GenTodo> {
    let users = (n / 10).max(1);
    (0..n)
        .map(|i| {
            let u = (i % users + 1) as u64;
            GenTodo {
                id: i as u64 + 1,
                title: format!("Todo {}", i + 1),
                completed: i % 3 == 0,
                user: GenUser {
                    id: u,
                    name: format!("User {u}"),
                },
            }
        })
        .collect()
}

/// The Todo list of size `n` as a JSON value, built in memory.
fn todos_value(n: usize) -> Value {
    serde_json::to_value(generate_todos(n)).expect("todos serialize")
}

// ---------------------------------------------------------------------------------------------
// Fixtures.

const LONG_KEY: &str = "GET /projects";
const ALL_PROJECTS_KEY: &str = "GET /projects/all";
const USER_KEY: &str = "GET /users/gnoff";
const ONE_PROJECT: &str = "OpenSourceProjects_AbsaOSS_Commons";
const ONE_KEY: &str = "GET /projects/one";
const TODOS_KEY: &str = "GET /todos";
const ALL_TODOS_KEY: &str = "GET /todos/all";
const LONG_ITEMS: u64 = 2_826;

fn data_dir() -> PathBuf {
    match std::env::var_os("RESTCACHE_BENCH_DATA") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/bench-data")),
    }
}

fn read_fixture(name: &str) -> Result<String, String> {
    let path = data_dir().join(name);
    std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn load_json(name: &str) -> Result<Value, String> {
    serde_json::from_str(&read_fixture(name)?).map_err(|e| format!("{name} does not parse: {e}"))
}

/// The generator against the stored files, byte for byte.
fn check_generator() -> Result<(), String> {
    for n in [100, 1_000, 10_000] {
        let file = format!("todos-{n}.json");
        let stored = read_fixture(&file)?;
        let generated = serde_json::to_string(&generate_todos(n)).expect("todos serialize");
        if generated != stored {
            let at = generated
                .bytes()
                .zip(stored.bytes())
                .position(|(a, b)| a != b)
                .unwrap_or(generated.len().min(stored.len()));
            return Err(format!(
                "the Todo generator differs from {file} at byte {at} (generated {} bytes, file {} bytes)",
                generated.len(),
                stored.len()
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Reference figures: BASELINE.md in the bench-data folder (name, items, mean µs, ops/s).

const BASELINE: &[(&str, u64, f64, f64)] = &[
    ("normalizeLong", 2_826, 1_670.0, 599.0),
    ("normalizeLong withMerge", 2_826, 3_700.0, 270.0),
    ("denormalizeLong donotcache", 2_826, 770.0, 1_300.0),
    ("denormalizeLong memo-cold", 2_826, 2_390.0, 418.0),
    ("denormalizeLong withCache", 2_826, 77.6, 12_900.0),
    ("queryAll memo-cold", 2_826, 2_540.0, 394.0),
    ("queryAll withCache", 2_826, 86.4, 11_600.0),
    ("normalizeOne GithubUser", 1, 0.883, 1_130_000.0),
    ("denormalizeOne GithubUser donotcache", 1, 0.500, 2_000_000.0),
    ("denormalizeOne GithubUser memo-cold", 1, 0.826, 1_210_000.0),
    ("denormalizeOne GithubUser withCache", 1, 0.185, 5_410_000.0),
    ("denormalizeOne Project donotcache", 4, 0.805, 1_240_000.0),
    ("setResponse long empty-store", 2_826, 2_020.0, 495.0),
    ("setResponse long withMerge", 2_826, 3_590.0, 279.0),
    ("getResponse long withCache", 2_826, 153.0, 6_540.0),
    ("getResponse long memo-cold", 2_826, 2_630.0, 380.0),
    ("scale normalize 100", 100, 72.3, 13_800.0),
    ("scale denormalize donotcache 100", 100, 33.0, 30_300.0),
    ("scale denormalize memo-cold 100", 100, 83.2, 12_000.0),
    ("scale denormalize withCache 100", 100, 4.34, 230_000.0),
    ("scale queryAll memo-cold 100", 100, 84.8, 11_800.0),
    ("scale normalize 1000", 1_000, 730.0, 1_370.0),
    ("scale denormalize donotcache 1000", 1_000, 350.0, 2_860.0),
    ("scale denormalize memo-cold 1000", 1_000, 911.0, 1_100.0),
    ("scale denormalize withCache 1000", 1_000, 49.7, 20_100.0),
    ("scale queryAll memo-cold 1000", 1_000, 1_120.0, 893.0),
    ("scale normalize 10000", 10_000, 11_000.0, 90.9),
    ("scale denormalize donotcache 10000", 10_000, 4_590.0, 218.0),
    ("scale denormalize memo-cold 10000", 10_000, 33_600.0, 29.8),
    ("scale denormalize withCache 10000", 10_000, 593.0, 1_690.0),
    ("scale queryAll memo-cold 10000", 10_000, 36_700.0, 27.2),
    ("scale normalize 100000", 100_000, 240_000.0, 4.17),
    ("scale denormalize donotcache 100000", 100_000, 78_000.0, 12.8),
    ("scale denormalize memo-cold 100000", 100_000, 521_000.0, 1.92),
    ("scale denormalize withCache 100000", 100_000, 5_890.0, 170.0),
    ("scale queryAll memo-cold 100000", 100_000, 542_000.0, 1.85),
];

fn reference_ops(name: &str) -> Option<f64> {
    BASELINE.iter().find(|b| b.0 == name).map(|b| b.3)
}

// ---------------------------------------------------------------------------------------------
// The timing loop.

struct Bench {
    json: bool,
    filter: Option<String>,
    /// Timed total each workload aims for.
    target: Duration,
    /// Warm-up time (at least one call).
    warmup: Duration,
    /// The cost of reading the clock twice, subtracted from individually timed calls.
    clock_ns: f64,
    /// `--only NAME`: run exactly this workload.
    only: Option<String>,
    /// `--calls N`: exactly N calls per workload, no warm-up (for instruction-count profiles).
    calls: Option<u64>,
    ran: usize,
}

impl Bench {
    fn wants(&self, name: &str) -> bool {
        self.filter.as_deref().is_none_or(|f| name.contains(f)) && self.only.as_deref().is_none_or(|o| name == o)
    }

    fn wants_any(&self, names: &[&str]) -> bool {
        names.iter().any(|n| self.wants(n))
    }

    /// Times `routine` in batches, keeping its results alive until the clock has stopped.
    fn run<O>(&mut self, name: &str, items: u64, mut routine: impl FnMut() -> O) {
        if !self.wants(name) {
            return;
        }
        if let Some(n) = self.calls {
            let t0 = Instant::now();
            for _ in 0..n {
                drop(black_box(routine()));
            }
            return self.report(name, items, t0.elapsed().as_nanos() as f64 / n as f64, n);
        }
        let start = Instant::now();
        let mut warm = 0u32;
        while warm == 0 || start.elapsed() < self.warmup {
            drop(black_box(routine()));
            warm += 1;
        }
        let per_call = start.elapsed().as_secs_f64() / f64::from(warm);
        let batch = ((20e-6 / per_call).ceil() as usize).clamp(1, 10_000);
        let mut outputs = Vec::with_capacity(batch);
        let (mut timed, mut calls) = (Duration::ZERO, 0u64);
        let wall = Instant::now();
        while timed < self.target && (calls == 0 || wall.elapsed() < self.target * 4) {
            let t0 = Instant::now();
            for _ in 0..batch {
                outputs.push(black_box(routine()));
            }
            timed += t0.elapsed();
            calls += batch as u64;
            outputs.clear();
        }
        self.report(name, items, timed.as_nanos() as f64 / calls as f64, calls);
    }

    /// Times `routine` call by call, each after an untimed `setup`; the result is dropped after
    /// the clock has stopped.
    fn run_with<I, O>(
        &mut self,
        name: &str,
        items: u64,
        mut setup: impl FnMut() -> I,
        mut routine: impl FnMut(I) -> O,
    ) {
        if !self.wants(name) {
            return;
        }
        if let Some(n) = self.calls {
            let mut timed_ns = 0f64;
            for _ in 0..n {
                let input = setup();
                let t0 = Instant::now();
                let out = black_box(routine(black_box(input)));
                timed_ns += t0.elapsed().as_nanos() as f64;
                drop(out);
            }
            return self.report(name, items, timed_ns / n as f64, n);
        }
        let start = Instant::now();
        let mut warm = 0u32;
        while warm == 0 || start.elapsed() < self.warmup {
            let input = setup();
            drop(black_box(routine(black_box(input))));
            warm += 1;
        }
        let (mut timed_ns, mut calls) = (0f64, 0u64);
        let wall = Instant::now();
        let target_ns = self.target.as_nanos() as f64;
        while timed_ns < target_ns && (calls == 0 || wall.elapsed() < self.target * 4) {
            let input = setup();
            let t0 = Instant::now();
            let out = black_box(routine(black_box(input)));
            let dt = t0.elapsed();
            drop(out);
            timed_ns += (dt.as_nanos() as f64 - self.clock_ns).max(0.0);
            calls += 1;
        }
        self.report(name, items, timed_ns / calls as f64, calls);
    }

    fn report(&mut self, name: &str, items: u64, mean_ns: f64, calls: u64) {
        self.ran += 1;
        let mean_ns = mean_ns.max(0.1);
        let ops = 1e9 / mean_ns;
        let ns_per_item = mean_ns / items as f64;
        let mut out = std::io::stdout().lock();
        if self.json {
            let line = serde_json::json!({
                "name": name,
                "ops_per_sec": round_sig(ops),
                "mean_us": round_sig(mean_ns / 1e3),
                "items": items,
                "ns_per_item": round_sig(ns_per_item),
            });
            let _ = writeln!(out, "{line}");
        } else {
            let mut row = format!(
                "{name:<40} {:>14} {:>14} {:>12} {:>10}",
                fmt_us(mean_ns / 1e3),
                fmt_num(ops),
                fmt_num(ns_per_item),
                calls
            );
            match reference_ops(name) {
                Some(r) => {
                    let _ = write!(row, " {:>12} {:>7.2}×", fmt_num(r), ops / r);
                }
                None => row.push_str(&format!(" {:>12} {:>8}", "—", "—")),
            }
            let _ = writeln!(out, "{row}");
        }
        let _ = out.flush();
    }
}

/// Four significant digits: enough for figures that are noisy to ±20%, and short.
fn round_sig(x: f64) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let scale = 10f64.powi(3 - x.abs().log10().floor() as i32);
    (x * scale).round() / scale
}

fn fmt_num(x: f64) -> String {
    if x >= 100.0 {
        format!("{x:.0}")
    } else if x >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn fmt_us(us: f64) -> String {
    format!("{} µs", fmt_num(us))
}

/// The mean cost of `Instant::now()` + `elapsed()`, the overhead of timing one call.
fn clock_overhead_ns() -> f64 {
    let n = 20_000;
    let t0 = Instant::now();
    let mut sink = Duration::ZERO;
    for _ in 0..n {
        let t = Instant::now();
        sink += black_box(t.elapsed());
    }
    black_box(sink);
    t0.elapsed().as_nanos() as f64 / f64::from(n)
}

fn note(msg: &str) {
    eprintln!("[normalizr] {msg}");
}

// ---------------------------------------------------------------------------------------------
// Workloads.

/// A parsed `Value` with each object's fields moved into a vector: the `drain…` yardsticks.
#[allow(dead_code)] // Built to be dropped: only its construction is timed.
enum Drained {
    Object(Vec<(String, Drained)>),
    Array(Vec<Drained>),
    Scalar(Value),
}

/// About the least a normalization of a moved-in `Value` into records like this store's (an
/// entity's fields in one allocation) does with it: take every object's fields out of its map
/// (freeing the map's nodes) into a vector of their count, and every array's elements into a
/// new vector. No field is checked, no pk found or copied, nothing stored. (The store keeps an
/// object schema's value as its map, which this drains too: within the noise, 710 of the long
/// list's 3,536 objects.)
fn drain(value: Value) -> Drained {
    match value {
        Value::Object(map) => {
            let mut fields = Vec::with_capacity(map.len());
            fields.extend(map.into_iter().map(|(name, v)| (name, drain(v))));
            Drained::Object(fields)
        }
        Value::Array(items) => Drained::Array(items.into_iter().map(drain).collect()),
        scalar => Drained::Scalar(scalar),
    }
}

fn long_workloads(b: &mut Bench) -> Result<(), String> {
    let names = [
        "normalizeLong",
        "normalizeLong copy",
        "drainLong Value",
        "decodeLong typed from Value",
        "normalizeLong withMerge",
        "normalizeLong fromBytes",
        "normalizeLong fromBytes via Value",
        "parseLong serde_json typed",
        "parseLong simd-json typed",
        "parseLong serde_json Value",
        "normalizeLong floor (typed parse + tables)",
        "mergeLong floor (typed decode + lookups)",
        "cloneLong typed",
        "readLong floor (row lookups + clones)",
        "cloneOne Project typed",
        "denormalizeLong donotcache",
        "denormalizeLong memo-cold",
        "denormalizeLong withCache",
        "queryAll memo-cold",
        "queryAll withCache",
        "denormalizeOne Project donotcache",
        "setResponse long empty-store",
        "setResponse long withMerge",
        "getResponse long withCache",
        "getResponse long memo-cold",
    ];
    if !b.wants_any(&names) {
        return Ok(());
    }
    let long_bytes = read_fixture("projects.json")?;
    let long: Value = serde_json::from_str(&long_bytes).map_err(|e| format!("projects.json does not parse: {e}"))?;
    let err = |e: restcache::Error| e.to_string();

    // The store every read works on, written from the bytes as a fetch writes it: the long list
    // under its key, and `{ project: All<Project> }` under another (its stored result holds no
    // entity; the list comes from the table).
    let mut store = Store::new();
    store
        .set_response_bytes::<ProjectList>(LONG_KEY, &(), long_bytes.as_bytes())
        .map_err(err)?;
    store
        .set_response::<AllProjects>(ALL_PROJECTS_KEY, &(), &serde_json::json!({ "project": [] }))
        .map_err(err)?;
    let read = store.get_response::<ProjectList>(LONG_KEY, &()).map_err(err)?;
    let list = read.data.ok_or("the long list does not read back")?;
    let build_types: usize = list.project.iter().map(|p| p.build_types.build_type.len()).sum();
    if (list.project.len(), build_types) != (709, 2_117) {
        return Err(format!(
            "the long list read back {} projects, {build_types} build types",
            list.project.len()
        ));
    }
    let again = store.get_response::<ProjectList>(LONG_KEY, &()).map_err(err)?.data;
    if !again.is_some_and(|a| Arc::ptr_eq(&a, &list)) {
        return Err("a second read of the unchanged long list is not the same Arc".into());
    }
    let all = store
        .get_response::<AllProjects>(ALL_PROJECTS_KEY, &())
        .map_err(err)?
        .data;
    let all = all.ok_or("queryAll does not read")?;
    if all.project.len() != 709 {
        return Err(format!("queryAll read {} projects", all.project.len()));
    }
    let all_again = store
        .get_response::<AllProjects>(ALL_PROJECTS_KEY, &())
        .map_err(err)?
        .data;
    if !all_again.is_some_and(|a| Arc::ptr_eq(&a, &all)) {
        return Err("a second queryAll read is not the same Arc".into());
    }
    drop((list, all));
    // One project's stored reference, as the reference denormalizes its pk: written by a
    // response that holds only its pk, which changes no row.
    store
        .set_response::<Project>(ONE_KEY, &(), &serde_json::json!({ "id": ONE_PROJECT }))
        .map_err(err)?;
    let one = bench_hooks::read_uncached::<Project>(&store, ONE_KEY, &());
    if one.as_ref().map(|p| p.build_types.build_type.len()) != Some(3) {
        return Err(format!("{ONE_PROJECT} does not read with its 3 build types"));
    }
    let mut merge = Store::new();
    merge.set_response::<ProjectList>(LONG_KEY, &(), &long).map_err(err)?;

    // The parsed response is moved into the store, as the HTTP path does; each call gets its
    // own copy, made untimed like its fresh store. `normalizeLong copy` passes `&Value`.
    b.run_with(
        "normalizeLong",
        LONG_ITEMS,
        || (Store::new(), long.clone()),
        |(mut s, v)| {
            s.set_response::<ProjectList>(LONG_KEY, &(), v).unwrap();
            s
        },
    );
    // The yardstick of `normalizeLong`: the same input, only moved out of its maps.
    b.run_with("drainLong Value", LONG_ITEMS, || long.clone(), drain);
    // The floor of any normalization into typed rows from a moved-in `Value`: serde filling the
    // user's plain structs from it, with no pk, no table and no store.
    b.run_with(
        "decodeLong typed from Value",
        LONG_ITEMS,
        || long.clone(),
        |v| serde_json::from_value::<PlainProjectList>(v).unwrap(),
    );
    // The least a merge of the list into tables that hold it does after that decode: each
    // entity found by its pk (kept inline, hashed with [`FloorHash`]) and compared with the stored
    // one, then dropped.
    type Pk = compact_str::CompactString;
    let (mut stored_projects, mut stored_build_types, mut stored_list) = (
        indexmap::IndexMap::<Pk, (PlainProject, Vec<Pk>), FloorHash>::default(),
        indexmap::IndexMap::<Pk, PlainBuildType, FloorHash>::default(),
        Vec::new(),
    );
    let decoded = serde_json::from_value::<PlainProjectList>(long.clone()).map_err(|e| e.to_string())?;
    for mut project in decoded.project {
        let mut refs = Vec::new();
        for bt in std::mem::take(&mut project.build_types.build_type) {
            refs.push(Pk::from(bt.id.as_str()));
            stored_build_types.insert(Pk::from(bt.id.as_str()), bt);
        }
        stored_list.push(Pk::from(project.id.as_str()));
        stored_projects.insert(Pk::from(project.id.as_str()), (project, refs));
    }
    let merge_floor = |v: Value| {
        let list = serde_json::from_value::<PlainProjectList>(v).unwrap();
        let mut changed = 0usize;
        for mut project in list.project {
            for bt in std::mem::take(&mut project.build_types.build_type) {
                changed += usize::from(stored_build_types.get(bt.id.as_str()) != Some(&bt));
            }
            changed += usize::from(stored_projects.get(project.id.as_str()).map(|(p, _)| p) != Some(&project));
        }
        changed
    };
    // Every entity is found and equal, so each is compared in full.
    if merge_floor(long.clone()) != 0 {
        return Err("the merge floor found entities that differ".to_owned());
    }
    b.run_with(
        "mergeLong floor (typed decode + lookups)",
        LONG_ITEMS,
        || long.clone(),
        merge_floor,
    );
    b.run_with("normalizeLong copy", LONG_ITEMS, Store::new, |mut s| {
        s.set_response::<ProjectList>(LONG_KEY, &(), &long).unwrap();
        s
    });
    b.run_with(
        "normalizeLong withMerge",
        LONG_ITEMS,
        || long.clone(),
        |v| merge.set_response::<ProjectList>(LONG_KEY, &(), v).unwrap(),
    );
    b.run_with("normalizeLong fromBytes", LONG_ITEMS, Store::new, |mut s| {
        s.set_response_bytes::<ProjectList>(LONG_KEY, &(), long_bytes.as_bytes())
            .unwrap();
        s
    });
    b.run_with("normalizeLong fromBytes via Value", LONG_ITEMS, Store::new, |mut s| {
        let v: Value = serde_json::from_slice(long_bytes.as_bytes()).unwrap();
        s.set_response::<ProjectList>(LONG_KEY, &(), v).unwrap();
        s
    });
    b.run("parseLong serde_json typed", LONG_ITEMS, || {
        serde_json::from_slice::<PlainProjectList>(long_bytes.as_bytes()).unwrap()
    });
    // What `normalizeLong fromBytes` is held to where the store parses with simd-json: the same
    // padded copy of the bytes (simd-json parses in place), and the same buffers and tape kept
    // between calls.
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        let mut scratch = SimdScratch::default();
        b.run("parseLong simd-json typed", LONG_ITEMS, || {
            scratch.parse(long_bytes.as_bytes())
        });
        // The least any normalizing store keyed by pk does after that parse: each entity moved into
        // its type's table under its pk (kept inline, hashed with [`FloorHash`]), nested entities
        // replaced by their pks, the list by its projects' pks.
        b.run("normalizeLong floor (typed parse + tables)", LONG_ITEMS, || {
            let list = scratch.parse(long_bytes.as_bytes());
            type Pk = compact_str::CompactString;
            let nested: usize = list.project.iter().map(|p| p.build_types.build_type.len()).sum();
            let mut projects = indexmap::IndexMap::<Pk, (PlainProject, Vec<Pk>), FloorHash>::with_capacity_and_hasher(
                list.project.len(),
                FloorHash::default(),
            );
            let mut build_types = indexmap::IndexMap::<Pk, PlainBuildType, FloorHash>::with_capacity_and_hasher(
                nested,
                FloorHash::default(),
            );
            let mut result = Vec::with_capacity(list.project.len());
            for mut project in list.project {
                let nested = std::mem::take(&mut project.build_types.build_type);
                let refs: Vec<Pk> = nested
                    .into_iter()
                    .map(|bt| {
                        let pk = Pk::from(bt.id.as_str());
                        build_types.insert(pk.clone(), bt);
                        pk
                    })
                    .collect();
                let pk = Pk::from(project.id.as_str());
                projects.insert(pk.clone(), (project, refs));
                result.push(pk);
            }
            (projects, build_types, result)
        });
    }
    b.run("parseLong serde_json Value", LONG_ITEMS, || {
        serde_json::from_slice::<Value>(long_bytes.as_bytes()).unwrap()
    });
    // The yardsticks of the reads: cloning what a read returns allocates what any read of
    // owned output must allocate (every string and vector), and does nothing else.
    let typed =
        bench_hooks::read_uncached::<ProjectList>(&store, LONG_KEY, &()).ok_or("the long list does not read")?;
    b.run("cloneLong typed", LONG_ITEMS, || typed.clone());
    // The least a read of the list from tables does: each project and build type found by its
    // row (references kept as row indices, no hash) and its fields cloned into the output
    // (`cloneLong typed`'s output).
    let rows: Vec<(usize, Vec<usize>)> = stored_list
        .iter()
        .filter_map(|pk| {
            let (at, _, (_, refs)) = stored_projects.get_full(pk.as_str())?;
            let refs = refs.iter().filter_map(|r| stored_build_types.get_index_of(r.as_str()));
            Some((at, refs.collect()))
        })
        .collect();
    let read_floor = || {
        let project = rows
            .iter()
            .map(|(at, refs)| {
                let (_, (p, _)) = stored_projects.get_index(*at).expect("a stored project");
                let build_type = refs
                    .iter()
                    .map(|r| {
                        let (_, b) = stored_build_types.get_index(*r).expect("a stored build type");
                        BuildType {
                            id: b.id.clone(),
                            internal_id: b.internal_id.clone(),
                            name: b.name.clone(),
                            kind: b.kind.clone(),
                            paused: b.paused,
                            project_id: b.project_id.clone(),
                            description: b.description.clone(),
                        }
                    })
                    .collect();
                Project {
                    id: p.id.clone(),
                    internal_id: p.internal_id.clone(),
                    name: p.name.clone(),
                    parent_project_id: p.parent_project_id.clone(),
                    archived: p.archived,
                    description: p.description.clone(),
                    build_types: BuildTypes { build_type },
                }
            })
            .collect();
        ProjectList { project }
    };
    if read_floor() != typed {
        return Err("the read floor's output differs from the read's".to_owned());
    }
    b.run("readLong floor (row lookups + clones)", LONG_ITEMS, read_floor);
    drop((stored_projects, stored_build_types, stored_list));
    drop(typed);
    let typed = one.clone().ok_or("the project does not read")?;
    b.run("cloneOne Project typed", 4, || typed.clone());
    drop(typed);
    b.run("denormalizeLong donotcache", LONG_ITEMS, || {
        bench_hooks::read_uncached::<ProjectList>(&store, LONG_KEY, &())
    });
    b.run_with(
        "denormalizeLong memo-cold",
        LONG_ITEMS,
        || bench_hooks::clear_memo(&store),
        |()| store.get_response::<ProjectList>(LONG_KEY, &()).unwrap(),
    );
    b.run("denormalizeLong withCache", LONG_ITEMS, || {
        store.get_response::<ProjectList>(LONG_KEY, &()).unwrap()
    });
    b.run_with(
        "queryAll memo-cold",
        LONG_ITEMS,
        || bench_hooks::clear_memo(&store),
        |()| store.get_response::<AllProjects>(ALL_PROJECTS_KEY, &()).unwrap(),
    );
    b.run("queryAll withCache", LONG_ITEMS, || {
        store.get_response::<AllProjects>(ALL_PROJECTS_KEY, &()).unwrap()
    });
    b.run("denormalizeOne Project donotcache", 4, || {
        bench_hooks::read_uncached::<Project>(&store, ONE_KEY, &())
    });
    b.run_with(
        "setResponse long empty-store",
        LONG_ITEMS,
        || long.clone(),
        |v| {
            let mut s = Store::new();
            s.set_response_with::<ProjectList>(LONG_KEY, &(), v, WriteOptions::new())
                .unwrap();
            s
        },
    );
    b.run_with(
        "setResponse long withMerge",
        LONG_ITEMS,
        || long.clone(),
        |v| {
            merge
                .set_response_with::<ProjectList>(LONG_KEY, &(), v, WriteOptions::new())
                .unwrap()
        },
    );
    b.run("getResponse long withCache", LONG_ITEMS, || {
        store.get_response::<ProjectList>(LONG_KEY, &()).unwrap()
    });
    b.run_with(
        "getResponse long memo-cold",
        LONG_ITEMS,
        || bench_hooks::clear_memo(&store),
        |()| store.get_response::<ProjectList>(LONG_KEY, &()).unwrap(),
    );
    Ok(())
}

fn github_user_workloads(b: &mut Bench) -> Result<(), String> {
    let names = [
        "normalizeOne GithubUser",
        "drainOne GithubUser Value",
        "cloneOne GithubUser typed",
        "denormalizeOne GithubUser donotcache",
        "denormalizeOne GithubUser memo-cold",
        "denormalizeOne GithubUser withCache",
    ];
    if !b.wants_any(&names) {
        return Ok(());
    }
    let user = load_json("github-user.json")?;
    let err = |e: restcache::Error| e.to_string();
    // The store the reads work on, written from the bytes as a fetch writes it.
    let mut store = Store::new();
    let user_bytes = serde_json::to_vec(&user).map_err(|e| e.to_string())?;
    store
        .set_response_bytes::<GithubUser>(USER_KEY, &(), &user_bytes)
        .map_err(err)?;
    let first = store.get_response::<GithubUser>(USER_KEY, &()).map_err(err)?.data;
    let first = first.ok_or("the GitHub user does not read back")?;
    if first.login != "gnoff" || first.public_repos != 26 || first.hireable.is_some() {
        return Err(format!("the GitHub user reads back wrong: {first:?}"));
    }
    let second = store.get_response::<GithubUser>(USER_KEY, &()).map_err(err)?.data;
    if !second.is_some_and(|s| Arc::ptr_eq(&s, &first)) {
        return Err("a second read of the GitHub user is not the same Arc".into());
    }
    drop(first);

    b.run_with(
        "normalizeOne GithubUser",
        1,
        || (Store::new(), user.clone()),
        |(mut s, v)| {
            s.set_response::<GithubUser>(USER_KEY, &(), v).unwrap();
            s
        },
    );
    b.run_with("drainOne GithubUser Value", 1, || user.clone(), drain);
    let typed =
        bench_hooks::read_uncached::<GithubUser>(&store, USER_KEY, &()).ok_or("the GitHub user does not read")?;
    b.run("cloneOne GithubUser typed", 1, || typed.clone());
    drop(typed);
    b.run("denormalizeOne GithubUser donotcache", 1, || {
        bench_hooks::read_uncached::<GithubUser>(&store, USER_KEY, &())
    });
    b.run_with(
        "denormalizeOne GithubUser memo-cold",
        1,
        || bench_hooks::clear_memo(&store),
        |()| store.get_response::<GithubUser>(USER_KEY, &()).unwrap(),
    );
    b.run("denormalizeOne GithubUser withCache", 1, || {
        store.get_response::<GithubUser>(USER_KEY, &()).unwrap()
    });
    Ok(())
}

fn scale_workloads(b: &mut Bench, n: usize) -> Result<(), String> {
    let names = [
        format!("scale normalize {n}"),
        format!("scale denormalize donotcache {n}"),
        format!("scale denormalize memo-cold {n}"),
        format!("scale denormalize withCache {n}"),
        format!("scale queryAll memo-cold {n}"),
        format!("scale clone typed {n}"),
        format!("scale drain Value {n}"),
    ];
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if !b.wants_any(&names) {
        return Ok(());
    }
    let err = |e: restcache::Error| e.to_string();
    let items = n as u64;
    let input = todos_value(n);
    // The store the reads work on, written from the bytes as a fetch writes it.
    let mut store = Store::new();
    let input_bytes = serde_json::to_vec(&input).map_err(|e| e.to_string())?;
    store
        .set_response_bytes::<Vec<Todo>>(TODOS_KEY, &(), &input_bytes)
        .map_err(err)?;
    drop(input_bytes);

    b.run_with(
        names[0],
        items,
        || (Store::new(), input.clone()),
        |(mut s, v)| {
            s.set_response::<Vec<Todo>>(TODOS_KEY, &(), v).unwrap();
            s
        },
    );
    b.run_with(names[6], items, || input.clone(), drain);
    drop(input);

    let list = store.get_response::<Vec<Todo>>(TODOS_KEY, &()).map_err(err)?.data;
    let list = list.ok_or("the Todo list does not read back")?;
    let users = (n / 10).max(1);
    let last = list.last().map(|t| (t.id, t.user.id, t.user.name.as_str()));
    let expected_user = ((n - 1) % users + 1) as u64;
    if list.len() != n || last != Some((n as u64, expected_user, format!("User {expected_user}").as_str())) {
        return Err(format!("the Todo list of {n} reads back wrong ({} items)", list.len()));
    }
    let again = store.get_response::<Vec<Todo>>(TODOS_KEY, &()).map_err(err)?.data;
    if !again.is_some_and(|a| Arc::ptr_eq(&a, &list)) {
        return Err(format!("a second read of the Todo list of {n} is not the same Arc"));
    }
    drop(list);
    let all = store.get_response::<All<Todo>>(ALL_TODOS_KEY, &()).map_err(err)?.data;
    if all.map(|a| a.len()) != Some(n) {
        return Err(format!("All<Todo> does not read the {n} todos"));
    }

    let typed = bench_hooks::read_uncached::<Vec<Todo>>(&store, TODOS_KEY, &()).ok_or("the Todo list does not read")?;
    b.run(names[5], items, || typed.clone());
    drop(typed);
    b.run(names[1], items, || {
        bench_hooks::read_uncached::<Vec<Todo>>(&store, TODOS_KEY, &())
    });
    b.run_with(
        names[2],
        items,
        || bench_hooks::clear_memo(&store),
        |()| store.get_response::<Vec<Todo>>(TODOS_KEY, &()).unwrap(),
    );
    b.run(names[3], items, || {
        store.get_response::<Vec<Todo>>(TODOS_KEY, &()).unwrap()
    });
    b.run_with(
        names[4],
        items,
        || bench_hooks::clear_memo(&store),
        |()| store.get_response::<All<Todo>>(ALL_TODOS_KEY, &()).unwrap(),
    );
    Ok(())
}

/// The Todo list a store holds, and 8 of its todos spread over it, handed out in turn, each with
/// `completed` flipped from what the store holds: once a call has written it, the store holds the
/// flipped value.
struct Flips {
    todos: Vec<GenTodo>,
    next: usize,
}

impl Flips {
    fn next(&mut self) -> &GenTodo {
        let step = (self.todos.len() / 8).max(1);
        let i = self.next % 8 * step % self.todos.len();
        self.next += 1;
        let todo = &mut self.todos[i];
        todo.completed = !todo.completed;
        todo
    }
}

/// `scale write one N` and `scale optimistic N` (issue #25): one todo written into a store that
/// holds the Todo list of `n` (written from its bytes, untimed). `write one` writes it with
/// `set_response` under a key of its own; `optimistic` adds the optimistic layer of an update to
/// it and commits the update's response, dropping the layer (`Controller::fetch`'s path). Each
/// call changes the todo (`completed` flipped), cycling over 8 todos spread over the list; the
/// key, args, value and response bytes of a call are made untimed before it.
fn write_one_workloads(b: &mut Bench, n: usize) -> Result<(), String> {
    let names = [format!("scale write one {n}"), format!("scale optimistic {n}")];
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if !b.wants_any(&names) {
        return Ok(());
    }
    let err = |e: restcache::Error| e.to_string();
    let todos = generate_todos(n);
    let bytes = serde_json::to_vec(&todos).expect("todos serialize");
    let mut store = Store::new();
    store
        .set_response_bytes::<Vec<Todo>>(TODOS_KEY, &(), &bytes)
        .map_err(err)?;
    drop(bytes);
    // The list is kept until the end: freeing its 2N small strings here would leave glibc's
    // `malloc` to gather them up in the first timed call (some 20 ms at N = 10^6).
    let mut flips = Flips { todos, next: 0 };
    let one_write = |flips: &mut Flips| {
        let todo = flips.next();
        let value = serde_json::to_value(todo).expect("todo serializes");
        (
            format!("PUT /todos/{}", todo.id),
            serde_json::json!({ "id": todo.id }),
            value,
        )
    };
    let one_update = |flips: &mut Flips| {
        let todo = flips.next();
        let body = serde_json::json!({ "completed": todo.completed });
        let response = serde_json::to_vec(todo).expect("todo serializes");
        let args = serde_json::json!({ "id": todo.id });
        (format!("PUT /todos/{}", todo.id), args, body, response)
    };

    // Each path once, checked: the todo reads back changed.
    let reads_back = |store: &Store, id: u64, completed: bool| {
        let read = store.get_response::<Todo>(&format!("GET /todos/{id}"), &serde_json::json!({ "id": id }));
        read.ok().and_then(|r| r.data).is_some_and(|t| t.completed == completed)
    };
    let (key, args, value) = one_write(&mut flips);
    let (id, completed) = (args["id"].as_u64().unwrap_or(0), value["completed"] == true);
    store.set_response::<Todo>(&key, &args, value).map_err(err)?;
    if !reads_back(&store, id, completed) {
        return Err(format!(
            "a todo written into the store of {n} does not read back changed"
        ));
    }
    let (key, args, body, response) = one_update(&mut flips);
    let (id, completed) = (args["id"].as_u64().unwrap_or(0), body["completed"] == true);
    let committed = bench_hooks::optimistic_update_and_commit::<Todo>(&mut store, &key, &args, &body, &response);
    let committed = committed.map_err(err)?;
    if !(committed.is_some_and(|t| t.completed == completed) && reads_back(&store, id, completed)) {
        return Err(format!("an optimistic update in the store of {n} does not commit"));
    }
    bench_hooks::clear_memo(&store);

    b.run_with(
        names[0],
        1,
        || one_write(&mut flips),
        |(key, args, value)| store.set_response::<Todo>(&key, &args, value).unwrap(),
    );
    b.run_with(
        names[1],
        1,
        || one_update(&mut flips),
        |(key, args, body, response)| {
            bench_hooks::optimistic_update_and_commit::<Todo>(&mut store, &key, &args, &body, &response).unwrap()
        },
    );
    Ok(())
}

/// `get_page` (R-PAGE-3): `pages` pages of `per_page` todos each, written from their bytes (the
/// path of a fetch) into one store, accumulated under one key; and, as the yardstick, the same
/// pages each under a key of its own, so that no page meets a stored list. Every call starts from
/// an empty store.
fn page_workloads(b: &mut Bench, pages: usize, per_page: usize) -> Result<(), String> {
    let names = [
        format!("getPage one key {pages}x{per_page}"),
        format!("getPage separate keys {pages}x{per_page}"),
    ];
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    if !b.wants_any(&names) {
        return Ok(());
    }
    type Paged = Page<Collection<Vec<Todo>>>;
    let n = pages * per_page;
    let bodies: Vec<Vec<u8>> = generate_todos(n)
        .chunks(per_page)
        .map(|page| serde_json::to_vec(page).expect("todos serialize"))
        .collect();
    let one_key = |store: &mut Store| {
        for body in &bodies {
            store.set_response_bytes::<Paged>(TODOS_KEY, &(), body).unwrap();
        }
    };
    let separate_keys = |store: &mut Store| {
        for (i, body) in bodies.iter().enumerate() {
            let args = serde_json::json!({ "list": i });
            let key = format!("{TODOS_KEY}?list={i}");
            store.set_response_bytes::<Paged>(&key, &args, body).unwrap();
        }
    };

    let mut store = Store::new();
    one_key(&mut store);
    let list = bench_hooks::read_uncached::<Collection<Vec<Todo>>>(&store, TODOS_KEY, &());
    let in_order = list.is_some_and(|l| l.len() == n && l.iter().zip(1..).all(|(t, id)| t.id == id));
    if !in_order {
        return Err(format!(
            "{pages} pages of {per_page} todos do not read back as one list in order"
        ));
    }
    drop(store);

    let items = n as u64;
    b.run_with(names[0], items, Store::new, |mut s| {
        one_key(&mut s);
        s
    });
    b.run_with(names[1], items, Store::new, |mut s| {
        separate_keys(&mut s);
        s
    });
    Ok(())
}

/// Restoring a persisted cache (R-PERS, issue #26: at most 100 ms for 100,000 entities): the
/// Todo list of `n` (with its `n / 10` users) written from its bytes with a [`FilePersister`],
/// which saves it as changes to a log file; each call reads the log back and hydrates an empty
/// store with its changes, as `Controller::builder().persist(..).build()` does. The log is in the system's temporary directory, read through its page cache.
fn restore_workloads(b: &mut Bench, n: usize) -> Result<(), String> {
    let name = format!("restore {n} todos from a log");
    if !b.wants(&name) {
        return Ok(());
    }
    let path = std::env::temp_dir().join(format!("restcache-bench-restore-{}-{n}.log", std::process::id()));
    let fail = |e: restcache::Error| e.to_string();
    let bytes = serde_json::to_vec(&generate_todos(n)).expect("todos serialize");
    let mut store = Store::new();
    store
        .set_response_bytes::<Vec<Todo>>(TODOS_KEY, &(), &bytes)
        .map_err(fail)?;
    let mut log = FilePersister::new(&path);
    log.compact(&store.snapshot().changes()).map_err(fail)?;
    drop(log); // a log has one writer: each restore below is the next run's
    let schemas = Schemas::new().with::<Vec<Todo>>();
    let restore = || -> Result<Store, restcache::Error> {
        let changes = FilePersister::new(&path).restore()?;
        let mut restored = Store::new();
        restored.hydrate_changes(changes, &schemas)?;
        Ok(restored)
    };
    let restored = restore().map_err(fail)?;
    let back = bench_hooks::read_uncached::<Vec<Todo>>(&restored, TODOS_KEY, &());
    if back.is_none_or(|todos| todos.len() != n) || restored.snapshot() != store.snapshot() {
        return Err(format!("{n} persisted todos do not restore as they were"));
    }
    drop((store, restored));
    b.run_with(&name, n as u64 + n as u64 / 10, || (), |()| restore().unwrap());
    std::fs::remove_file(&path).map_err(|e| e.to_string())?;
    Ok(())
}

/// The collector (R-GC, issue #26).
///
/// `gc page PxN budget 10MiB`: a UI paging through `P` pages of `N` distinct todos (their users
/// shared, 10 todos each), each page a key of its own (`GET /todos?page=i`), written from its
/// bytes and read once, into a store with a 10 MiB byte budget; one call is the whole run, in a
/// new store. The store's bytes after every page are checked: the run fails if their peak passes
/// the budget, and prints it.
///
/// `gc step at N entities`: a store holding `N` todos (and `N / 10` users) in 10 keys of `N / 10`
/// each, half of them retained, all older than `max_age`; one call is one `gc_step` of the
/// default 1,024 units of work, until the cycle ends (it removes half the todos). Prints the
/// longest step after the first cycle (which warms up).
fn gc_workloads(b: &mut Bench, pages: usize, per_page: usize, entities: usize) -> Result<(), String> {
    const BUDGET: usize = 10 << 20;
    let paging = format!("gc page {pages}x{per_page} budget 10MiB");
    if b.wants(&paging) {
        let bodies: Vec<Vec<u8>> = generate_todos(pages * per_page)
            .chunks(per_page)
            .map(|page| serde_json::to_vec(page).expect("todos serialize"))
            .collect();
        let mut peak = 0;
        let run = |peak: &mut usize| {
            let mut store = Store::new();
            store.set_gc(GcPolicy::new().max_bytes(BUDGET));
            for (i, body) in bodies.iter().enumerate() {
                let key = format!("{TODOS_KEY}?page={i}");
                store.set_response_bytes::<Vec<Todo>>(&key, &(), body).unwrap();
                let shown = store.get_response::<Vec<Todo>>(&key, &()).unwrap().data;
                assert_eq!(shown.map_or(0, |page| page.len()), per_page, "page {i} reads whole");
                *peak = (*peak).max(store.bytes().unwrap_or(0));
            }
            store
        };
        b.run_with(&paging, (pages * per_page) as u64, || (), |()| run(&mut peak));
        note(&format!(
            "{paging}: peak store bytes {:.2} MiB of {} MiB",
            peak as f64 / f64::from(1 << 20),
            BUDGET >> 20
        ));
        if peak > BUDGET {
            return Err(format!(
                "{paging}: the store's bytes reached {peak}, over the budget {BUDGET}"
            ));
        }
    }
    let stepping = format!("gc step at {entities} entities");
    if b.wants(&stepping) {
        let per_key = entities / 10;
        // Made once, outside the loop that fills the store: the fixture's own garbage is not the
        // collector's. (With glibc, the first free of a block of 64 KiB or more after many small
        // frees makes `malloc` consolidate them: made and dropped in the loop, the fixture made the
        // step that frees the first evicted result take 19.6 ms; 0.8 ms with
        // `GLIBC_TUNABLES=glibc.malloc.mxfast=0`.)
        let bodies: Vec<Vec<u8>> = generate_todos(entities)
            .chunks(per_key)
            .map(|chunk| serde_json::to_vec(chunk).expect("todos serialize"))
            .collect();
        let fill = || {
            let mut store = Store::new();
            store.set_gc(GcPolicy::new().max_age(Duration::ZERO));
            for (i, body) in bodies.iter().enumerate() {
                let key = format!("{TODOS_KEY}?part={i}");
                store.set_response_bytes::<Vec<Todo>>(&key, &(), body).unwrap();
                if i % 2 == 0 {
                    store.retain(&key);
                }
            }
            store
        };
        // The store and whether its cycle has ended; each call steps the cycle, and a new store
        // is filled (untimed) once one ends. The longest step is taken after the first cycle,
        // which warms up the code and the allocator.
        let state = std::cell::RefCell::new((fill(), false));
        let (mut longest, mut cycles) = (Duration::ZERO, 0);
        b.run_with(
            &stepping,
            1_024,
            || {
                let mut state = state.borrow_mut();
                if state.1 {
                    *state = (fill(), false);
                }
            },
            |()| {
                let mut state = state.borrow_mut();
                let t0 = Instant::now();
                let step = state.0.gc_step();
                let took = t0.elapsed();
                if cycles > 0 {
                    longest = longest.max(took);
                }
                cycles += usize::from(step.done);
                state.1 = step.done;
            },
        );
        if !longest.is_zero() {
            note(&format!(
                "{stepping}: longest step after the first cycle {:.3} ms",
                longest.as_secs_f64() * 1e3
            ));
        }
    }
    Ok(())
}

/// What `/usr/bin/time -v` measures for BENCHMARKS.md's peak memory: the Todo list of `n` built
/// in memory as JSON, normalized into a store (moved in), the list read back once without the
/// memo, and exit.
///
/// With `from_bytes` the list is built as JSON text instead, as a response arrives, and goes in
/// through `set_response_bytes` (the path a fetch takes); the text is dropped before the read.
fn memory_run(n: usize, from_bytes: bool) -> ExitCode {
    let mut store = Store::new();
    let written = if from_bytes {
        let mut bytes = serde_json::to_vec(&generate_todos(n)).expect("todos serialize");
        // Sized to the text, as a body read with its length is: the doubling of a growing
        // buffer would keep up to as much again spare.
        bytes.shrink_to_fit();
        store.set_response_bytes::<Vec<Todo>>(TODOS_KEY, &(), &bytes)
    } else {
        store.set_response::<Vec<Todo>>(TODOS_KEY, &(), todos_value(n))
    };
    if let Err(e) = written {
        eprintln!("[normalizr] {e}");
        return ExitCode::FAILURE;
    }
    let read = bench_hooks::read_uncached::<Vec<Todo>>(&store, TODOS_KEY, &());
    let count = read.as_ref().map_or(0, Vec::len);
    println!("normalized and read back {count} todos");
    if count == n {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

// ---------------------------------------------------------------------------------------------

fn main() -> ExitCode {
    let mut json = false;
    let mut quick = false;
    let mut filter = None;
    let mut only = None;
    let mut calls = None;
    let mut dump = None;
    let mut memory = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--quick" => quick = true,
            "--filter" => filter = args.next(),
            "--only" => only = args.next(),
            "--calls" => calls = args.next().and_then(|n| n.parse::<u64>().ok()).filter(|&n| n > 0),
            // Prints the generated Todo list of size N, to check its sha256 against the README.
            "--dump-todos" => dump = args.next().and_then(|n| n.parse::<usize>().ok()),
            // The peak-memory run: build N todos in memory, normalize once, denormalize once, exit.
            "--memory" => memory = args.next().and_then(|n| n.parse::<usize>().ok()).map(|n| (n, false)),
            // The same with the list built as JSON text and normalized from its bytes.
            "--memory-bytes" => memory = args.next().and_then(|n| n.parse::<usize>().ok()).map(|n| (n, true)),
            // Passed by `cargo bench`.
            "--bench" => {}
            other if other.starts_with("--") => {
                eprintln!(
                    "unknown option {other}; options: --json, --quick, --filter SUBSTRING, --only NAME, --calls N, \
                     --memory N, --memory-bytes N, --dump-todos N"
                );
                return ExitCode::from(2);
            }
            other => filter = Some(other.to_owned()),
        }
    }
    if let Some(n) = dump {
        let mut out = std::io::stdout().lock();
        serde_json::to_writer(&mut out, &generate_todos(n)).expect("stdout");
        return ExitCode::SUCCESS;
    }
    if let Some((n, from_bytes)) = memory {
        return memory_run(n, from_bytes);
    }
    if let Err(e) = check_generator() {
        eprintln!("[normalizr] {e}");
        return ExitCode::FAILURE;
    }

    let mut b = Bench {
        json,
        filter,
        target: if quick {
            Duration::from_millis(5)
        } else {
            Duration::from_secs(1)
        },
        warmup: if quick {
            Duration::ZERO
        } else {
            Duration::from_millis(250)
        },
        clock_ns: clock_overhead_ns(),
        only,
        calls,
        ran: 0,
    };
    if !json {
        println!(
            "restcache normalizr benchmarks{} — reference: BASELINE.md (@data-client/normalizr 0.18.1, node 20); \
             ratio = ours / reference ops/s",
            if quick { " (--quick)" } else { "" }
        );
        println!(
            "clock overhead subtracted from individually timed calls: {:.0} ns",
            b.clock_ns
        );
        println!(
            "{:<40} {:>14} {:>14} {:>12} {:>10} {:>12} {:>8}",
            "workload", "mean", "ops/s", "ns/item", "calls", "ref ops/s", "ratio"
        );
    }
    let scales: &[usize] = if quick {
        &[100, 1_000, 10_000]
    } else {
        &[100, 1_000, 10_000, 100_000, 1_000_000]
    };
    let mut result = long_workloads(&mut b).and_then(|()| github_user_workloads(&mut b));
    for &n in scales {
        result = result.and_then(|()| scale_workloads(&mut b, n));
    }
    for &n in scales.iter().filter(|&&n| n >= 1_000) {
        result = result.and_then(|()| write_one_workloads(&mut b, n));
    }
    let pages = if quick { 10 } else { 200 };
    result = result.and_then(|()| page_workloads(&mut b, pages, 1_000));
    result = result.and_then(|()| restore_workloads(&mut b, if quick { 10_000 } else { 100_000 }));
    result = result.and_then(|()| {
        let (pages, entities) = if quick { (60, 100_000) } else { (200, 1_000_000) };
        gc_workloads(&mut b, pages, 1_000, entities)
    });
    if let Err(e) = result {
        eprintln!("[normalizr] {e}");
        return ExitCode::FAILURE;
    }
    if b.ran == 0 {
        // Nothing measured is a mistake in the command (a misspelt name), not a result.
        note("no workload matches the filter");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
