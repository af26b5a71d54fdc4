#!/usr/bin/env bash
# Builds cuzk with the CUDA backend for the H200 (sm_90) on the development machine and bundles
# the GPU tests and benchmarks, with the shared libraries they need beyond libc, into one folder
# that runs on a GPU machine with nothing but the NVIDIA driver (cudart is linked statically).
#   scripts/gpu_bundle.sh [BUNDLE_DIR]        (default: .gpu-bundle, ignored by git)
# Then, on the GPU machine, from the repository root:
#   BUNDLE_DIR/run.sh OUT_DIR                  (GPU tests + benchmarks, CSV results in OUT_DIR)
#   BUNDLE_DIR/stream.sh OUT_DIR [N] [JOBS]    (the daemon under a stream of 10-partition jobs)
#   BUNDLE_DIR/porep.sh OUT_DIR [PROFILE] ...   (a stream of PoRep jobs through the daemon)
# The binaries are stripped and the folder is also packed as BUNDLE_DIR.tar.xz (the bundle
# travels: keep it small); unpack it there with `tar -xJf BUNDLE_DIR.tar.xz`.
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-.gpu-bundle}
build=${CUZK_BUILD_DIR:-build-gpu} # any release build with CUDA for sm_90 will do
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build "$build" -j"$(nproc)"
rm -rf "$bundle" && mkdir -p "$bundle/bin" "$bundle/lib"
for f in "$build"/tests/test_gpu* "$build"/bench/bench_gpu* "$build"/bench/bench_arith \
  "$build"/bench/bench_msm "$build"/bench/bench_ntt "$build"/apps/cuzk "$build"/apps/cuzk-daemon \
  "$build"/apps/cuzk-bench; do
  [ -x "$f" ] && cp "$f" "$bundle/bin/"
done
# shared libraries other than the C runtime's (e.g. libjansson) travel along
for f in "$bundle"/bin/*; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u | { grep -v -E '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+)\.so' || true; } |
  while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
cp scripts/gpu_run.sh "$bundle/run.sh"
cp scripts/gpu_stream.sh "$bundle/stream.sh"
cp scripts/gpu_porep.sh "$bundle/porep.sh"
strip --strip-unneeded "$bundle"/bin/* "$bundle"/lib/* 2>/dev/null || true
tar -C "$(dirname "$bundle")" -cJf "$bundle.tar.xz" "$(basename "$bundle")"
echo "bundle: $bundle ($(du -sh "$bundle" | cut -f1), packed $(du -sh "$bundle.tar.xz" | cut -f1)): $(ls "$bundle/bin" | tr '\n' ' ')"
