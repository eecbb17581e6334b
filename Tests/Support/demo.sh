#!/usr/bin/env bash
# `make demo`: an offline end-to-end run on the sample data in Tests/Fixtures.
# Starts the stand-in PokeAPI on 127.0.0.1 serving the 2025-12-02 sample, mirrors it
# (documents and default sprites), exports the first bundle and installs it on a
# "device" folder, syncs to the 2026-08-08 sample, diffs, exports again (full bundle and
# delta), serves the bundles folder over HTTP on 127.0.0.1, updates the device through
# the delta, and asks the installed database questions as an app would.
set -euo pipefail

BIN=$(realpath "${1:-.build/release/pokesync}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/pokesync-demo.XXXXXX")
MIRROR="$WORK/Mirror"
PYTHON=$(python3 -c 'import sys; print(sys.executable)')   # the real interpreter, not the pyenv shim
PORT=0

stop_server() {
    if [ -f "$WORK/server.pid" ]; then kill "$(cat "$WORK/server.pid")" 2>/dev/null || true; rm -f "$WORK/server.pid"; fi
    if [ -f "$WORK/http.pid" ]; then kill "$(cat "$WORK/http.pid")" 2>/dev/null || true; rm -f "$WORK/http.pid"; fi
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
run export
DEVICE="$WORK/device"
printf '\n\033[1m$ pokesync install %s --from %s\033[0m\n' "$DEVICE" "$MIRROR/bundles"
"$BIN" install "$DEVICE" --from "$MIRROR/bundles"

echo; echo "... the upstream changes: the stand-in now serves the 2026-08-08 sample"
stop_server
start_server "$ROOT/Tests/Fixtures/sample-2026-08-08"

run sync --source "$API" --sprite-source "$SPRITES" --sprites default
run versions
run diff
run export --format api-data --out "$WORK/api-data"
run export

printf '\n\033[1m$ tar tzf %s | head -n 4\033[0m\n' "$MIRROR/bundles/pokedex-2.tar.gz"
tar tzf "$MIRROR/bundles/pokedex-2.tar.gz" >"$WORK/listing.txt"   # not piped: head closing early would be SIGPIPE under pipefail
head -n 4 "$WORK/listing.txt"
mkdir -p "$WORK/look" && tar xzf "$MIRROR/bundles/pokedex-2.tar.gz" -C "$WORK/look" pokedex.sqlite
printf '\n\033[1m$ sqlite3 pokedex.sqlite "SELECT p.id, p.name, group_concat(t.type) ..."\033[0m\n'
sqlite3 "$WORK/look/pokedex.sqlite" "SELECT p.id, p.name, group_concat(t.type, '/') FROM pokemon p JOIN pokemon_type t ON t.pokemon_id = p.id GROUP BY p.id ORDER BY p.id LIMIT 5;"

echo; echo "... the bundles folder served over HTTP, as a CDN would"
"$PYTHON" -u -m http.server 0 --bind 127.0.0.1 --directory "$MIRROR/bundles" >"$WORK/http.log" 2>&1 &
echo $! >"$WORK/http.pid"
for _ in $(seq 100); do grep -q "Serving HTTP" "$WORK/http.log" 2>/dev/null && break; sleep 0.1; done
BUNDLES_URL="http://127.0.0.1:$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$WORK/http.log" | head -n 1)/index.json"
printf '\n\033[1m$ pokesync install %s --from %s\033[0m\n' "$DEVICE" "$BUNDLES_URL"
"$BIN" install "$DEVICE" --from "$BUNDLES_URL"
echo "(the real upstream update touched nearly every pokemon and species, so no delta was smaller than the full bundle)"

echo; echo "... a small upstream fix: the stand-in now serves the 2026-08-08 sample with pikachu's base experience changed"
mkdir -p "$WORK/fixed" && cp -r "$ROOT/Tests/Fixtures/sample-2026-08-08/api" "$WORK/fixed/"
"$PYTHON" - "$WORK/fixed/api/v2/pokemon/25/index.json" <<'PY'
import json, sys
with open(sys.argv[1]) as handle:
    document = json.load(handle)
document["base_experience"] += 1
with open(sys.argv[1], "w") as handle:
    json.dump(document, handle, indent=4)
PY
stop_server_only() { kill "$(cat "$WORK/server.pid")" 2>/dev/null || true; rm -f "$WORK/server.pid"; sleep 0.2; }
stop_server_only
start_server "$WORK/fixed"
run sync --source "$API" --sprite-source "$SPRITES" --sprites default --revalidate
run export
printf '\n\033[1m$ pokesync install %s --from %s\033[0m\n' "$DEVICE" "$BUNDLES_URL"
"$BIN" install "$DEVICE" --from "$BUNDLES_URL"
kill "$(cat "$WORK/http.pid")" 2>/dev/null || true; rm -f "$WORK/http.pid"
printf '\n\033[1m$ ls -l %s\033[0m\n' "$MIRROR/bundles"
ls -l "$MIRROR/bundles" | awk 'NR>1 {print "  " $5 "\t" $9}'
FULL=$(stat -c %s "$MIRROR/bundles/pokedex-3.tar.gz"); DELTA=$(stat -c %s "$MIRROR/bundles/pokedex-2-3.delta.tar.gz")
echo "the device downloaded $DELTA bytes instead of the full bundle's $FULL: $(( 100 - 100 * DELTA / FULL ))% saved"

printf '\n\033[1m$ pokesync search fire dragon --bundle %s\033[0m\n' "$DEVICE"
"$BIN" search fire dragon --bundle "$DEVICE"
printf '\n\033[1m$ pokesync show pikachu --bundle %s\033[0m\n' "$DEVICE"
"$BIN" show pikachu --bundle "$DEVICE"

printf '\n\033[1m$ find %s -name "*.png" | head\033[0m\n' "$MIRROR/sprites"
find "$MIRROR/sprites" -name '*.png' | sort >"$WORK/sprites.txt"
head -n 5 "$WORK/sprites.txt"
printf '\n\033[1m$ ls %s/api-data/api/v2/pokemon\033[0m\n' "$WORK"
ls "$WORK/api-data/api/v2/pokemon" | tr '\n' ' '; echo
echo; echo "done: the scratch mirror is in $MIRROR (remove it with: rm -rf $WORK)"
