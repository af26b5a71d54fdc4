#!/usr/bin/env bash
# Runs on the GPU machine from a bundle made by scripts/gpu_bundle.sh: a stream of PoRep jobs of
# one profile through cuzk-daemon (CUDA backend). Generates a synthetic sector's vanilla proofs,
# starts the daemon, preloads the profile (constraint system recorded, key set up on the GPU and
# written to the key cache, then streamed to the GPU: all timed), proves one warm-up job, then
# JOBS more with CONCURRENCY in flight, and records the daemon log (TIMELINE, GPU_TIMING,
# GPU_STAGES and CUZK_TIMING lines), the bench summary, the engine's /status (GPU utilization),
# the timeline chart, the stage times' medians (porep_stages.txt, `cuzk-bench stages`), a check of
# the warm-up proof with `cuzk-bench verify-fc`, and a one-second
# sample of the daemon's memory (porep_mem.csv: resident and peak resident set, the machine's
# available memory, the GPU's used memory).
#   porep.sh OUT_DIR [PROFILE] [PARTITIONS] [JOBS] [CONCURRENCY]
# Defaults: porep-c9, 10 partitions, 3 jobs, 2 in flight. JOBS = 0 proves the warm-up job only.
# Environment: CACHE_DIR (default: a fresh temporary folder) keeps the key file and the
# constraint system on disk (srs.param_cache); CACHE_DIR=none keeps them in memory only;
# BUDGET (memory.total_budget, default "auto"); PREPIN=true|false (memory.pin_at_preload,
# default true, the daemon's default); OVERLAP=true|false (gpus.overlap_ntt, default true, the
# daemon's default); PRESUM=true|false (gpus.presum, default true, the daemon's default); DEVICES="0" (a TOML list body) limits the daemon
# to those GPUs (default: every GPU of the machine); RESTART=1 stops the daemon after the stream,
# starts it again and times the preload from the key cache and one more job. WINNING=SECONDS
# also preloads WinningPoSt (winning-s66) and, that many seconds into the measured stream,
# proves one WinningPoSt at CRITICAL beside it: its latency goes to porep_winning.log.
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
work=$(mktemp -d /tmp/cuzk-porep.XXXXXX)
cache=${CACHE_DIR:-$work/cache}
[ "$cache" = none ] && cache=""
ms() { date +%s%3N; }
log() { echo "porep.sh: $*" | tee -a "$out/porep_steps.log"; }
free -g > "$out/porep_mem.txt" 2>&1 || true
df -h "$work" >> "$out/porep_mem.txt" 2>&1 || true
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv >> "$out/porep_mem.txt" 2>&1 || true

