#!/usr/bin/env bash
# The symbol check: every global symbol a library of cuzk defines (the core, the server, the
# client) starts with cuzk_, so that nothing of it can collide with a program that links it.
# Left out: C++ symbols (mangled, _Z...: the CUDA files' kernels and helpers, in their own
# namespaces, which no C caller reaches) and what the CUDA toolkit's headers define in every
# object that includes them (NVTX's tables, the C++ personality reference).
# Exit 0 when every symbol is prefixed, 1 with the others listed.
#   scripts/check_symbols.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bad=0
for lib in "$build/libcuzk_core.a" "$build/libcuzk_server.a" "$build/apps/libcuzk_client.a"; do
  [ -f "$lib" ] || { echo "check_symbols: $lib: not built"; bad=1; continue; }
  others=$(nm -g --defined-only "$lib" | awk '$2 ~ /^[TDBRVWGS]$/ {print $3}' |
    grep -v -E '^(cuzk_|_Z|nvtx|DW\.ref\.__gxx_personality|InitializeInjectionNvtx)' | sort -u || true)
  if [ -n "$others" ]; then
    echo "check_symbols: $lib defines global symbols without the cuzk_ prefix:"
    echo "$others" | sed 's/^/  /'
    bad=1
  fi
done
if [ "$bad" = 0 ]; then echo "check_symbols: every global symbol of the libraries starts with cuzk_"; fi
exit "$bad"
