// The reference library (@data-client/*) on the workloads of `../normalizr.rs`, with the same
// names, the same timing method and the same `--json` line format, so that the two can be run
// back to back on one machine. See README.md in this folder for what each workload calls.
//
//   NODE_ENV=production node bench.mjs                    readable table, ratio to BASELINE.md
//   NODE_ENV=production node bench.mjs --json             one JSON object per workload, per line
//   NODE_ENV=production node bench.mjs --json --quick     tiny runs, N <= 10,000
//   NODE_ENV=production node bench.mjs --filter scale     names containing the substring
//   NODE_ENV=production node bench.mjs --only 'queryAll withCache'   exactly one workload
//   NODE_ENV=production node bench.mjs --only normalizeLong --calls 10   exactly 10 calls, no warm-up
//   node bench.mjs --list [--quick] [--max-scale N]       the names that would run, one per line
//
// Timing (as in normalizr.rs): each workload warms up (250 ms, at least one call; none with
// --quick), then runs until its timed total reaches 1 s (5 ms with --quick), or until 4x that
// in wall time once at least one call has been timed. The figure is the mean per operation.
// Preparation (reading/parsing files, generating Todo lists, filling states) is untimed.
//  - Workloads without per-call setup run in batches of >= ~20 us; results are kept in an array
//    until the batch's clock has stopped.
//  - Workloads with per-call setup (an empty state, a fresh MemoCache or Controller) time each
//    call on its own, setup untimed; the measured cost of reading the clock is subtracted.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { normalize, denormalize, MemoCache } from '@data-client/normalizr';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Options.

function parseArgs(argv) {
  const opt = {
    json: false,
    quick: false,
    filter: undefined,
    only: undefined,
    calls: undefined,
    list: false,
    maxScale: Infinity,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--json') opt.json = true;
    else if (a === '--quick') opt.quick = true;
    else if (a === '--filter') opt.filter = value();
    else if (a === '--only') opt.only = value();
    else if (a === '--calls') {
      opt.calls = Number(value());
      if (!Number.isInteger(opt.calls) || opt.calls < 1) usage('--calls needs a whole number >= 1');
    } else if (a === '--list') opt.list = true;
    else if (a === '--max-scale') {
      opt.maxScale = Number(value());
      if (!Number.isFinite(opt.maxScale)) usage('--max-scale needs a number');
    } else if (a.startsWith('--')) usage(`unknown option ${a}`);
    else opt.filter = a;
  }
  return opt;
}

function usage(msg) {
  console.error(
    `[reference] ${msg}; options: --json, --quick, --filter SUBSTRING, --only NAME, --calls N, --list, --max-scale N`,
  );
  process.exit(2);
}

const opt = parseArgs(process.argv.slice(2));
const note = msg => console.error(`[reference] ${msg}`);

// ---------------------------------------------------------------------------------------------
// The reference packages. @data-client/normalizr is required; @data-client/endpoint and
// @data-client/core are used when installed (they must be 0.18.x, the version of normalizr's
// schema protocol used here).

function pkgVersion(name) {
  try {
    return JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')).version;
  } catch {
    return undefined;
  }
}

