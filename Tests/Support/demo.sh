#!/usr/bin/env bash
# `make demo`: an offline end-to-end run on the sample data in Tests/Fixtures.
# Starts the stand-in PokeAPI on 127.0.0.1 serving the 2025-12-02 sample, mirrors it
# (documents and default sprites), syncs to the 2026-08-08 sample, diffs, exports (api-data
# tree and bundles).
set -euo pipefail

BIN=$(realpath "${1:-.build/release/pokesync}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pokesync-demo.XXXXXX")
MIRROR="$WORK/Mirror"
PYTHON=$(python3 -c 'import sys; print(sys.executable)')   # the real interpreter, not the pyenv shim
PORT=0

stop_server() {
    if [ -f "$WORK/server.pid" ]; then kill "$(cat "$WORK/server.pid")" 2>/dev/null || true; rm -f "$WORK/server.pid"; fi
    sleep 0.2
}
trap stop_server EXIT

start_server() {  # $1: api-data folder
    rm -f "$WORK/port"
    "$PYTHON" "$ROOT/Tests/Support/pokeapi_server.py" --root "$1" --port "$PORT" \
        --port-file "$WORK/port" --pid-file "$WORK/server.pid" --quiet &
    for _ in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.1; done
    PORT=$(cat "$WORK/port")
}

run() {
    printf '\n\033[1m$ pokesync %s\033[0m\n' "$*"
    "$BIN" "$@" --mirror "$MIRROR"
}

start_server "$ROOT/Tests/Fixtures/sample-2025-12-02"
API="http://127.0.0.1:$PORT/api/v2"
SPRITES="http://127.0.0.1:$PORT/PokeAPI/sprites/master/"
echo "stand-in PokeAPI (sample of 2025-12-02) at $API; scratch mirror at $MIRROR"

run full --source "$API" --sprite-source "$SPRITES" --sprites default
run status
run sync --source "$API" --sprite-source "$SPRITES" --sprites default

echo; echo "... the upstream changes: the stand-in now serves the 2026-08-08 sample"
stop_server
start_server "$ROOT/Tests/Fixtures/sample-2026-08-08"

run sync --source "$API" --sprite-source "$SPRITES" --sprites default
run versions
run diff
run export --format api-data --out "$WORK/api-data"
run export   # the bundle format: the samples are reference-closed (Tests/Fixtures/README.md)

printf '\n\033[1m$ find %s -name "*.png" | head\033[0m\n' "$MIRROR/sprites"
find "$MIRROR/sprites" -name '*.png' | sort | head -n 5
printf '\n\033[1m$ ls %s/api-data/api/v2/pokemon\033[0m\n' "$WORK"
ls "$WORK/api-data/api/v2/pokemon" | tr '\n' ' '; echo
printf '\n\033[1m$ ls %s\033[0m\n' "$MIRROR/bundles"
ls "$MIRROR/bundles" | tr '\n' ' '; echo
echo; echo "done: the scratch mirror is in $MIRROR (remove it with: rm -rf $WORK)"
