#!/usr/bin/env bash
# Runs one workload side by side: each round runs it once in restcache's bench and once in the
# reference, one right after the other (each in a fresh process, on one CPU where `taskset` is
# found), and prints each side's median and the median of the per-round ratios (reference time
# ÷ restcache time: above 1, restcache is faster) with their quartiles, as one JSON line. On a
# machine whose speed drifts from minute to minute, the per-round ratio holds where medians
# taken apart do not: both sides of a round run under the same conditions.
#
#   ./pair.sh WORKLOAD [rounds=15]
#
# Environment (optional): BENCH, the Rust bench binary (default: built with
# `cargo bench --bench normalizr --features bench-hooks --no-run`); NODE, the node binary.
set -euo pipefail
cd "$(dirname "$0")"

workload="${1:?usage: $0 WORKLOAD [rounds]}"
rounds="${2:-15}"
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 WORKLOAD [rounds=15]" >&2
  exit 2
fi
node_bin="${NODE:-node}"
if ! npm ls --depth=0 >/dev/null 2>&1; then
  echo "[pair.sh] npm ci" >&2
  npm ci --no-audit --no-fund >&2
fi
bench="${BENCH:-}"
if [[ -z "$bench" ]]; then
  if ! built="$(cd ../.. && cargo bench --bench normalizr --features bench-hooks --no-run 2>&1)"; then
    printf '%s\n[pair.sh] the bench did not build\n' "$built" >&2
    exit 1
  fi
  bench="$(sed -n 's/.*Executable .*(\(.*\))/\1/p' <<<"$built")"
fi
[[ "$bench" = /* ]] || bench="$(cd ../.. && pwd)/$bench"
pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

# mean_us of the one JSON line on stdin; fails when there is none (an unknown workload)
mean_us() {
  "$node_bin" -e 'let s = ""; process.stdin.on("data", d => (s += d)).on("end", () => {
    if (!s.trim()) { console.error("[pair.sh] no result for the workload"); process.exit(1); }
    console.log(JSON.parse(s).mean_us);
  })'
}

ours=() theirs=()
for ((r = 1; r <= rounds; r++)); do
  ours+=("$("${pin[@]}" "$bench" --only "$workload" --json | mean_us)")
  reference=(env NODE_ENV=production "${pin[@]}" "$node_bin" bench.mjs --json --only "$workload")
  if ((r == 1)); then # its versions line, once
    theirs+=("$("${reference[@]}" | mean_us)")
  else
    theirs+=("$("${reference[@]}" 2>/dev/null | mean_us)")
  fi
  echo "[pair.sh] round $r/$rounds: restcache ${ours[-1]} µs, reference ${theirs[-1]} µs" >&2
done

"$node_bin" -e '
const [name, ours, theirs] = [process.argv[1], process.argv[2].split(" ").map(Number), process.argv[3].split(" ").map(Number)];
const at = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(q * (s.length - 1))]; };
const ratios = ours.map((o, i) => theirs[i] / o);
const r3 = x => Math.round(x * 1000) / 1000;
console.log(JSON.stringify({
  name, rounds: ours.length,
  restcache_us: at(ours, 0.5), reference_us: at(theirs, 0.5),
  ratio: r3(at(ratios, 0.5)), ratio_q1: r3(at(ratios, 0.25)), ratio_q3: r3(at(ratios, 0.75)),
}));
' "$workload" "${ours[*]}" "${theirs[*]}"