async function optionalImport(name) {
  try {
    const ns = await import(name);
    // a CommonJS build imported from ESM may expose its exports only on `default`
    return ns.default && typeof ns.default === 'object' ? { ...ns.default, ...ns } : ns;
  } catch (e) {
    if (e && (e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND')) return undefined;
    throw e;
  }
}

const versions = {
  normalizr: pkgVersion('@data-client/normalizr'),
  endpoint: pkgVersion('@data-client/endpoint'),
  core: pkgVersion('@data-client/core'),
};
const endpointPkg = await optionalImport('@data-client/endpoint');
const corePkg = await optionalImport('@data-client/core');
for (const [name, pkg] of [['endpoint', endpointPkg], ['core', corePkg]]) {
  if (pkg && !/^0\.18\./.test(versions[name] ?? '')) {
    note(`@data-client/${name} ${versions[name]} is installed, but this harness needs 0.18.x`);
    process.exit(1);
  }
}

// ---------------------------------------------------------------------------------------------
// Stand-in schema classes, used only when @data-client/endpoint is not installed. They implement
// the documented 0.18 schema protocol (SchemaSimple / entity-like schemas: normalize(input,
// parent, key, delegate), denormalize(input, delegate), queryKey(args, unvisit, delegate),
// pk, key, createIfValid, merge lifecycles) with the documented default Entity lifecycle, so that
// normalizr 0.18.1's own normalize / denormalize / MemoCache do the work.

class StandInEntity {
  static schema = {};

  /** Default primary key: the `id` field. */
  pk() {
    return this.id;
  }

  static pk(value, parent, key, args) {
    return this.prototype.pk.call(value, parent, key, args);
  }

  static process(input, _parent, _key, _args) {
    return { ...input };
  }

  static validate(_processed) {
    return undefined;
  }

  static shouldUpdate(_existingMeta, _incomingMeta, _existing, _incoming) {
    return true;
  }

  static shouldReorder(existingMeta, incomingMeta, _existing, _incoming) {
    return incomingMeta.fetchedAt < existingMeta.fetchedAt;
  }

  static merge(existing, incoming) {
    return { ...existing, ...incoming };
  }

  static mergeWithStore(existingMeta, incomingMeta, existing, incoming) {
    if (!this.shouldUpdate(existingMeta, incomingMeta, existing, incoming)) return existing;
    if (typeof incoming !== typeof existing) return incoming;
    return this.shouldReorder(existingMeta, incomingMeta, existing, incoming)
      ? this.merge(incoming, existing)
      : this.merge(existing, incoming);
  }

  static mergeMetaWithStore(existingMeta, incomingMeta, existing, incoming) {
    return this.shouldReorder(existingMeta, incomingMeta, existing, incoming) ? existingMeta : incomingMeta;
  }

  static fromJS(props = {}) {
    const instance = new this(props);
    Object.assign(instance, props);
    return instance;
  }

  static createIfValid(props) {
    return this.validate(props) ? undefined : this.fromJS(props);
  }

  static normalize(input, parent, key, delegate) {
    const args = delegate.args;
    const processed = this.process(input, parent, key, args);
    let id = this.pk(processed, parent, key, args);
    if (id === undefined || id === '' || id === 'undefined') {
      throw new Error(`${this.key}: missing primary key`);
    }
    id = `${id}`;
    if (delegate.checkLoop(this.key, id, input)) return id;
    const problem = this.validate(processed);
    if (problem) throw new Error(problem);
    const schema = this.schema;
    const fields = Object.keys(schema);
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i];
      if (Object.hasOwn(processed, field)) {
        processed[field] = delegate.visit(schema[field], processed[field], processed, field);
      }
    }
    delegate.mergeEntity(this, id, processed);
    return id;
  }

  static denormalize(input, delegate) {
    if (typeof input === 'symbol') return input;
    const schema = this.schema;
    for (const field of Object.keys(schema)) {
      const value = delegate.unvisit(schema[field], input[field]);
      if (typeof value === 'symbol') {
        if (this.defaults[field]) return value;
        input[field] = undefined;
      } else {
        input[field] = value;
      }
    }
    return input;
  }

  static queryKey(args, _unvisit, delegate) {
    const first = args[0];
    if (!first) return undefined;
    const pk = typeof first === 'string' || typeof first === 'number' ? `${first}` : this.pk(first, undefined, '', args);
    if (pk !== undefined && pk !== '' && delegate.getEntity(this.key, `${pk}`)) return `${pk}`;
    return undefined;
  }

  static get defaults() {
    if (!Object.hasOwn(this, '__defaults')) {
      Object.defineProperty(this, '__defaults', { value: new this(), writable: true, configurable: true });
    }
    return this.__defaults;
  }
}

/** Every entity of one type in the table (documented `All` semantics, single-entity form). */
class StandInAll {
  constructor(entity) {
    this.schema = entity;
  }

