#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/gpu_bundle.sh: a stream of PoRep jobs of
# one profile through cuzk-daemon (CUDA backend). Generates a synthetic sector's vanilla proofs,
# starts the daemon, preloads the profile (constraint system recorded, key made by the GPU dev
# setup: both timed), proves one warm-up job, then JOBS more with CONCURRENCY in flight, and
# records the daemon log (TIMELINE and CUZK_TIMING lines per partition), the bench summary, the
# engine's /status (GPU utilization), the timeline chart, and a check of the last proof with
# `cuzk-bench verify-fc`.
#   porep.sh OUT_DIR [PROFILE] [PARTITIONS] [JOBS] [CONCURRENCY]
# Defaults: porep-c9, 10 partitions, 3 jobs, 2 in flight. JOBS = 0 proves the warm-up job only.
# Environment: CACHE_DIR (default: a fresh temporary folder) keeps the key and the constraint
# system on disk (srs.param_cache); CACHE_DIR=none keeps them in memory only (no disk writes:
# for profiles whose key is larger than the disk, such as porep-c18's 75 GB); DEVICES="0" (a
# TOML list body) limits the daemon to those GPUs (default: every GPU of the machine).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: porep.sh OUT_DIR [PROFILE] [PARTITIONS] [JOBS] [CONCURRENCY]}
profile=${2:-porep-c9}
parts=${3:-10}
jobs=${4:-3}
conc=${5:-2}
mkdir -p "$out"
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
bin=$here/bin
export CUZK_TIMING_LOG=1 # the CUDA backend's stage times per partition, in the daemon log
work=$(mktemp -d /tmp/cuzk-porep.XXXXXX)
cache=${CACHE_DIR:-$work/cache}
[ "$cache" = none ] && cache=""
ms() { date +%s%3N; }
log() { echo "porep.sh: $*" | tee -a "$out/porep_steps.log"; }
free -g > "$out/porep_mem.txt" 2>&1 || true
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv >> "$out/porep_mem.txt" 2>&1 || true

t0=$(ms)
"$bin/cuzk-bench" gen-vanilla "$profile" -p "$parts" --seed 7 -o "$work/vanilla.bin" \
  | tee -a "$out/porep_steps.log"
log "gen-vanilla $profile x $parts: $(($(ms) - t0)) ms"

cat > "$work/cuzk.toml" <<EOF
[daemon]
listen = "unix://$work/cuzk.sock"
status_listen = "127.0.0.1:9822"
[srs]
param_cache = "$cache"
[gpus]
devices = [${DEVICES:-}]
[logging]
timeline = true
EOF
"$bin/cuzk-daemon" -c "$work/cuzk.toml" > "$out/porep_daemon.log" 2>&1 &
pid=$!
trap 'kill -9 "$pid" 2>/dev/null || true' EXIT
until grep -q 'cuzk-daemon ready, serving on' "$out/porep_daemon.log"; do
  kill -0 "$pid" 2>/dev/null || { log "the daemon died"; exit 1; }
  sleep 0.1
done
addr="unix://$work/cuzk.sock"
t0=$(ms)
"$bin/cuzk-bench" -a "$addr" preload -c "porep:$profile" | tee -a "$out/porep_steps.log"
log "preload $profile (constraint system + GPU dev setup + key upload): $(($(ms) - t0)) ms"
free -g >> "$out/porep_mem.txt" 2>&1 || true
nvidia-smi --query-gpu=memory.used --format=csv >> "$out/porep_mem.txt" 2>&1 || true

t0=$(ms)
"$bin/cuzk-bench" -a "$addr" single -t porep --c1 "$work/vanilla.bin" --proof-out "$work/proof.bin" \
  > "$out/porep_single.log" 2>&1 || { cat "$out/porep_single.log"; log "warm-up job failed"; exit 1; }
cat "$out/porep_single.log"
log "warm-up job ($parts partitions): $(($(ms) - t0)) ms"
if [ -n "$cache" ]; then
  "$bin/cuzk-bench" verify-fc --vanilla "$work/vanilla.bin" --proof "$work/proof.bin" \
    --cache-dir "$cache" > "$out/porep_verify.log" 2>&1 || log "verify-fc: the proof did not check"
  cat "$out/porep_verify.log"
fi
if [ "$jobs" -gt 0 ]; then
  "$bin/cuzk-bench" -a "$addr" batch -t porep --c1 "$work/vanilla.bin" -c "$jobs" -j "$conc" \
    | tee "$out/porep_bench.log"
fi
python3 - "$out/porep_status.json" <<'EOF' || true
import sys, urllib.request
open(sys.argv[1], "wb").write(urllib.request.urlopen("http://127.0.0.1:9822/status").read())
EOF
grep -E '"(gpu_)?utilization"' "$out/porep_status.json" | head -n 4 || true
free -g >> "$out/porep_mem.txt" 2>&1 || true
kill -TERM "$pid"
wait "$pid" || true
trap - EXIT
grep -E 'CUZK_TIMING|FIN_TIMING' "$out/porep_daemon.log" | tail -n 4 || true
"$bin/cuzk-bench" timeline "$out/porep_daemon.log" -o "$out/porep_timeline.svg" \
  --title "cuzk-daemon on the H200: $profile, $parts partitions per job" || true
rm -rf "$work"
