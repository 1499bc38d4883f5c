#!/usr/bin/env bash
# restcache for the browser (wasm32-unknown-unknown).
#
#   scripts/wasm.sh build   build restcache and the examples (browser, leptos-todos, dioxus-todos)
#                           for wasm32
#   scripts/wasm.sh check   build restcache and the browser example for wasm32 (debug; what CI runs
#                           beside `test`, which builds the other examples as it tests them), and
#                           restcache's docs for wasm32
#   scripts/wasm.sh test    run the browser suite (crates/browser-tests), then the Leptos and Dioxus
#                           examples' tests, in headless Chromium against the demo API, started
#                           here on 127.0.0.1
#   scripts/wasm.sh serve [browser|leptos|dioxus]
#                           build the examples and serve one (browser by default) with the demo
#                           API (PORT=3000 by default) at http://127.0.0.1:$PORT/app/
#
# It installs what is missing: a Rust toolchain with wasm32's standard library (rustup's target
# where rustup can download it, else Debian's rustc-web, which builds std from its source),
# wasm-bindgen-cli at the version Cargo.lock pins, and for `test` Chromium and chromedriver.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=wasm32-unknown-unknown
# Apart from the native build's, so the two toolchains never rebuild each other's artifacts.
WASM_TARGET="${WASM_TARGET_DIR:-$PWD/target/wasm}"
# wasm-bindgen-cli, kept across runs and clones (it takes minutes to build).
TOOLS="${WASM_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/restcache/wasm-tools}"

log() { echo "wasm.sh: $*" >&2; }

apt_install() {
    local missing=()
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# Sets CARGO_WASM (the cargo to build wasm32 with) and WASM_FLAGS.
toolchain() {
    if command -v rustup >/dev/null && rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
        CARGO_WASM=(cargo); WASM_FLAGS=(); return
    fi
    if command -v rustup >/dev/null && rustup target add "$TARGET" >/dev/null 2>&1; then
        CARGO_WASM=(cargo); WASM_FLAGS=(); return
    fi
    # No downloadable target: Debian's Rust, building std for wasm32 from its source.
    apt_install rustc-web cargo-web rust-web-src lld-22
    export RUSTC_BOOTSTRAP=1 RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
    CARGO_WASM=(/usr/bin/cargo)
    WASM_FLAGS=(-Zbuild-std=std,panic_abort)
}

wasm_cargo() { "${CARGO_WASM[@]}" "$1" "${WASM_FLAGS[@]}" --target "$TARGET" --target-dir "$WASM_TARGET" "${@:2}"; }

# wasm-bindgen-cli at the version of wasm-bindgen in Cargo.lock, in $TOOLS/bin.
bindgen() {
    local version
    version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
    if ! "$TOOLS/bin/wasm-bindgen" --version 2>/dev/null | grep -q " $version\$"; then
        log "installing wasm-bindgen-cli $version"
        cargo install --quiet --root "$TOOLS" wasm-bindgen-cli --version "$version"
    fi
    export PATH="$TOOLS/bin:$PATH"
}

# Starts the demo API (natively) with the given extra arguments; sets DEMO_PID and DEMO_URL.
start_demo() {
    cargo build --quiet -p demo-api
    local native_target port_file
    native_target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    port_file=$(mktemp)
    rm -f "$port_file"
    "$native_target/debug/demo-api" --port "${PORT:-0}" --port-file "$port_file" "$@" &
    DEMO_PID=$!
    trap 'kill $DEMO_PID 2>/dev/null || true' EXIT
    for _ in $(seq 1 100); do
        [ -s "$port_file" ] && break
        kill -0 "$DEMO_PID" 2>/dev/null || { log "the demo API did not start"; exit 1; }
        sleep 0.1
    done
    DEMO_URL="http://127.0.0.1:$(cat "$port_file")"
    rm -f "$port_file"
}

build() {
    toolchain
    wasm_cargo build -p restcache --lib
    wasm_cargo build -p browser-example --release
    bindgen
    wasm-bindgen --target web --no-typescript --out-dir examples/browser/pkg \
        "$WASM_TARGET/$TARGET/release/browser_example.wasm"
    wasm_cargo build -p leptos-todos --release --bin leptos-todos
    wasm-bindgen --target web --no-typescript --out-dir examples/leptos-todos/pkg --out-name leptos_todos \
        "$WASM_TARGET/$TARGET/release/leptos-todos.wasm"
    wasm_cargo build -p dioxus-todos --release --bin dioxus-todos
    wasm-bindgen --target web --no-typescript --out-dir examples/dioxus-todos/pkg --out-name dioxus_todos \
        "$WASM_TARGET/$TARGET/release/dioxus-todos.wasm"
}

check() {
    toolchain
    wasm_cargo build -p restcache --lib -p browser-example
    # The docs as a browser build sees them: items built for one target only are not linked.
    RUSTDOCFLAGS="-D warnings" wasm_cargo doc -p restcache --no-deps
}

run_tests() {
    toolchain
    bindgen
    apt_install chromium chromium-driver
    start_demo
    log "demo API at $DEMO_URL"
    export RESTCACHE_DEMO_API="$DEMO_URL"
    export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
    export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
    export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"
    # Chromium leaves a profile folder of about 80 MB per session in the temporary folder: give it
    # one of its own, removed with the demo API when the script exits.
    BROWSER_TMP=$(mktemp -d)
    trap 'kill $DEMO_PID 2>/dev/null || true; rm -rf "$BROWSER_TMP"' EXIT
    export TMPDIR="$BROWSER_TMP"
    # The runner reads the browser's options (headless, no sandbox as root) from webdriver.json.
    (cd crates/browser-tests && wasm_cargo test -p browser-tests)
    # The examples in the page, through their bindings (each with its own webdriver.json).
    (cd examples/leptos-todos && wasm_cargo test -p leptos-todos --test browser --test worker)
    (cd examples/dioxus-todos && wasm_cargo test -p dioxus-todos --test browser)
}

serve() {
    local example
    case "${1:-browser}" in
        browser) example=examples/browser ;;
        leptos) example=examples/leptos-todos ;;
        dioxus) example=examples/dioxus-todos ;;
        *) log "no example named $1 (browser, leptos, dioxus)"; exit 2 ;;
    esac
    build
    PORT="${PORT:-3000}" start_demo --static "$example"
    log "the example is at $DEMO_URL/app/ (Ctrl-C stops it)"
    wait "$DEMO_PID"
}

case "${1:-}" in
    build) build ;;
    check) check ;;
    test) run_tests ;;
    serve) serve "${2:-browser}" ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
esac
