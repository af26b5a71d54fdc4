#!/usr/bin/env bash
# Installs what cuzk needs on a fresh Debian machine, idempotently: the Debian packages it builds
# with, and the pinned npm test peers (package-lock.json). Safe to run again: it installs only
# what is missing. nvcc is used when present (the CUDA toolkit is not installed by this script).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(build-essential cmake pkg-config nodejs npm clang-format clang libjansson-dev libgrpc-dev
      libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev openssl)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# node and npm may come from outside Debian's packages; accept them when they work
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=($(printf '%s\n' "${missing[@]}" | grep -vx -e nodejs -e npm || true))
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

# npm ci only when node_modules does not match the lock file
stamp=node_modules/.cuzk-lock.sha256
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
echo "setup: ok"