  normalize(input, parent, key, delegate) {
    const values = Array.isArray(input) ? input : Object.values(input);
    for (const value of values) delegate.visit(this.schema, value, parent, key);
    // the result holds nothing: reads always come from the table
    return undefined;
  }

  denormalize(input, delegate) {
    if (!Array.isArray(input)) return input;
    return input
      .map(entityOrId => delegate.unvisit(this.schema, entityOrId))
      .filter(item => item !== undefined && typeof item !== 'symbol');
  }

  queryKey(_args, _unvisit, delegate) {
    const entities = delegate.getEntities(this.schema.key);
    if (!entities) return delegate.INVALID;
    return [...entities.keys()];
  }
}

const usingStandIn = !endpointPkg;
const EntityBase = endpointPkg ? endpointPkg.Entity : StandInEntity;
const AllSchema = endpointPkg ? (endpointPkg.All ?? endpointPkg.schema.All) : StandInAll;

// ---------------------------------------------------------------------------------------------
// Schemas (shapes: ../../../shared/bench-data/README.md).

class BuildType extends EntityBase {
  id = '';
  internalId = '';
  name = '';
  type = '';
  paused = false;
  projectId = '';

  pk() {
    return this.id;
  }

  static key = 'BuildTypeDescription';
}

class Project extends EntityBase {
  id = '';
  internalId = '';
  name = '';
  parentProjectId = '';
  archived = false;

  pk() {
    return this.id;
  }

  static key = 'ProjectWithBuildTypesDescription';
  static schema = { buildTypes: { buildType: [BuildType] } };
}

const ProjectList = { project: [Project] };
const AllProjects = { project: new AllSchema(Project) };

class GithubUser extends EntityBase {
  login = '';
  id = 0;
  node_id = '';
  avatar_url = '';
  gravatar_id = '';
  url = '';
  html_url = '';
  followers_url = '';
  following_url = '';
  gists_url = '';
  starred_url = '';
  subscriptions_url = '';
  organizations_url = '';
  repos_url = '';
  events_url = '';
  received_events_url = '';
  type = '';
  site_admin = false;
  name = null;
  company = null;
  blog = null;
  location = null;
  email = null;
  hireable = null;
  bio = null;
  twitter_username = null;
  public_repos = 0;
  public_gists = 0;
  followers = 0;
  following = 0;
  created_at = '';
  updated_at = '';

  pk() {
    return this.login;
  }

  static key = 'GithubUser';
}

class User extends EntityBase {
  id = 0;
  name = '';

  pk() {
    return this.id;
  }

  static key = 'User';
}

class Todo extends EntityBase {
  id = 0;
  title = '';
  completed = false;

  pk() {
    return this.id;
  }

  static key = 'Todo';
  static schema = { user: User };
}

const TodoList = [Todo];
const AllTodos = new AllSchema(Todo);

// ---------------------------------------------------------------------------------------------
// The Todo generator of the bench-data README.

function generateTodos(n) {
  const users = Math.max(1, Math.floor(n / 10));
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    const u = (i % users) + 1;
    out[i] = {
      id: i + 1,
      title: `Todo ${i + 1}`,
      completed: i % 3 === 0,
      user: { id: u, name: `User ${u}` },
    };
  }
  return out;
}

const TODOS_100000_SHA256 = 'eccc313308cba94d3d8582a79358d3b227d1b8fa7d07a57d6fa0b4b04db3b7bf';
const sha256 = text => createHash('sha256').update(text).digest('hex');

// ---------------------------------------------------------------------------------------------
// Fixtures.

const DATA_DIR = process.env.RESTCACHE_BENCH_DATA ?? path.resolve(HERE, '../../../shared/bench-data');
const LONG_KEY = 'GET /projects';
const ONE_PROJECT = 'OpenSourceProjects_AbsaOSS_Commons';
const LONG_ITEMS = 2826;

