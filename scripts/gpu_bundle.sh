#!/usr/bin/env bash
# Builds cuzk with the CUDA backend for the H200 (sm_90) on the development machine and bundles
# the GPU tests and benchmarks, with the shared libraries they need beyond libc, into one folder
# that runs on a GPU machine with nothing but the NVIDIA driver (cudart is linked statically).
#   scripts/gpu_bundle.sh [BUNDLE_DIR]        (default: .gpu-bundle, ignored by git)
# Then, on the GPU machine, from the repository root:
#   BUNDLE_DIR/run.sh OUT_DIR                  (GPU tests + benchmarks, CSV results in OUT_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=${1:-.gpu-bundle}
export PATH="$PATH:/usr/local/cuda/bin"
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >/dev/null
cmake --build build-gpu -j"$(nproc)"
rm -rf "$bundle" && mkdir -p "$bundle/bin" "$bundle/lib"
for f in build-gpu/tests/test_gpu* build-gpu/bench/bench_gpu* build-gpu/bench/bench_arith \
  build-gpu/bench/bench_msm build-gpu/bench/bench_ntt; do
  [ -x "$f" ] && cp "$f" "$bundle/bin/"
done
# shared libraries other than the C runtime's (e.g. libjansson) travel along
for f in "$bundle"/bin/*; do
  ldd "$f" | awk '/=> \// {print $3}'
done | sort -u | { grep -v -E '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+)\.so' || true; } |
  while read -r lib; do cp -L "$lib" "$bundle/lib/"; done
cp scripts/gpu_run.sh "$bundle/run.sh"
echo "bundle: $bundle ($(du -sh "$bundle" | cut -f1)): $(ls "$bundle/bin" | tr '\n' ' ')"
