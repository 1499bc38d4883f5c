#!/usr/bin/env bash
# Runs every workload of bench.mjs in a fresh `node` process (NODE_ENV=production), `runs` times,
# and prints the median of each workload as one JSON line on stdout, in the format of
# `cargo bench --bench normalizr -- --json`. Progress, versions and warnings go to stderr.
#
#   ./run.sh [runs=3]
#
# Environment (all optional):
#   MAX_SCALE=100000   leave out the scale workloads with N above this (default: all, up to 1,000,000)
#   FILTER=substring   only the workloads whose name contains it
#   QUICK=1            pass --quick (5 ms per workload, N <= 10,000): a smoke test, not a measurement
#   NODE=/path/to/node the node binary (default: node on PATH)
set -euo pipefail
cd "$(dirname "$0")"

runs="${1:-3}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [runs=3]" >&2
  exit 2
fi
node_bin="${NODE:-node}"

# Install the pinned packages when node_modules is missing or does not match package-lock.json.
if ! npm ls --depth=0 >/dev/null 2>&1; then
  echo "[run.sh] npm ci" >&2
  npm ci --no-audit --no-fund >&2
fi

export NODE_ENV=production
opts=()
[[ -n "${QUICK:-}" ]] && opts+=(--quick)
list_opts=("${opts[@]}")
[[ -n "${MAX_SCALE:-}" ]] && list_opts+=(--max-scale "$MAX_SCALE")
[[ -n "${FILTER:-}" ]] && list_opts+=(--filter "$FILTER")

mapfile -t names < <("$node_bin" bench.mjs --list "${list_opts[@]}")
if [[ ${#names[@]} -eq 0 ]]; then
  echo "[run.sh] no workload selected" >&2
  exit 1
fi
echo "[run.sh] node $("$node_bin" --version), ${#names[@]} workloads x $runs runs, each in a fresh process" >&2

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# Run-major order (every workload once, then again), so a passing burst of load on the machine
# does not land on all the runs of one workload.
for ((r = 1; r <= runs; r++)); do
  for i in "${!names[@]}"; do
    name="${names[$i]}"
    if ! line="$("$node_bin" bench.mjs --json --only "$name" "${opts[@]}" 2>"$tmp/stderr")"; then
      cat "$tmp/stderr" >&2
      echo "[run.sh] '$name' failed" >&2
      exit 1
    fi
    # the versions line and any warning, once
    if [[ $r -eq 1 && $i -eq 0 ]]; then cat "$tmp/stderr" >&2; fi
    printf '%s\n' "$line" >>"$tmp/$i.jsonl"
    echo "[run.sh] run $r/$runs: $line" >&2
  done
done

# The median per workload by mean_us; with an even number of runs, the mean of the middle two.
median='
const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean).map(JSON.parse);
lines.sort((a, b) => a.mean_us - b.mean_us);
const mid = lines.length >> 1;
let out = lines[mid];
if (lines.length % 2 === 0) {
  const roundSig = x => {
    if (x === 0 || !Number.isFinite(x)) return x;
    const e = 3 - Math.floor(Math.log10(Math.abs(x)));
    return e >= 0 ? Math.round(x * 10 ** e) / 10 ** e : Math.round(x / 10 ** -e) * 10 ** -e;
  };
  const meanUs = (lines[mid - 1].mean_us + lines[mid].mean_us) / 2;
  out = {
    name: out.name,
    ops_per_sec: roundSig(1e6 / meanUs),
    mean_us: roundSig(meanUs),
    items: out.items,
    ns_per_item: roundSig((meanUs * 1e3) / out.items),
  };
}
console.log(JSON.stringify(out));
'
for i in "${!names[@]}"; do
  "$node_bin" -e "$median" <"$tmp/$i.jsonl"
done