function readFixture(name) {
  const file = path.join(DATA_DIR, name);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${file}: ${e.message}`);
  }
}

/** The generator against the stored files byte for byte, and N = 100,000 against its hash. */
function checkGenerator() {
  for (const n of [100, 1000, 10000]) {
    const file = `todos-${n}.json`;
    const stored = readFixture(file);
    const generated = JSON.stringify(generateTodos(n));
    if (generated !== stored) {
      let at = 0;
      while (at < generated.length && at < stored.length && generated[at] === stored[at]) at++;
      throw new Error(`the Todo generator differs from ${file} at char ${at}`);
    }
  }
  const hash = sha256(JSON.stringify(generateTodos(100000)));
  if (hash !== TODOS_100000_SHA256) {
    throw new Error(`the generated todos-100000 hashes to ${hash}, README says ${TODOS_100000_SHA256}`);
  }
}

const emptyState = () => ({ entities: {}, indexes: {}, entitiesMeta: {} });
const stateOf = normalized => ({
  entities: normalized.entities,
  indexes: normalized.indexes,
  entitiesMeta: normalized.entitiesMeta,
});
const fetchMeta = () => {
  const now = Date.now();
  return { fetchedAt: now, date: now, expiresAt: now + 60000 };
};

function check(condition, message) {
  if (!condition) throw new Error(message);
}

// ---------------------------------------------------------------------------------------------
// Reference figures of BASELINE.md (ops/s), for the readable table only.

const BASELINE_OPS = {
  'normalizeLong': 599,
  'normalizeLong withMerge': 270,
  'denormalizeLong donotcache': 1300,
  'denormalizeLong memo-cold': 418,
  'denormalizeLong withCache': 12900,
  'queryAll memo-cold': 394,
  'queryAll withCache': 11600,
  'normalizeOne GithubUser': 1130000,
  'denormalizeOne GithubUser donotcache': 2000000,
  'denormalizeOne GithubUser memo-cold': 1210000,
  'denormalizeOne GithubUser withCache': 5410000,
  'denormalizeOne Project donotcache': 1240000,
  'setResponse long empty-store': 495,
  'setResponse long withMerge': 279,
  'getResponse long withCache': 6540,
  'getResponse long memo-cold': 380,
  'scale normalize 100': 13800,
  'scale denormalize donotcache 100': 30300,
  'scale denormalize memo-cold 100': 12000,
  'scale denormalize withCache 100': 230000,
  'scale queryAll memo-cold 100': 11800,
  'scale normalize 1000': 1370,
  'scale denormalize donotcache 1000': 2860,
  'scale denormalize memo-cold 1000': 1100,
  'scale denormalize withCache 1000': 20100,
  'scale queryAll memo-cold 1000': 893,
  'scale normalize 10000': 90.9,
  'scale denormalize donotcache 10000': 218,
  'scale denormalize memo-cold 10000': 29.8,
  'scale denormalize withCache 10000': 1690,
  'scale queryAll memo-cold 10000': 27.2,
  'scale normalize 100000': 4.17,
  'scale denormalize donotcache 100000': 12.8,
  'scale denormalize memo-cold 100000': 1.92,
  'scale denormalize withCache 100000': 170,
  'scale queryAll memo-cold 100000': 1.85,
};

// ---------------------------------------------------------------------------------------------
// Workload names (same order as normalizr.rs).

// normalizr.rs also has `parseLong serde_json typed` and `parseLong serde_json Value`, which time
// serde_json alone; they have no counterpart in the reference and are not mirrored.
const LONG_NAMES = [
  'normalizeLong',
  'normalizeLong copy',
  'normalizeLong withMerge',
  'normalizeLong fromBytes',
  'denormalizeLong donotcache',
  'denormalizeLong memo-cold',
  'denormalizeLong withCache',
  'queryAll memo-cold',
  'queryAll withCache',
  'denormalizeOne Project donotcache',
];
const CONTROLLER_NAMES = [
  'setResponse long empty-store',
  'setResponse long withMerge',
  'getResponse long withCache',
  'getResponse long memo-cold',
];
const USER_NAMES = [
  'normalizeOne GithubUser',
  'denormalizeOne GithubUser donotcache',
  'denormalizeOne GithubUser memo-cold',
  'denormalizeOne GithubUser withCache',
];
const scaleNames = n => [
  `scale normalize ${n}`,
  `scale denormalize donotcache ${n}`,
  `scale denormalize memo-cold ${n}`,
  `scale denormalize withCache ${n}`,
  `scale queryAll memo-cold ${n}`,
];
const SCALES = (opt.quick ? [100, 1000, 10000] : [100, 1000, 10000, 100000, 1000000]).filter(
  n => n <= opt.maxScale,
);

const wants = name =>
  (opt.only === undefined || name === opt.only) && (opt.filter === undefined || name.includes(opt.filter));

function allNames() {
  const names = [...LONG_NAMES];
  if (corePkg) names.push(...CONTROLLER_NAMES);
  names.push(...USER_NAMES);
  for (const n of SCALES) names.push(...scaleNames(n));
  return names;
}

// ---------------------------------------------------------------------------------------------
// The timing loop.

const clock = process.hrtime.bigint;
const targetNs = opt.quick ? 5e6 : 1e9;
const warmupNs = opt.quick ? 0 : 250e6;
/** Keeps individually timed results reachable after their clock has stopped. */
let sink;
let ran = 0;

/** The mean cost of reading the clock twice (the overhead of timing one call), in ns. */
function clockOverheadNs() {
  const n = 20000;
  let acc = 0n;
  const t0 = clock();
  for (let i = 0; i < n; i++) {
    const t = clock();
    acc += clock() - t;
  }
  const total = Number(clock() - t0);
  sink = acc;
  return total / n;
}
// the smallest of three measurements, the first of which also warms the loop up
const clockNs = Math.min(clockOverheadNs(), clockOverheadNs(), clockOverheadNs());

/** Times `routine` in batches, keeping its results until the batch's clock has stopped. */
function run(name, items, routine) {
  if (!wants(name)) return;
  if (opt.calls !== undefined) {
    const outputs = new Array(opt.calls);
    const t0 = clock();
    for (let i = 0; i < opt.calls; i++) outputs[i] = routine();
    const total = Number(clock() - t0);
    sink = outputs;
    return report(name, items, total / opt.calls, opt.calls);
  }
  const start = clock();
  let warm = 0;
  while (warm === 0 || Number(clock() - start) < warmupNs) {
    sink = routine();
    warm++;
  }
  const perCallS = Number(clock() - start) / 1e9 / warm;
  const batch = Math.min(10000, Math.max(1, Math.ceil(20e-6 / perCallS)));
  const outputs = new Array(batch);
  let timed = 0;
  let calls = 0;
  const wall = clock();
  while (timed < targetNs && (calls === 0 || Number(clock() - wall) < targetNs * 4)) {
    const t0 = clock();
    for (let i = 0; i < batch; i++) outputs[i] = routine();
    timed += Number(clock() - t0);
    calls += batch;
    outputs.fill(undefined);
  }
  report(name, items, timed / calls, calls);
}

/** Times `routine(setup())` call by call; the setup is untimed. */
function runWith(name, items, setup, routine) {
  if (!wants(name)) return;
  if (opt.calls !== undefined) {
    let timed = 0;
    for (let i = 0; i < opt.calls; i++) {
      const input = setup();
      const t0 = clock();
      sink = routine(input);
      timed += Number(clock() - t0);
    }
    return report(name, items, timed / opt.calls, opt.calls);
  }
  const start = clock();
  let warm = 0;
  while (warm === 0 || Number(clock() - start) < warmupNs) {
    const input = setup();
    sink = routine(input);
    warm++;
  }
  sink = undefined;
  let timed = 0;
  let calls = 0;
  const wall = clock();
  while (timed < targetNs && (calls === 0 || Number(clock() - wall) < targetNs * 4)) {
    const input = setup();
    const t0 = clock();
    const out = routine(input);
    const dt = Number(clock() - t0);
    sink = out;
    timed += Math.max(0, dt - clockNs);
    calls++;
  }
  report(name, items, timed / calls, calls);
}

/** Four significant digits, as normalizr.rs does. */
function roundSig(x) {
  if (x === 0 || !Number.isFinite(x)) return x;
  const e = 3 - Math.floor(Math.log10(Math.abs(x)));
  // divide by an exact power of ten above 4 digits, so 360700000 does not print as 360700000.00000006
  return e >= 0 ? Math.round(x * 10 ** e) / 10 ** e : Math.round(x / 10 ** -e) * 10 ** -e;
}

const fmtNum = x => (x >= 100 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));

function report(name, items, meanNs, calls) {
  ran++;
  meanNs = Math.max(meanNs, 0.1);
  const ops = 1e9 / meanNs;
  const nsPerItem = meanNs / items;
  if (opt.json) {
    process.stdout.write(
      `${JSON.stringify({
        name,
        ops_per_sec: roundSig(ops),
        mean_us: roundSig(meanNs / 1e3),
        items,
        ns_per_item: roundSig(nsPerItem),
      })}\n`,
    );
  } else {
    const ref = BASELINE_OPS[name];
    const refCols = ref === undefined ? `${'—'.padStart(12)} ${'—'.padStart(8)}` : `${fmtNum(ref).padStart(12)} ${(ops / ref).toFixed(2).padStart(7)}x`;
    process.stdout.write(
      `${name.padEnd(40)} ${`${fmtNum(meanNs / 1e3)} µs`.padStart(14)} ${fmtNum(ops).padStart(14)} ${fmtNum(nsPerItem).padStart(12)} ${String(calls).padStart(10)} ${refCols}\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Workloads.

function longWorkloads() {
  if (![...LONG_NAMES, ...CONTROLLER_NAMES].some(wants)) return;
  const longText = readFixture('projects.json');
  const long = JSON.parse(longText);

  // The state every read works on: the long list normalized into an empty state.
  const filled = normalize(ProjectList, long, [], emptyState(), fetchMeta());
  const longState = stateOf(filled);
  const longResult = filled.result;
  check(longResult.project.length === 709, 'the long list does not normalize to 709 project ids');
  check(Object.keys(longState.entities.BuildTypeDescription).length === 2117, 'the long list has not 2,117 build types');

  const memo = new MemoCache();
  const read = memo.denormalize(ProjectList, longResult, longState.entities, []).data;
  const buildTypes = read.project.reduce((sum, p) => sum + p.buildTypes.buildType.length, 0);
  check(read.project.length === 709 && buildTypes === 2117, `the long list read back ${read.project.length} projects, ${buildTypes} build types`);
  check(read.project[0] instanceof Project && read.project[2].buildTypes.buildType[0] instanceof BuildType, 'the long list does not read back as entity instances');
  check(memo.denormalize(ProjectList, longResult, longState.entities, []).data === read, 'a second memoized read of the long list is not the same object');
  const all = memo.query(AllProjects, [], longState).data;
  check(all.project.length === 709, `queryAll read ${all.project?.length} projects`);
  check(memo.query(AllProjects, [], longState).data === all, 'a second queryAll read is not the same object');
  const one = denormalize(Project, ONE_PROJECT, longState.entities, []);
  check(one?.buildTypes.buildType.length === 3, `${ONE_PROJECT} does not read with its 3 build types`);

  // normalize() never takes ownership of its input (it copies what it keeps), so `normalizeLong`
  // (Rust: the parsed value moved in) and `normalizeLong copy` (Rust: borrowed) are the same call.
  runWith('normalizeLong', LONG_ITEMS, emptyState, state =>
    normalize(ProjectList, long, [], state, fetchMeta()),
  );
  runWith('normalizeLong copy', LONG_ITEMS, emptyState, state =>
    normalize(ProjectList, long, [], state, fetchMeta()),
  );
  run('normalizeLong withMerge', LONG_ITEMS, () => normalize(ProjectList, long, [], longState, fetchMeta()));
  runWith('normalizeLong fromBytes', LONG_ITEMS, emptyState, state =>
    normalize(ProjectList, JSON.parse(longText), [], state, fetchMeta()),
  );
  run('denormalizeLong donotcache', LONG_ITEMS, () =>
    denormalize(ProjectList, longResult, longState.entities, []),
  );
  runWith(
    'denormalizeLong memo-cold',
    LONG_ITEMS,
    () => new MemoCache(),
    cold => cold.denormalize(ProjectList, longResult, longState.entities, []),
  );
  run('denormalizeLong withCache', LONG_ITEMS, () =>
    memo.denormalize(ProjectList, longResult, longState.entities, []),
  );
  runWith(
    'queryAll memo-cold',
    LONG_ITEMS,
    () => new MemoCache(),
    cold => cold.query(AllProjects, [], longState),
  );
  run('queryAll withCache', LONG_ITEMS, () => memo.query(AllProjects, [], longState));
  run('denormalizeOne Project donotcache', 4, () => denormalize(Project, ONE_PROJECT, longState.entities, []));

  controllerWorkloads(long);
}

/** setResponse / getResponse through @data-client/core's Controller and reducer. */
function controllerWorkloads(long) {
  if (!CONTROLLER_NAMES.some(wants)) return;
  if (!corePkg) {
    note(`@data-client/core is not installed: skipping ${CONTROLLER_NAMES.filter(wants).join(', ')}`);
    return;
  }
  const { Controller, createReducer } = corePkg;
  const initialState = corePkg.initialState ?? corePkg.__INTERNAL__?.initialState;
  check(typeof Controller === 'function' && typeof createReducer === 'function' && initialState, '@data-client/core does not export Controller, createReducer and initialState');
  const getProjects = endpointPkg
    ? new endpointPkg.Endpoint(() => Promise.resolve(long), { key: () => LONG_KEY, schema: ProjectList, name: 'getProjects' })
    : { key: () => LONG_KEY, schema: ProjectList, name: 'getProjects', sideEffect: undefined };

  // A store: the state in a box, a Controller whose dispatch runs the reducer synchronously.
  const box = { state: initialState };
  const getState = () => box.state;
  let reducer;
  const dispatch = action => {
    box.state = reducer(box.state, action);
    return Promise.resolve();
  };
  const controller = new Controller({ dispatch, getState });
  reducer = createReducer(controller);

  controller.setResponse(getProjects, long);
  const filledState = box.state;
  const first = controller.getResponse(getProjects, filledState).data;
  check(first?.project?.length === 709, 'getResponse does not read the long list back');
  check(controller.getResponse(getProjects, filledState).data === first, 'a second getResponse is not the same object');

  run('setResponse long empty-store', LONG_ITEMS, () => {
    box.state = initialState;
    controller.setResponse(getProjects, long);
    return box.state;
  });
  run('setResponse long withMerge', LONG_ITEMS, () => {
    box.state = filledState;
    controller.setResponse(getProjects, long);
    return box.state;
  });
  run('getResponse long withCache', LONG_ITEMS, () => controller.getResponse(getProjects, filledState));
  runWith(
    'getResponse long memo-cold',
    LONG_ITEMS,
    () => new Controller({ dispatch, getState }),
    cold => cold.getResponse(getProjects, filledState),
  );
}

function githubUserWorkloads() {
  if (!USER_NAMES.some(wants)) return;
  const user = JSON.parse(readFixture('github-user.json'));
  const state = stateOf(normalize(GithubUser, user, [], emptyState(), fetchMeta()));
  const memo = new MemoCache();
  const first = memo.denormalize(GithubUser, 'gnoff', state.entities, []).data;
  check(first instanceof GithubUser && first.login === 'gnoff' && first.public_repos === 26 && first.hireable === null, 'the GitHub user reads back wrong');
  check(memo.denormalize(GithubUser, 'gnoff', state.entities, []).data === first, 'a second memoized read of the GitHub user is not the same object');

  runWith('normalizeOne GithubUser', 1, emptyState, s => normalize(GithubUser, user, [], s, fetchMeta()));
  run('denormalizeOne GithubUser donotcache', 1, () => denormalize(GithubUser, 'gnoff', state.entities, []));
  runWith(
    'denormalizeOne GithubUser memo-cold',
    1,
    () => new MemoCache(),
    cold => cold.denormalize(GithubUser, 'gnoff', state.entities, []),
  );
  run('denormalizeOne GithubUser withCache', 1, () => memo.denormalize(GithubUser, 'gnoff', state.entities, []));
}

function scaleWorkloads(n) {
  const names = scaleNames(n);
  if (!names.some(wants)) return;
  let input = generateTodos(n);
  const normalized = normalize(TodoList, input, [], emptyState(), fetchMeta());
  const state = stateOf(normalized);
  const result = normalized.result;
  const users = Math.max(1, Math.floor(n / 10));
  check(result.length === n && result[n - 1] === `${n}`, `the Todo list of ${n} normalizes wrong`);
  check(Object.keys(state.entities.User).length === users, `the Todo list of ${n} has not ${users} users`);

  runWith(names[0], n, emptyState, s => normalize(TodoList, input, [], s, fetchMeta()));
  input = undefined;

  const memo = new MemoCache();
  const list = memo.denormalize(TodoList, result, state.entities, []).data;
  const expectedUser = ((n - 1) % users) + 1;
  const last = list[list.length - 1];
  check(
    list.length === n && last.id === n && last.user.id === expectedUser && last.user.name === `User ${expectedUser}`,
    `the Todo list of ${n} reads back wrong (${list.length} items)`,
  );
  check(n < 2 * users || list[0].user === list[users].user, 'todos of one user do not share one User object');
  check(memo.denormalize(TodoList, result, state.entities, []).data === list, `a second memoized read of the Todo list of ${n} is not the same object`);
  const all = new MemoCache().query(AllTodos, [], state).data;
  check(all?.length === n, `All(Todo) does not read the ${n} todos`);

  run(names[1], n, () => denormalize(TodoList, result, state.entities, []));
  runWith(
    names[2],
    n,
    () => new MemoCache(),
    cold => cold.denormalize(TodoList, result, state.entities, []),
  );
  run(names[3], n, () => memo.denormalize(TodoList, result, state.entities, []));
  runWith(
    names[4],
    n,
    () => new MemoCache(),
    cold => cold.query(AllTodos, [], state),
  );
}

// ---------------------------------------------------------------------------------------------

function main() {
  if (opt.list) {
    for (const name of allNames()) if (wants(name)) console.log(name);
    return 0;
  }
  if (process.env.NODE_ENV !== 'production') {
    note('NODE_ENV is not "production": the library runs its development checks (run.sh sets it)');
  }
  const schemas = usingStandIn
    ? 'stand-in Entity/All of bench.mjs (@data-client/endpoint is not installed)'
    : `@data-client/endpoint ${versions.endpoint}`;
  note(
    `node ${process.version}, @data-client/normalizr ${versions.normalizr}, core ${versions.core ?? 'not installed'}, schemas: ${schemas}`,
  );
  if (opt.only !== undefined && !allNames().includes(opt.only)) {
    note(
      CONTROLLER_NAMES.includes(opt.only) && !corePkg
        ? `"${opt.only}" needs @data-client/core, which is not installed`
        : `no workload is named "${opt.only}" (see --list)`,
    );
    return 1;
  }
  checkGenerator();
  if (!opt.json) {
    console.log(
      `@data-client reference benchmarks${opt.quick ? ' (--quick)' : ''}, ratio = here / BASELINE.md ops/s`,
    );
    console.log(`clock overhead subtracted from individually timed calls: ${clockNs.toFixed(0)} ns`);
    console.log(
      `${'workload'.padEnd(40)} ${'mean'.padStart(14)} ${'ops/s'.padStart(14)} ${'ns/item'.padStart(12)} ${'calls'.padStart(10)} ${'ref ops/s'.padStart(12)} ${'ratio'.padStart(8)}`,
    );
  }
  longWorkloads();
  githubUserWorkloads();
  for (const n of SCALES) scaleWorkloads(n);
  if (ran === 0) note('no workload matches the filter');
  return 0;
}

try {
  process.exitCode = main();
} catch (e) {
  note(e instanceof Error ? e.message : String(e));
  process.exitCode = 1;
}
