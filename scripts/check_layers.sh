#!/usr/bin/env bash
# The layer check: every source file under src/ includes headers of its own folder, of the
# public include/cuzk/, or of folders below it in the layer order of the project's style guide:
#   util -> ff -> {ec, ntt, r1cs} -> {msm, pairing, circuits, formats} -> {gpu, filecoin} ->
#   groth16 -> engine -> {kinds, client} -> server
# (apps/ and tests/ may include anything). Folders of one layer do not include each other.
# Exceptions, each with its reason, are listed in EXCEPTIONS below (file -> folder).
# Exit 0 when the tree keeps the order, 1 with the offending includes listed.
#   scripts/check_layers.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# file:folder pairs allowed against the order, with why
EXCEPTIONS=(
  # none
)

rank() {
  case $1 in
  util) echo 0 ;;
  ff) echo 1 ;;
  ec | ntt | r1cs) echo 2 ;;
  msm | pairing | circuits | formats) echo 3 ;;
  gpu | filecoin) echo 4 ;;
  groth16) echo 5 ;;
  engine) echo 6 ;;
  kinds | client) echo 7 ;;
  server) echo 8 ;;
  *) echo "" ;;
  esac
}

bad=0
while IFS= read -r f; do
  layer=$(cut -d/ -f2 <<<"$f")
  r=$(rank "$layer")
  if [ -z "$r" ]; then
    echo "check_layers: $f: the folder src/$layer is in no layer (add it to the order)"
    bad=1
    continue
  fi
  while IFS= read -r inc; do
    [ "$inc" = "$layer" ] && continue
    ri=$(rank "$inc")
    [ -z "$ri" ] && continue # <cuzk/...> public headers, generated protobuf headers
    [ "$ri" -lt "$r" ] && continue
    allowed=0
    for e in "${EXCEPTIONS[@]+"${EXCEPTIONS[@]}"}"; do [ "$e" = "$f:$inc" ] && allowed=1; done
    [ "$allowed" = 1 ] && continue
    echo "check_layers: $f includes $inc/ (layer $ri), not below its own $layer/ (layer $r)"
    bad=1
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]+"([a-z0-9_]+)\/.*/\1/p' "$f" | sort -u)
done < <(find src -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
if [ "$bad" = 0 ]; then echo "check_layers: every include of src/ points down the layers"; fi
exit "$bad"
