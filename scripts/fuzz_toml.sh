#!/usr/bin/env bash
# Fuzzes the configuration parser (src/server/toml.c) with libFuzzer for a number of executions.
#   usage: scripts/fuzz_toml.sh [RUNS] [libFuzzer options...]     (RUNS default 1000000)
# The TOML harness of scripts/fuzz.sh (which fuzzes every parser, docs/fuzzing.md), run for RUNS
# executions instead of a time: built in $BUILD (default build-fuzz), seeded with the sample
# configurations of conf/. A crash, a sanitizer report or a broken round-trip property stops the
# run with a reproducer file (crash-*) in $BUILD/fuzz/toml/; the script then exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
[ $# -gt 0 ] && shift
exec scripts/fuzz.sh toml 31536000 -runs="$runs" "$@"
