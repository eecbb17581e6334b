#!/usr/bin/env bash
# `make static-check`: the binary `make install` installs runs without the Swift toolchain.
# ldd must name no library below the toolchain's folder (found from `swift`, /opt/swift
# here), and the binary must run: --version, then a `full` of the sample api-data folder.
set -eu
bin=${1:?usage: static_check.sh BINARY}
root=$(cd "$(dirname "$0")/../.." && pwd)
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
[ "$(basename "$toolchain")" = usr ] && toolchain=$(dirname "$toolchain")
echo "ldd $bin (toolchain: $toolchain):"
ldd "$bin" | sed 's/^/  /'
if ldd "$bin" | grep -F "$toolchain/" >/dev/null || ldd "$bin" | grep -q 'not found'; then
    echo "FAIL: $bin loads a library from the toolchain's folder, or one that is missing" >&2
    exit 1
fi
# Run it with no trace of the toolchain: not on PATH, no LD_LIBRARY_PATH.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
env -i PATH=/usr/bin:/bin HOME="$scratch" "$bin" --version
env -i PATH=/usr/bin:/bin HOME="$scratch" "$bin" full --mirror "$scratch/Mirror" \
    --source "$root/Tests/Fixtures/sample-2026-08-08" --sprites none
env -i PATH=/usr/bin:/bin HOME="$scratch" "$bin" verify "$scratch/Mirror"
echo "OK: $bin runs without the toolchain"