# sample: ms since start, the daemon's VmRSS and VmHWM (KiB), MemAvailable (KiB), GPU used (MiB)
sampler() {
  local t_start pid_file=$work/daemon.pid
  t_start=$(ms)
  echo "t_ms,rss_kib,hwm_kib,avail_kib,vram_mib" > "$out/porep_mem.csv"
  while :; do
    local p rss=0 hwm=0 avail vram
    p=$(cat "$pid_file" 2>/dev/null || true)
    if [ -n "$p" ] && [ -r "/proc/$p/status" ]; then
      rss=$(awk '/^VmRSS/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
      hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$p/status" 2>/dev/null || true)
    fi
    avail=$(awk '/^MemAvailable/ {print $2}' /proc/meminfo)
    vram=$( (nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null || true) | head -n1)
    echo "$(($(ms) - t_start)),${rss:-0},${hwm:-0},$avail,${vram:-0}" >> "$out/porep_mem.csv"
    sleep 1
  done
}
sampler &
sampler_pid=$!

t0=$(ms)
"$bin/cuzk-bench" gen-vanilla "$profile" -p "$parts" --seed 7 -o "$work/vanilla.bin" \
  | tee -a "$out/porep_steps.log"
log "gen-vanilla $profile x $parts: $(($(ms) - t0)) ms"
if [ -n "${WINNING:-}" ]; then
  "$bin/cuzk-bench" gen-vanilla winning-s66 --seed 3 -o "$work/winning.van" > /dev/null
fi

cat > "$work/cuzk.toml" <<EOF
[daemon]
listen = "unix://$work/cuzk.sock"
status_listen = "127.0.0.1:9822"
[srs]
param_cache = "$cache"
setup_allow = "*" # any profile the benchmark names
[memory]
total_budget = "${BUDGET:-auto}"
pin_at_preload = ${PREPIN:-true}
[gpus]
devices = [${DEVICES:-}]
vram_budget = "${VRAM:-auto}"
overlap_ntt = ${OVERLAP:-true}
presum = ${PRESUM:-true}
[logging]
timeline = true
EOF
start_daemon() { # $1: the log file
  "$bin/cuzk-daemon" -c "$work/cuzk.toml" > "$1" 2>&1 &
  pid=$!
  echo "$pid" > "$work/daemon.pid"
  until grep -q 'cuzk-daemon ready, serving on' "$1"; do
    kill -0 "$pid" 2>/dev/null || { log "the daemon died"; tail -n 20 "$1"; exit 1; }
    sleep 0.1
  done
}
stop_daemon() {
  kill -TERM "$pid"
  wait "$pid" || true
  rm -f "$work/daemon.pid"
}
trap 'kill -9 "$pid" "$sampler_pid" 2>/dev/null || true' EXIT
start_daemon "$out/porep_daemon.log"
addr="unix://$work/cuzk.sock"
t0=$(ms)
"$bin/cuzk-bench" -a "$addr" preload -c "porep:$profile" | tee -a "$out/porep_steps.log"
log "preload $profile (constraint system + GPU dev setup + key upload): $(($(ms) - t0)) ms"
grep -h -e "residency plan" -e "plan.s sizes" "$out/porep_daemon.log" | tee -a "$out/porep_steps.log" || true
if [ -n "${WINNING:-}" ]; then
  t0=$(ms)
  "$bin/cuzk-bench" -a "$addr" preload -c "winning:winning-s66" | tee -a "$out/porep_steps.log"
  log "preload winning-s66: $(($(ms) - t0)) ms"
fi
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
winning() { # one WinningPoSt at CRITICAL, $WINNING seconds into the stream, timed
  sleep "$WINNING"
  local t
  t=$(ms)
  if "$bin/cuzk-bench" -a "$addr" single -t winning --vanilla "$work/winning.van" \
    --priority critical > "$out/porep_winning.log" 2>&1; then
    log "WinningPoSt (CRITICAL) during the stream: $(($(ms) - t)) ms from submit to proof"
  else
    log "WinningPoSt during the stream failed"
  fi
}
if [ "$jobs" -gt 0 ]; then
  wpid=""
  if [ -n "${WINNING:-}" ]; then winning & wpid=$!; fi
  "$bin/cuzk-bench" -a "$addr" batch -t porep --c1 "$work/vanilla.bin" -c "$jobs" -j "$conc" \
    | tee "$out/porep_bench.log"
  [ -z "$wpid" ] || wait "$wpid"
fi
python3 - "$out/porep_status.json" <<'EOF' || true
import sys, urllib.request
open(sys.argv[1], "wb").write(urllib.request.urlopen("http://127.0.0.1:9822/status").read())
EOF
grep -E '"(gpu_)?utilization"' "$out/porep_status.json" | head -n 4 || true
free -g >> "$out/porep_mem.txt" 2>&1 || true
stop_daemon
if [ "${RESTART:-0}" = 1 ] && [ -n "$cache" ]; then
  start_daemon "$out/porep_daemon2.log"
  t0=$(ms)
  "$bin/cuzk-bench" -a "$addr" preload -c "porep:$profile" | tee -a "$out/porep_steps.log"
  log "restart: preload $profile from the key cache: $(($(ms) - t0)) ms"
  t0=$(ms)
  "$bin/cuzk-bench" -a "$addr" single -t porep --c1 "$work/vanilla.bin" > "$out/porep_single2.log" 2>&1 ||
    log "restart: the job failed"
  cat "$out/porep_single2.log"
  log "restart: one job ($parts partitions): $(($(ms) - t0)) ms"
  stop_daemon
fi
kill "$sampler_pid" 2>/dev/null || true
trap - EXIT
awk -F, 'NR > 1 { if ($3 > h) h = $3; if (a == "" || $4 < a) a = $4; if ($5 > v) v = $5 }
  END { printf "porep.sh: peak daemon RSS %.1f GiB, least MemAvailable %.1f GiB, peak GPU used %.1f GiB\n",
        h / 1048576, a / 1048576, v / 1024 }' "$out/porep_mem.csv" | tee -a "$out/porep_steps.log"
grep -E 'CUZK_TIMING|FIN_TIMING|GPU_STAGES' "$out/porep_daemon.log" | tail -n 6 || true
"$bin/cuzk-bench" stages "$out/porep_daemon.log" > "$out/porep_stages.txt" || true
card=$( (nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true) | head -n1)
"$bin/cuzk-bench" timeline "$out/porep_daemon.log" -o "$out/porep_timeline.svg" \
  --title "cuzk-daemon on ${card:-the GPU}: $profile, $parts partitions per job" || true
rm -rf "$work"
