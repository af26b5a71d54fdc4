#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/gpu_bundle.sh: starts cuzk-daemon (CUDA
# backend), waits for its ready line, pushes a stream of 10-partition synthetic jobs through it
# with cuzk-bench, and records the engine's own GPU utilization figure, the bench summary, the
# daemon log with its TIMELINE lines and the timeline chart.
#   stream.sh OUT_DIR [CONSTRAINTS_PER_PARTITION] [JOBS] [CONCURRENCY]
# Defaults: 1000000 constraints per partition, 8 jobs, 3 in flight.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: stream.sh OUT_DIR [N] [JOBS] [CONCURRENCY]}
n=${2:-1000000}
jobs=${3:-8}
conc=${4:-3}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
work=$(mktemp -d /tmp/cuzk-stream.XXXXXX)
bin=$here/bin
# the key first (GPU dev setup), outside the timed stream
"$bin/cuzk-bench" gen --synthetic "$n" -o "$work/cache" > "$out/stream_gen.log" 2>&1
cat > "$work/cuzk.toml" <<EOF
[daemon]
listen = "unix://$work/cuzk.sock"
status_listen = "127.0.0.1:9821"
[srs]
param_cache = "$work/cache"
[synthetic]
max_setup_constraints = 0 # the benchmark's sizes, whatever they are
EOF
"$bin/cuzk-daemon" -c "$work/cuzk.toml" > "$out/stream_daemon.log" 2>&1 &
pid=$!
trap 'kill -9 "$pid" 2>/dev/null || true' EXIT
until grep -q 'cuzk-daemon ready, serving on' "$out/stream_daemon.log"; do
  kill -0 "$pid" 2>/dev/null || { echo "stream: daemon died"; exit 1; }
  sleep 0.1
done
addr="unix://$work/cuzk.sock"
"$bin/cuzk-bench" -a "$addr" preload -c "synthetic:$n"
# a warm-up job, then the measured stream
"$bin/cuzk-bench" -a "$addr" single -t synthetic --circuit "${n}x10" > "$out/stream_warmup.log" 2>&1
"$bin/cuzk-bench" -a "$addr" batch -t synthetic --circuit "${n}x10" -c "$jobs" -j "$conc" \
  | tee "$out/stream_bench.log"
python3 - "$out/stream_status.json" <<'EOF'
import sys, urllib.request
open(sys.argv[1], "wb").write(urllib.request.urlopen("http://127.0.0.1:9821/status").read())
EOF
grep -E '"(gpu_)?utilization"' "$out/stream_status.json" | head -n 4 || true
kill -TERM "$pid"
wait "$pid" || true
trap - EXIT
"$bin/cuzk-bench" timeline "$out/stream_daemon.log" -o "$out/stream_timeline.svg" \
  --title "cuzk-daemon on the H200: $jobs jobs x 10 partitions of $n constraints"
