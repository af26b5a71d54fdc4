#!/usr/bin/env bash
# Flat memory over a long uptime: cuzk-bench soak runs COUNT mixed small jobs against a real
# daemon on the CPU backend (four synthetic sizes at four priorities, 1 in 10 a request that
# must be refused, 1 in 10 cancelled at once), samples its RSS every 100 jobs and fails when
# the RSS after the run passes its plateau by more than MAX_GROWTH MiB (0: report only).
#
# The plateau is the median of the samples after the first 500 jobs (by then the keys, the
# thread pools and the heap's arenas have their working size). MAX_GROWTH = 2 MiB: the clean
# daemon ends within a few hundred KiB of its plateau (malloc's arenas move in steps well under
# 1 MiB), while a leak of L bytes a job ends about L x 750 above it (the final sample is taken
# at 2,000 jobs, the plateau's median sits near 1,250), so anything from about 3 KiB a job
# fails. Finished results are kept 2 s (scheduler.result_ttl), not the default 30 minutes,
# whose growth (a few KiB a job until they expire) is by design, not a leak.
#   soak.sh CUZK_DAEMON CUZK_BENCH [COUNT (2000)] [MAX_GROWTH_MIB (2)] [WARMUP (500)]
set -euo pipefail
daemon=$1
bench=$2
count=${3:-2000}
growth=${4:-2}
warmup=${5:-500}
work=$(mktemp -d /tmp/cuzk-soak.XXXXXX)
fail() { echo "soak: FAIL: $*" >&2; tail -n 20 "$work/daemon.log" >&2 || true; exit 1; }
cat > "$work/cuzk.toml" <<CONF
[daemon]
listen = "unix://$work/run/cuzk.sock"
[srs]
param_cache = "$work/cache"
[scheduler]
result_ttl = "2s"
[logging]
timeline = false
level = "warn"
CONF
"$daemon" -c "$work/cuzk.toml" > "$work/daemon.log" 2>&1 &
pid=$!
trap 'kill -9 "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 600); do
  grep -q 'cuzk-daemon ready, serving on' "$work/daemon.log" && break
  kill -0 "$pid" 2>/dev/null || fail "the daemon exited before it was ready"
  sleep 0.1
done
grep -q 'cuzk-daemon ready, serving on' "$work/daemon.log" || fail "no ready line"
rc=0
"$bench" -a "unix://$work/run/cuzk.sock" soak --pid "$pid" -c "$count" --warmup "$warmup" \
  --max-growth "$growth" \
  --mix synthetic=256@low:4,synthetic=256x2@normal:3,synthetic=200x4@high:2,synthetic=512@critical:1 ||
  rc=$?
kill -TERM "$pid"
drc=0
wait "$pid" || drc=$?
[ "$drc" -eq 0 ] || fail "the daemon exited with $drc after SIGTERM"
[ "$rc" -eq 0 ] || fail "cuzk-bench soak exited with $rc"
echo "soak: PASS"
